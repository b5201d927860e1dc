package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	o := Options{Notes: 250, Seed: 7}
	na, ba, err := Generate(a, o)
	if err != nil {
		t.Fatal(err)
	}
	nb, bb, err := Generate(b, o)
	if err != nil {
		t.Fatal(err)
	}
	if na != nb || ba != bb {
		t.Fatalf("same seed: %d files %d bytes, then %d files %d bytes", na, ba, nb, bb)
	}
	for i := range o.Notes {
		p := filepath.FromSlash(NotePath(i))
		x, err := os.ReadFile(filepath.Join(a, p))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two runs with the same seed", p)
		}
	}
	c := t.TempDir()
	if _, _, err := Generate(c, Options{Notes: 1, Seed: 8}); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(a, NotePath(0)))
	y, _ := os.ReadFile(filepath.Join(c, NotePath(0)))
	if bytes.Equal(x, y) {
		t.Fatalf("seeds 7 and 8 wrote the same note 0")
	}
}

func TestGenerateSize(t *testing.T) {
	for _, avg := range []int{0, 1500, 4000} {
		want := avg
		if want == 0 {
			want = DefaultAvgBytes
		}
		n, total, err := Generate(t.TempDir(), Options{Notes: 1000, AvgBytes: avg, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := float64(total) / float64(n)
		if got < 0.9*float64(want) || got > 1.1*float64(want) {
			t.Errorf("avg bytes %d: mean note size %.0f, want within 10%%", avg, got)
		}
	}
}

func TestEdit(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Generate(dir, Options{Notes: 200, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	n, err := Edit(dir, 0.05, 9)
	if err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, dir)
	changed := 0
	for p, text := range before {
		if after[p] != text {
			changed++
		}
	}
	if n != 10 || changed != 10 {
		t.Fatalf("Edit reported %d and changed %d notes, want 10", n, changed)
	}
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestQueries(t *testing.T) {
	a, b := Queries(300, 1), Queries(300, 1)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("Queries is not deterministic")
	}
	kinds := map[string]int{}
	for _, q := range LabeledQueries(300, 1) {
		if strings.TrimSpace(q.Text) == "" {
			t.Fatalf("blank %s query", q.Kind)
		}
		kinds[q.Kind]++
	}
	for _, k := range []string{KindCommon, KindMid, KindRare, KindMixed, KindIdent, KindPhrase} {
		if kinds[k] == 0 {
			t.Errorf("no %s query among 300", k)
		}
	}
}
