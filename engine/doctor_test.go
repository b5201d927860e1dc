package engine

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

var doctorNotes = map[string]string{
	"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
	"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
}

// doctorFixture syncs the notes with an embedder and closes the engine,
// leaving a data directory for Doctor.
func doctorFixture(t *testing.T) (*fixture, Options) {
	t.Helper()
	f := newFixture(t, doctorNotes, Options{Embedder: &conceptEmbedder{model: "v1"}})
	f.sync()
	opts := f.eng.opts
	f.eng.Close(context.Background())
	return f, opts
}

func doctor(t *testing.T, opts Options, repair bool) *DoctorReport {
	t.Helper()
	rep, err := Doctor(context.Background(), opts, repair)
	if err != nil {
		t.Fatalf("Doctor(repair %v): %v", repair, err)
	}
	return rep
}

func statuses(rep *DoctorReport) map[string]string {
	out := map[string]string{}
	for _, c := range rep.Checks {
		out[c.Name] = c.Status
	}
	return out
}

// rawExec writes to the index behind the store's back (the driver the
// store registers, so the tokenizer and the durable store are there).
func rawExec(t *testing.T, dir string, queries ...string) {
	t.Helper()
	db, err := sql.Open("cairn_sqlite3", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range queries {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestDoctorCleanIndex(t *testing.T) {
	_, opts := doctorFixture(t)
	rep := doctor(t, opts, false)
	want := map[string]string{"lock": CheckOK, "index": CheckOK, "fulltext": CheckOK, "strays": CheckOK, "text": CheckOK,
		"vectors": CheckOK, "temp_files": CheckOK, "memories": CheckOK}
	if got := statuses(rep); !equalMaps(got, want) || rep.Problems != 0 {
		t.Errorf("clean index: %v (%d problems), want all ok; %+v", got, rep.Problems, rep.Checks)
	}
}

// TestDoctorRepairsDerived: stray rows, a full-text index missing a row,
// a damaged vectors.bin and a stale temp file are found, then rebuilt.
func TestDoctorRepairsDerived(t *testing.T) {
	ctx := context.Background()
	f, opts := doctorFixture(t)
	dir := opts.Dir
	rawExec(t, dir,
		`DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks WHERE noise = 0)`,
		`INSERT INTO vectors(chunk_id, identity, vec) VALUES(999999, 'x', x'00000000')`,
		`DELETE FROM documents WHERE path = 'c.md'`, // a removal whose GC never ran
		`INSERT OR REPLACE INTO meta(key, value) VALUES('gc_pending', '0')`)
	vf := filepath.Join(dir, VectorFile)
	b, err := os.ReadFile(vf)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-5] ^= 0xff
	os.WriteFile(vf, b, 0o600)
	stale := filepath.Join(dir, SessionsDir, ".x.md-123")
	os.MkdirAll(filepath.Dir(stale), 0o700)
	os.WriteFile(stale, nil, 0o600)
	old := oldTime()
	os.Chtimes(stale, old, old)

	rep := doctor(t, opts, false)
	want := map[string]string{"lock": CheckOK, "index": CheckOK, "fulltext": CheckOK, "strays": CheckProblem, "text": CheckOK,
		"vectors": CheckProblem, "temp_files": CheckProblem, "memories": CheckOK}
	if got := statuses(rep); !equalMaps(got, want) || rep.Problems != 3 {
		t.Errorf("damaged: %v (%d problems), want %v; %+v", got, rep.Problems, want, rep.Checks)
	}
	rep = doctor(t, opts, true)
	for k, v := range want {
		if v == CheckProblem {
			want[k] = CheckRepaired
		}
	}
	if got := statuses(rep); !equalMaps(got, want) || rep.Problems != 0 {
		t.Errorf("repair: %v, want %v; %+v", got, want, rep.Checks)
	}
	if rep := doctor(t, opts, false); rep.Problems != 0 {
		t.Errorf("after repair: %+v", rep.Checks)
	}
	// The rebuilt full-text index finds the chunk it had lost.
	eng, err := Open(ctx, Options{Dir: dir, Corpora: f.eng.opts.Corpora, Embedder: opts.Embedder})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	for _, q := range []string{"Caroline support", "tomatoes compost"} {
		if hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical}); err != nil || len(hits) != 1 {
			t.Errorf("search %q after repair: %v, %v", q, hits, err)
		}
	}
}

// corruptPage overwrites one page in the middle of the index file.
func corruptPage(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(b) < 4*page {
		t.Fatalf("index of %d bytes is too small to damage", len(b))
	}
	// The damaged page is the root of the chunks table, a data page: a
	// page picked by position can be part of the schema once the schema
	// grows past a page, and then no open gets as far as a check.
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var root int
	err = db.QueryRow(`select rootpage from sqlite_master where type = 'table' and name = 'chunks'`).Scan(&root)
	db.Close()
	if err != nil || root < 2 || root*page > len(b) {
		t.Fatalf("root page of chunks: %d, %v", root, err)
	}
	at := (root-1)*page + 16
	copy(b[at:at+page-32], bytes.Repeat([]byte{0xa5}, page-32))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorRebuildsDamagedIndex: an index that is not a database, and
// one with a page overwritten, are moved aside and rebuilt from the
// corpora; the durable store beside them is not touched.
func TestDoctorRebuildsDamagedIndex(t *testing.T) {
	for _, damage := range []string{"not a database", "page overwritten"} {
		t.Run(damage, func(t *testing.T) {
			ctx := context.Background()
			f, opts := doctorFixture(t)
			path := filepath.Join(opts.Dir, DBFile)
			durable := filepath.Join(opts.Dir, sqlite.DurableFile)
			before, err := os.ReadFile(durable)
			if err != nil {
				t.Fatal(err)
			}
			if damage == "not a database" {
				os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 1000), 0o600)
			} else {
				corruptPage(t, path)
			}
			rep := doctor(t, opts, false)
			if got := statuses(rep); got["index"] != CheckProblem || rep.Problems != 1 {
				t.Fatalf("damaged index: %v; %+v", got, rep.Checks)
			}
			rep = doctor(t, opts, true)
			if got := statuses(rep); got["index"] != CheckRepaired || rep.Sync == nil || rep.Sync.Corpora[0].Added != 3 {
				t.Fatalf("repair: %v, sync %+v; %+v", got, rep.Sync, rep.Checks)
			}
			if _, err := os.Stat(rep.MovedAside); err != nil || !strings.HasPrefix(rep.MovedAside, path+".damaged-") {
				t.Errorf("moved aside to %q: %v", rep.MovedAside, err)
			}
			if after, err := os.ReadFile(durable); err != nil || !bytes.Equal(before, after) {
				t.Errorf("the durable store changed in a repair: %v", err)
			}
			eng, err := Open(ctx, Options{Dir: opts.Dir, Corpora: f.eng.opts.Corpora})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close(ctx)
			if hits, err := eng.Search(ctx, "tomatoes", &cairn.SearchOptions{Mode: cairn.ModeLexical}); err != nil || len(hits) != 1 {
				t.Errorf("search the rebuilt index: %v, %v", hits, err)
			}
		})
	}
}

// TestDamagedIndexMessages (item 13): the errors name the file and what
// to do, for a file that is not a database, a page-damaged file found by
// the quick check after a killed sync, and a read-only database.
func TestDamagedIndexMessages(t *testing.T) {
	ctx := context.Background()
	_, opts := doctorFixture(t)
	path := filepath.Join(opts.Dir, DBFile)
	wantHint := func(err error, hint string) {
		t.Helper()
		var ce *cairn.Error
		if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(ce.Hint, hint) || !strings.Contains(err.Error(), path) {
			t.Errorf("error %v: want a cairn.Error on %s with a hint containing %q", err, path, hint)
		}
	}
	// A sync killed mid-way leaves "PID syncing" in the lock file; the next
	// sync then runs quick_check.
	corruptPage(t, path)
	os.WriteFile(filepath.Join(opts.Dir, LockFile), []byte("12345 syncing\n"), 0o600)
	eng, err := Open(ctx, Options{Dir: opts.Dir, Corpora: opts.Corpora, OneShot: true})
	if err != nil {
		t.Fatalf("open a page-damaged index (one-shot: no check): %v", err)
	}
	_, err = eng.Sync(ctx, nil)
	eng.Close(ctx)
	wantHint(err, "cairn doctor --repair")
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("sync after a killed one on a damaged index: %v, want ErrDamaged", err)
	}
	os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 1000), 0o600)
	_, err = Open(ctx, Options{Dir: opts.Dir, Corpora: opts.Corpora, OneShot: true})
	wantHint(err, "cairn doctor --repair")
	t.Logf("not a database: %v", err)
}

// TestReadOnlyIndexMessage: a write refused by a read-only database names
// the file and says how to fix it. (A chmod does not stop root, who runs
// some test machines, so the refusal comes from a read-only open, which
// gives SQLite's same error.)
func TestReadOnlyIndexMessage(t *testing.T) {
	_, opts := doctorFixture(t)
	path := filepath.Join(opts.Dir, DBFile)
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`DELETE FROM documents`)
	err = sqlite.Diagnose("write index", path, err)
	var ce *cairn.Error
	if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(ce.Hint, "read-only") {
		t.Errorf("read-only write: %v", err)
	}
	if os.Geteuid() != 0 {
		os.Chmod(path, 0o400)
		defer os.Chmod(path, 0o600)
		eng, err := Open(context.Background(), Options{Dir: opts.Dir, Corpora: opts.Corpora, OneShot: true})
		if err == nil {
			os.WriteFile(filepath.Join(opts.Corpora[0].Paths[0], "d.md"), []byte("# D\n\nnew\n"), 0o644)
			_, err = eng.Sync(context.Background(), nil)
			eng.Close(context.Background())
		}
		if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(ce.Hint, "read-only") {
			t.Errorf("sync into a read-only index: %v", err)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func oldTime() (t0 time.Time) { return time.Now().Add(-2 * StaleTempAge) }

// TestDoctorRebuildsBrokenFullText: full-text segments lost from the FTS5
// shadow table fail FTS5's integrity-check; the repair rebuilds the table
// from the chunks and searches find every note again.
func TestDoctorRebuildsBrokenFullText(t *testing.T) {
	ctx := context.Background()
	f, opts := doctorFixture(t)
	rawExec(t, opts.Dir, `DELETE FROM chunks_fts_data WHERE id > 10`)
	rep := doctor(t, opts, false)
	if got := statuses(rep); got["fulltext"] != CheckProblem {
		t.Fatalf("broken full-text index: %v; %+v", got, rep.Checks)
	}
	rep = doctor(t, opts, true)
	if got := statuses(rep); got["fulltext"] != CheckRepaired || rep.Problems != 0 {
		t.Fatalf("repair: %v; %+v", got, rep.Checks)
	}
	eng, err := Open(ctx, Options{Dir: opts.Dir, Corpora: f.eng.opts.Corpora})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	for _, q := range []string{"Caroline", "tomatoes", "quarterly"} {
		if hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical}); err != nil || len(hits) != 1 {
			t.Errorf("search %q after repair: %v, %v", q, hits, err)
		}
	}
}

// TestDamagedIndexKeepsMemoriesReadable: with index.db damaged, doctor
// checks memory.db on its own (before: "skipped, the index is
// unreadable") and says what --repair would do, in the future; the
// memories stay readable through OpenMemoryReader.
func TestDamagedIndexKeepsMemoriesReadable(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, doctorNotes, Options{})
	f.sync()
	m := cairn.Memory{ID: "m-1", Kind: cairn.MemoryEpisode, Title: "Support group", Summary: "Caroline went on Tuesday.",
		Thread: "sessions/t.md", Cues: []string{}, Concepts: []string{},
		Provenance: []cairn.Provenance{{Record: "r1", Corpus: "sessions", Path: "cairn://sessions/t.md"}}}
	if _, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
		Records: []string{"r1"}, Memories: []cairn.Memory{m}}); err != nil {
		t.Fatal(err)
	}
	opts := f.eng.opts
	f.eng.Close(ctx)
	os.WriteFile(filepath.Join(opts.Dir, DBFile), bytes.Repeat([]byte("not sqlite "), 1000), 0o600)

	rep := doctor(t, opts, false)
	checks := map[string]DoctorCheck{}
	for _, c := range rep.Checks {
		checks[c.Name] = c
	}
	if c := checks["index"]; c.Status != CheckProblem || !strings.HasPrefix(c.Fix, "run cairn doctor --repair to move it aside") {
		t.Errorf("index check without --repair: %+v", c)
	}
	if c := checks["memories"]; c.Status != CheckOK || !strings.Contains(c.Detail, "1 memories") {
		t.Errorf("memories check with the index damaged: %+v", c)
	}
	if rep.Problems != 1 {
		t.Errorf("%d problems, want 1 (the index); %+v", rep.Problems, rep.Checks)
	}

	r, err := OpenMemoryReader(ctx, opts)
	if err != nil {
		t.Fatalf("open memory.db alone: %v", err)
	}
	defer r.Close(ctx)
	ms, err := r.Memories(ctx, cairn.MemoryFilter{})
	if err != nil || len(ms) != 1 || ms[0].ID != "m-1" {
		t.Fatalf("memories from memory.db alone: %v, %v", ms, err)
	}
	if got, err := r.Memory(ctx, " m-1 "); err != nil || got.Title != "Support group" {
		t.Errorf("memory m-1: %+v, %v", got, err)
	}
	if _, err := r.Memory(ctx, "m-2"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("memory m-2: %v, want ErrNotFound", err)
	}
	if _, err := r.Memories(ctx, cairn.MemoryFilter{Kind: "nope"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("kind nope: %v, want ErrInvalid", err)
	}
}
