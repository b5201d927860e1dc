package port_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// TestImportRefusesLongLine: a row over port.MaxLine (64 MiB) is refused
// with its line number, before it is decoded or written; with --partial
// it is left out and the rest comes in. Before, MaxLine was 256 MiB and a
// 200 MB text row was decoded and written (1.46 GB peak) before its hash
// refused it (ux F27).
func TestImportRefusesLongLine(t *testing.T) {
	good := string(export(t, filled(t), false))
	const from = `{"t":"content","v":["h-a",`
	at := strings.Index(good, from)
	if at < 0 {
		t.Fatalf("the export has no %q", from)
	}
	end := at + strings.Index(good[at:], "\n")
	n := strings.Count(good[:at], "\n") + 1 // the content row's line number
	big := good[:at] + `{"t":"content","v":["h-a","a","` + strings.Repeat("x", 64<<20) + `",1]}` + good[end:]
	_, err := importInto(t, openStore(t), []byte(big), nil)
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "line over 64 MiB") || !strings.Contains(err.Error(), "line "+strconv.Itoa(n)) {
		t.Fatalf("import of a line over MaxLine: %v, want an ErrInvalid naming line %d and the bound", err, n)
	}
	dst := openStore(t)
	res, err := importInto(t, dst, []byte(big), &port.ImportOptions{Partial: true})
	if err != nil {
		t.Fatalf("partial import: %v", err)
	}
	if st, _ := dst.DocStates(context.Background(), "notes"); len(st) != 0 || res.Counts["memories"] != 1 {
		t.Errorf("partial import: documents %v, counts %v; want the document that lost its text left out, the rest in", st, res.Counts)
	}
}
