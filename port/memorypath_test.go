package port_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// TestImportRefusesMemoryPath: a memories row whose id, kind or
// superseded_by could name a document outside the memories folder is a
// broken row: the import fails naming it (nothing written), and with
// Partial the row alone is left out and counted. Before, it was imported
// and the next sync wrote its document wherever the "../" led.
func TestImportRefusesMemoryPath(t *testing.T) {
	good := string(export(t, filled(t), false))
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"id", `{"t":"memories","v":["m1",`, `{"t":"memories","v":["../../../../victim/keep",`, "memory id"},
		{"kind", `{"t":"memories","v":["m1","fact",`, `{"t":"memories","v":["m1","../x",`, "kind"},
		{"superseded_by", `"active","",`, `"active","../m2",`, "superseded_by"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good, c.from) {
				t.Fatalf("the export has no %q", c.from)
			}
			bad := []byte(strings.Replace(good, c.from, c.to, 1))
			dst := openStore(t)
			_, err := importInto(t, dst, bad, nil)
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an ErrInvalid naming %q", err, c.want)
			}
			if ms, _ := dst.Memories(context.Background(), cairn.MemoryFilter{}); len(ms) != 0 {
				t.Fatalf("a failed import left memories %+v", ms)
			}
			dst = openStore(t)
			res, err := importInto(t, dst, bad, &port.ImportOptions{Partial: true})
			if err != nil {
				t.Fatalf("partial import: %v", err)
			}
			ms, _ := dst.Memories(context.Background(), cairn.MemoryFilter{})
			if len(ms) != 0 || res.Counts["memories"] != 0 || res.Counts["documents"] == 0 {
				t.Fatalf("partial import: memories %+v, counts %v; want the row left out, the rest in", ms, res.Counts)
			}
		})
	}
}
