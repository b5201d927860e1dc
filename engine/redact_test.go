package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/openai"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

// embedFake is an OpenAI-compatible /v1/embeddings endpoint that checks
// the shape of every request and keeps its body.
type embedFake struct {
	t      *testing.T
	mu     sync.Mutex
	bodies []string
}

func (f *embedFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := new(bytes.Buffer)
	body.ReadFrom(r.Body)
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		f.t.Errorf("embedder got %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	if err := json.Unmarshal(body.Bytes(), &req); err != nil || req.Model != "fake-embed" || len(req.Input) == 0 {
		f.t.Errorf("embedder request %.200s: model %q, %d inputs, %v; want model fake-embed and inputs", body, req.Model, len(req.Input), err)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body.String())
	f.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var out struct {
		Data []item `json:"data"`
	}
	for i, text := range req.Input {
		v := make([]float32, 8)
		for _, w := range strings.Fields(text) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%8]++
		}
		v[0] += 0.5 // never the zero vector
		out.Data = append(out.Data, item{i, v})
	}
	json.NewEncoder(w).Encode(out)
}

func (f *embedFake) sent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.bodies, "\n")
}

func newEmbedFake(t *testing.T) (*embedFake, cairn.Embedder) {
	f := &embedFake{t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	e := openai.New(srv.URL+"/v1", "fake-embed", "")
	e.Retries = 0
	return f, e
}

// leaked returns the kinds whose planted secrets data holds.
func leaked(data string) []string { return redacttest.Leaked(data) }

// dataFiles returns the bytes of every file in the data directory (the
// index, its WAL if any, vectors.bin), after the engine closed.
func dataFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.Base(p)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// secretNotes writes one note per planted sample (a unique word to find it
// by, the sample line, text after it) and returns the unique words.
func secretNotes(t *testing.T, dir string) map[string]string {
	t.Helper()
	words := map[string]string{}
	for i, s := range redacttest.Samples() {
		word := fmt.Sprintf("quokka%c%c", 'a'+i/26, 'a'+i%26)
		text := fmt.Sprintf("# Note %d\n\nThe %s setup uses this:\n\n%s\n\nAfter the secret: %s again.\n", i, word, s.Line, word)
		if err := os.WriteFile(filepath.Join(dir, s.Kind+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		words[s.Kind] = word
	}
	return words
}

// Every planted secret in a files corpus is replaced before it is stored:
// not in index.db or vectors.bin, not in a snippet, not in Get, not in a
// request to the embedder.
func TestSyncRedactsFiles(t *testing.T) {
	ctx := context.Background()
	notes, dir := t.TempDir(), t.TempDir()
	words := secretNotes(t, notes)
	fake, emb := newEmbedFake(t)
	eng, err := Open(ctx, Options{Dir: dir, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Corpora[0]
	if r.Added != len(words) || res.Embedded == 0 {
		t.Fatalf("sync added %d, embedded %d; want %d notes embedded", r.Added, res.Embedded, len(words))
	}
	for kind := range words {
		if r.Redactions[kind] == 0 {
			t.Errorf("Redactions = %v: no %s counted", r.Redactions, kind)
		}
	}
	if got := leaked(fake.sent()); len(got) > 0 {
		t.Errorf("embedder requests hold secrets of kinds %v", got)
	}
	for kind, word := range words {
		for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
			hits, err := eng.Search(ctx, word, &cairn.SearchOptions{Mode: mode})
			if err != nil || len(hits) == 0 {
				t.Fatalf("%s search %s: %v, %d hits", mode, word, err, len(hits))
			}
			for _, h := range hits {
				if got := leaked(h.Snippet); len(got) > 0 {
					t.Errorf("%s: %s snippet %q holds secrets of kinds %v", kind, mode, h.Snippet, got)
				}
			}
		}
		g, err := eng.Get(ctx, Scheme+"notes/"+kind+".md", nil)
		if err != nil || g.Status != cairn.StatusOK {
			t.Fatalf("Get %s: %v, %+v", kind, err, g)
		}
		if got := leaked(g.Text); len(got) > 0 || !strings.Contains(g.Text, redact.Placeholder(kind)) {
			t.Errorf("Get %s = %q: leaked %v, want the %s placeholder", kind, g.Text, got, kind)
		}
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	files := dataFiles(t, dir)
	if _, ok := files["vectors.bin"]; !ok {
		t.Fatalf("no vectors.bin in %v", slices.Collect(mapsKeys(files)))
	}
	for name, data := range files {
		if got := leaked(data); len(got) > 0 {
			t.Errorf("%s holds secrets of kinds %v", name, got)
		}
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A private key block becomes one placeholder line followed by as many
// empty lines as the block had, so hits below it name the file's lines.
func TestRedactionKeepsLineNumbers(t *testing.T) {
	pem := ""
	for _, s := range redacttest.Samples() {
		if s.Kind == "private-key" {
			pem = s.Secret
		}
	}
	text := "# Keys\n\nintro line\n" + pem + "\nthe walrus line after the key\n"
	f := newFixture(t, map[string]string{"k.md": text}, Options{})
	f.sync()
	hits, err := f.eng.Search(context.Background(), "walrus", nil)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search walrus: %v, %d hits", err, len(hits))
	}
	want := strings.Count(text[:strings.Index(text, "the walrus")], "\n") + 1
	if hits[0].EndLine != want {
		t.Fatalf("walrus hit ends at line %d, want line %d of the file (%+v)", hits[0].EndLine, want, hits[0])
	}
	g, err := f.eng.Get(context.Background(), Scheme+"notes/k.md", &cairn.GetOptions{From: want, Lines: 1})
	if err != nil || g.Text != "the walrus line after the key\n" {
		t.Fatalf("Get line %d = %q, %v; want the walrus line", want, g.Text, err)
	}
}

// redact = false stores the text as written.
func TestSyncRedactOff(t *testing.T) {
	ctx := context.Background()
	notes, dir := t.TempDir(), t.TempDir()
	words := secretNotes(t, notes)
	eng, err := Open(ctx, Options{Dir: dir,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob, NoRedact: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Corpora[0]; r.Added != len(words) || r.Redactions != nil {
		t.Fatalf("sync = %+v; want %d added, no redactions", r, len(words))
	}
	for kind := range words {
		g, err := eng.Get(ctx, Scheme+"notes/"+kind+".md", nil)
		if err != nil || !slices.Equal(leaked(g.Text), []string{kind}) {
			t.Errorf("Get %s = %q, %v; want the secret as written", kind, g.Text, err)
		}
	}
}

// An index built before redaction (no redaction state recorded), or with
// redact = false, is redacted by a plain sync: files with secrets are
// re-chunked and re-embedded, the others are left alone, documents kept
// from a missing root are redacted from their stored snapshot, and the old
// text leaves the database file.
func TestSyncRedactsOldIndex(t *testing.T) {
	for _, old := range []string{"before redaction", "redact off"} {
		t.Run(old, func(t *testing.T) {
			ctx := context.Background()
			base, dir := t.TempDir(), t.TempDir()
			notes, away := filepath.Join(base, "notes"), filepath.Join(base, "away")
			os.MkdirAll(notes, 0o755)
			os.MkdirAll(away, 0o755)
			words := secretNotes(t, notes)
			for i := range 3 {
				os.WriteFile(filepath.Join(notes, fmt.Sprintf("plain%d.md", i)), []byte(fmt.Sprintf("# Plain %d\n\nno secrets, only wombats\n", i)), 0o644)
			}
			os.WriteFile(filepath.Join(away, "k.md"), []byte("# Away\n\ntoken "+redacttest.Needles()["github-token"][0]+" here\n"), 0o644)
			corpus := cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes, away}, Glob: cairn.DefaultGlob, NoRedact: true}
			_, emb := newEmbedFake(t)
			eng, err := Open(ctx, Options{Dir: dir, Embedder: emb, Corpora: []cairn.Corpus{corpus}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if old == "before redaction" {
				// What a data directory from before redaction holds: no state.
				if err := eng.store.SetRedactState(ctx, "notes", ""); err != nil {
					t.Fatal(err)
				}
			}
			eng.Close(ctx)
			if got := leaked(dataFiles(t, dir)["index.db"]); len(got) == 0 {
				t.Fatalf("the unredacted index holds no secret: the test plants none")
			}
			if err := os.Rename(away, away+"-unmounted"); err != nil {
				t.Fatal(err)
			}

			fake, emb := newEmbedFake(t)
			corpus.NoRedact = false
			eng, err = Open(ctx, Options{Dir: dir, Embedder: emb, Corpora: []cairn.Corpus{corpus}})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close(ctx)
			res, err := eng.Sync(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Corpora[0]
			if r.Updated != len(words)+1 || r.Unchanged != 3 || r.Added != 0 || r.Removed != 0 {
				t.Errorf("upgrade sync = %+v; want %d updated (the notes with secrets and the kept one), 3 unchanged", r, len(words)+1)
			}
			if got := leaked(fake.sent()); len(got) > 0 {
				t.Errorf("embedder requests hold secrets of kinds %v", got)
			}
			g, err := eng.Get(ctx, Scheme+"notes/away/k.md", nil)
			if err != nil || g.Status != cairn.StatusOK || len(leaked(g.Text)) > 0 {
				t.Errorf("kept document = %+v, %v; want it kept and redacted", g, err)
			}
			again, err := eng.Sync(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := again.Corpora[0]; r.Unchanged != len(words)+3 || r.Updated+r.Added+r.Removed != 0 {
				t.Errorf("second sync = %+v; want everything unchanged", r)
			}
			if err := eng.Close(ctx); err != nil {
				t.Fatal(err)
			}
			for name, data := range dataFiles(t, dir) {
				if got := leaked(data); len(got) > 0 {
					t.Errorf("%s still holds secrets of kinds %v", name, got)
				}
			}
		})
	}
}
