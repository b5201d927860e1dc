package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// TestMovedQuery: the query vector moves toward the mean of the feedback
// vectors by beta (Rocchio, fusionWeights.VecPRF), comes out of unit
// length, and ids without a vector are skipped.
func TestMovedQuery(t *testing.T) {
	vecs := map[int64][]float32{1: {0, 2}, 2: {0, 1}, 3: {3, 4}}
	of := func(id int64) ([]float32, bool) { v, ok := vecs[id]; return v, ok }
	for _, c := range []struct {
		name string
		ids  []int64
		beta float64
		want []float32 // nil: no moved query
	}{
		// (1,0) + 1 × (0,1), normalized.
		{"one feedback vector", []int64{1}, 1, []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)}},
		// mean of (0,1) and (0,1) is (0,1); beta 3: (1,3)/√10.
		{"two alike, beta 3", []int64{1, 2}, 3, []float32{float32(1 / math.Sqrt(10)), float32(3 / math.Sqrt(10))}},
		{"beta 0: the query", []int64{3}, 0, []float32{1, 0}},
		{"an id without a vector skipped", []int64{9, 1}, 1, []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)}},
		{"no vector at all", []int64{9}, 1, nil},
	} {
		got := movedQuery([]float32{5, 0}, c.ids, of, c.beta)
		if (got == nil) != (c.want == nil) {
			t.Fatalf("%s: got %v, want %v", c.name, got, c.want)
		}
		for i := range c.want {
			if math.Abs(float64(got[i]-c.want[i])) > 1e-6 {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestFuseVecFeedback: the vector feedback pass takes its share of the
// vector weight (fusionWeights.VecPRF): a unit only it found enters, and a
// unit only the first pass found loses that share; without the pass's hits
// the fusion is fuseLifted's.
func TestFuseVecFeedback(t *testing.T) {
	lex := []cairn.Hit{{Path: "cairn://s/a.md", StartLine: 1, Score: 10, Signals: &cairn.HitSignals{BM25: 10, LexRank: 1}}}
	vec := []cairn.Hit{{Path: "cairn://s/b.md", StartLine: 1, Score: 0.9, Signals: &cairn.HitSignals{Cosine: 0.9}},
		{Path: "cairn://s/c.md", StartLine: 1, Score: 0.5, Signals: &cairn.HitSignals{Cosine: 0.5}}}
	vprf := []cairn.Hit{{Path: "cairn://s/d.md", StartLine: 1, Score: 0.8, Signals: &cairn.HitSignals{Cosine: 0.8}},
		{Path: "cairn://s/c.md", StartLine: 1, Score: 0.7, Signals: &cairn.HitSignals{Cosine: 0.7}},
		{Path: "cairn://s/b.md", StartLine: 1, Score: 0.4, Signals: &cairn.HitSignals{Cosine: 0.4}}}
	fw := fusionWeights{Lex: 0.5, Vec: 1, Convex: true, VecPRF: 0.5}
	o := &cairn.SearchOptions{Limit: 10}
	// Without the pass: a 0.5, b 1, c 0. With it, half of the vector weight
	// each: a 0.5, b 0.5 + 0, c 0 + 0.375, d 0.5.
	if got := fusedOrder(fuseAll(lex, nil, vec, nil, o, fuseKey, fw, nil)); got != "b.md:1 a.md:1 c.md:1" {
		t.Errorf("no feedback hits: order %s", got)
	}
	hits := fuseAll(lex, nil, vec, vprf, o, fuseKey, fw, nil)
	if got := fusedOrder(hits); got != "a.md:1 b.md:1 d.md:1 c.md:1" {
		t.Errorf("with feedback: order %s", got)
	}
	strip := fw
	strip.VecStrip, strip.VecStripShare = true, 0.5
	named := fuseAll(lex, nil, vec, vprf, &cairn.SearchOptions{Limit: 10, Explain: true}, fuseKey, strip, nil)
	if got := fusedOrder(named); got != "a.md:1 b.md:1 d.md:1 c.md:1" {
		t.Errorf("the pass without the name: order %s", got)
	}
	if ex := strings.Join(named[2].Explain, " "); !strings.Contains(ex, "vecnoname(") {
		t.Errorf("the pass without the name is not named in the explanation: %s", ex)
	}
	for _, h := range hits {
		if h.Path == "cairn://s/d.md" && (h.VectorScore != nil || h.Signals.Cosine != 0) {
			t.Errorf("a hit of the feedback pass alone carries vector signals: %+v", h.Signals)
		}
		if h.Path == "cairn://s/c.md" && h.Signals.Cosine != 0.5 {
			t.Errorf("c keeps the first pass's cosine, got %v", h.Signals.Cosine)
		}
	}
}

// TestLiftSessions: each unit gains the lift times its document's score
// (the sum of its top best units) over the best document's.
func TestLiftSessions(t *testing.T) {
	mk := func(path string, line int, score float64) fused {
		return fused{hit: cairn.Hit{Path: path, StartLine: line}, score: score}
	}
	for _, c := range []struct {
		name string
		top  int
		want []float64
	}{
		// top 1: x's best 0.6, y's 0.5: x units + 0.1, y units + 0.1 × 5/6.
		{"top 1", 1, []float64{0.7, 0.1 + 0.1, 0.5 + 0.1*0.5/0.6, 0.4 + 0.1*0.5/0.6}},
		// top 2: x 0.7, y 0.9 (best): x + 0.1 × 7/9, y + 0.1.
		{"top 2", 2, []float64{0.6 + 0.1*0.7/0.9, 0.1 + 0.1*0.7/0.9, 0.6, 0.5}},
	} {
		units := []fused{mk("x", 1, 0.6), mk("x", 5, 0.1), mk("y", 1, 0.5), mk("y", 3, 0.4)}
		liftSessions(units, 0.1, c.top, fuseKey)
		for i, u := range units {
			if math.Abs(u.score-c.want[i]) > 1e-9 {
				t.Errorf("%s: unit %d score %v, want %v", c.name, i, u.score, c.want[i])
			}
			if u.nparts != 1 || u.parts[0].lane != "session" {
				t.Errorf("%s: unit %d parts %+v", c.name, i, u.parts[:u.nparts])
			}
		}
	}
}

// TestLiftSessionsFiles: a unit that is a whole document (a file: docKey
// is its path) is neither lifted nor counted as a session.
func TestLiftSessionsFiles(t *testing.T) {
	key := func(h cairn.Hit) string {
		if h.Path == "file.md" {
			return h.Path
		}
		return fuseKey(h)
	}
	units := []fused{{hit: cairn.Hit{Path: "file.md", StartLine: 1}, score: 0.9},
		{hit: cairn.Hit{Path: "s", StartLine: 1}, score: 0.5}, {hit: cairn.Hit{Path: "s", StartLine: 4}, score: 0.2}}
	liftSessions(units, 0.1, 1, key)
	// The session is the best session (the file does not count): + 0.1 each.
	for i, want := range []float64{0.9, 0.6, 0.3} {
		if math.Abs(units[i].score-want) > 1e-9 {
			t.Errorf("unit %d score %v, want %v", i, units[i].score, want)
		}
	}
	if units[0].nparts != 0 {
		t.Errorf("the file was lifted: %+v", units[0].parts[:units[0].nparts])
	}
}

// TestSearchVecStripAndSession: through Search, a hybrid query naming one
// participant of a session fuses the vector pass without the name
// (vecnoname) and lifts turns by their session (session) with the default
// fusion; with both knobs off neither part appears, and a query naming
// nobody never runs the pass without the name.
func TestSearchVecStripAndSession(t *testing.T) {
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	msg := func(who, text string, min int) cairn.Message {
		return cairn.Message{Role: cairn.RoleUser, Speaker: who, Text: text, Time: at.Add(time.Duration(min) * time.Minute)}
	}
	sessions := []cairn.Session{
		{Source: cairn.SourceCodex, ID: "chat", StartedAt: at, Messages: []cairn.Message{
			msg("Melanie", "tomatoes grew in the garden: the garden grew tomatoes", 0),
			msg("Melanie", "the quarterly budget and spending", 1),
			msg("Caroline", "my garden had tomatoes this year and I sat among them all afternoon on the porch", 3),
		}},
		{Source: cairn.SourceCodex, ID: "chat2", StartedAt: at.Add(48 * time.Hour), Messages: []cairn.Message{
			msg("Caroline", "the finance meeting ran late", 0),
			msg("Melanie", "spending less this quarter", 1),
		}},
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	parts := func(query string, fw fusionWeights) string {
		old := fusion
		fusion = fw
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Limit: 5, Mode: cairn.ModeHybrid, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatal("no hits")
		}
		var all []string
		for _, h := range hits {
			all = append(all, h.Explain...)
		}
		return strings.Join(all, " ")
	}
	on := parts("what grew in Caroline's garden?", fusion)
	if !strings.Contains(on, "vecnoname(") || !strings.Contains(on, "session(") {
		t.Errorf("default fusion, one name: no vecnoname or session part: %s", on)
	}
	off := fusion
	off.VecStrip, off.VecStripShare, off.Session = false, 0, 0
	if got := parts("what grew in Caroline's garden?", off); strings.Contains(got, "vecnoname(") || strings.Contains(got, "session(") {
		t.Errorf("knobs off: %s", got)
	}
	if got := parts("what grew in the garden?", fusion); strings.Contains(got, "vecnoname(") {
		t.Errorf("nobody named, yet the pass without the name ran: %s", got)
	}
}

// TestVectorAtSameAsLane: a pass that asks the vector index with a query
// vector of its own (vectorAt: the feedback pass, VecPRF) searches as the
// vector lane does (both are nearest): the query's own vector gives the
// lane's candidates and cosines exactly, with the corpus and path filters
// applied the same way.
func TestVectorAtSameAsLane(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
		"d.md": "# Soil\n\nGarden beds want soil tests before compost.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		scope search.Scope
		want  int // candidates
	}{
		{"every path", search.Scope{}, 4},
		{"two paths", search.Scope{Paths: []string{"b.md", "c.md"}}, 2},
	} {
		lane, qv, err := f.eng.vectorLane(ctx, "garden soil", []string{"notes"}, c.scope, 10)
		if err != nil {
			t.Fatal(err)
		}
		at, err := f.eng.vectorAt(ctx, qv, []string{"notes"}, c.scope, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(lane) != c.want || !reflect.DeepEqual(lane, at) {
			t.Errorf("%s: lane %+v\nvectorAt %+v\nwant the same %d candidates", c.name, lane, at, c.want)
		}
		if c.scope.Paths != nil {
			for _, x := range at {
				if !slices.Contains(c.scope.Paths, x.Path) {
					t.Errorf("%s: %s is outside the scope", c.name, x.Path)
				}
			}
		}
	}
}

// TestQueryAsk: the kind of question is read from the first word alone
// (fusionWeights.PRFAsks, VecWhen).
func TestQueryAsk(t *testing.T) {
	for q, want := range map[string]int{
		"When did Caroline go to the LGBTQ support group?":  askWhen,
		"when is the budget review":                         askWhen,
		"Would Melanie go on another roadtrip soon?":        askYesNo,
		"Is Caroline likely to move?":                       askYesNo,
		"Did Jon open his studio?":                          askYesNo,
		"What activities has Melanie done with her family?": askThing,
		"How did John feel about the race?":                 askThing,
		"Where has Caroline been?":                          askThing,
		"garden soil compost":                               askThing,
		"  (When)  the question later":                      askWhen,
		"":                                                  askThing,
		"Whenever the build breaks":                         askThing,
	} {
		if got := queryAsk(q); got != want {
			t.Errorf("queryAsk(%q) = %d, want %d", q, got, want)
		}
	}
}

// TestSearchFeedbackAsks: with PRFAsks the lexical feedback pass runs for
// a question asking for a thing and not for one asking when or yes or no;
// without it, for all three; with PRFSessions, not over files alone.
func TestSearchFeedbackAsks(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.md": "# Garden\n\nThe garden grew tomatoes in compost.\n",
		"b.md": "# Harvest\n\nTomatoes and compost filled the basket.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	parts := func(query string, fw fusionWeights) string {
		old := fusion
		fusion = fw
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Limit: 5, Mode: cairn.ModeHybrid, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, h := range hits {
			all = append(all, h.Explain...)
		}
		return strings.Join(all, " ")
	}
	fb := fusion
	fb.PRF, fb.PRFDocs, fb.PRFTerms, fb.PRFAsks, fb.PRFSessions = 0.5, 2, 5, false, false // whatever the default
	asks := fb
	asks.PRFAsks = true
	sess := asks
	sess.PRFSessions = true // a files corpus alone: no feedback pass
	for _, c := range []struct {
		query    string
		fw       fusionWeights
		feedback bool
		fwName   string
	}{
		{"what did the garden grow", fb, true, "feedback"},
		{"when did the garden grow", fb, true, "feedback"},
		{"did the garden grow", fb, true, "feedback"},
		{"what did the garden grow", asks, true, "feedback for things asked"},
		{"when did the garden grow", asks, false, "feedback for things asked"},
		{"did the garden grow", asks, false, "feedback for things asked"},
		{"what did the garden grow", sess, false, "feedback for things asked in sessions searches"},
	} {
		if got := parts(c.query, c.fw); strings.Contains(got, "prf(") != c.feedback {
			t.Errorf("%s, %q: feedback part %v, want %v: %s", c.fwName, c.query, !c.feedback, c.feedback, got)
		}
	}
}

// TestMixedIndex: the mixed copy of the index (fusionWeights.VecMix) holds
// each session chunk's vector plus weight times its previous chunk's,
// normalized; a session's first chunk and a file's chunk keep theirs; it is
// built again when the weight changes; and with VecMix a question asking
// when searches the plain index while another searches the mixed one.
func TestMixedIndex(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Soil\n\nGarden beds want soil tests before compost.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}, {Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	msg := func(who, text string, min int) cairn.Message {
		return cairn.Message{Role: cairn.RoleUser, Speaker: who, Text: text, Time: at.Add(time.Duration(min) * time.Minute)}
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", []cairn.Session{{Source: cairn.SourceCodex, ID: "chat", StartedAt: at,
		Messages: []cairn.Message{msg("Melanie", "tomatoes grew in the garden", 0), msg("Caroline", "the quarterly budget and spending", 1),
			msg("Melanie", "a finance meeting ran late", 2)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.eng.loadVectors(ctx); err != nil {
		t.Fatal(err)
	}
	ix := f.eng.vec.index
	mixed, err := f.eng.mixedIndex(ctx, ix, 1)
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Len() != ix.Len() {
		t.Fatalf("mixed index holds %d vectors, the index %d", mixed.Len(), ix.Len())
	}
	docs, err := f.eng.vectorDocs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sess, files []int64
	for id, ds := range docs {
		if _, ok := ix.Vector(id); !ok {
			continue
		}
		if ds[0].corpus == "sessions" {
			sess = append(sess, id)
		} else {
			files = append(files, id)
		}
	}
	cands, err := f.eng.store.Chunks(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(cands, func(a, b cairn.Candidate) int { return a.Seq - b.Seq })
	if len(cands) < 2 || len(files) == 0 {
		t.Fatalf("%d session chunks with vectors, %d file chunks: want 2 or more and 1 or more", len(cands), len(files))
	}
	same := func(a, b []float32) bool {
		for i := range a {
			if math.Abs(float64(a[i]-b[i])) > 1e-6 {
				return false
			}
		}
		return len(a) == len(b)
	}
	for i, c := range cands {
		v, _ := ix.Vector(c.ChunkID)
		got, _ := mixed.Vector(c.ChunkID)
		want := v
		if i > 0 {
			p, _ := ix.Vector(cands[i-1].ChunkID)
			want = mixVectors(v, p, 1)
			if same(v, want) {
				t.Fatalf("chunk %d: its neighbour moves nothing; the fixture tests nothing", c.ChunkID)
			}
		}
		if !same(got, want) {
			t.Errorf("session chunk %d (seq %d): mixed %v, want %v", c.ChunkID, c.Seq, got, want)
		}
	}
	for _, id := range files {
		v, _ := ix.Vector(id)
		if got, _ := mixed.Vector(id); !same(got, v) {
			t.Errorf("file chunk %d changed in the mixed index", id)
		}
	}
	if again, _ := f.eng.mixedIndex(ctx, ix, 1); again != mixed {
		t.Error("the same index and weight built the mixed copy again")
	}
	if other, _ := f.eng.mixedIndex(ctx, ix, 0.5); other == mixed {
		t.Error("a new weight kept the old mixed copy")
	}
	// Through Search: with VecMix a question not asking when reads the
	// mixed cosines, one asking when the plain ones.
	cos := func(query string, mix float64) map[int]float64 {
		old := fusion
		fusion.VecMix = mix
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeHybrid, Corpora: []string{"sessions"}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]float64{}
		for _, h := range hits {
			if h.Signals != nil && h.Signals.VecRank > 0 {
				out[h.StartLine] = h.Signals.Cosine
			}
		}
		return out
	}
	differ := func(a, b map[int]float64) bool {
		for line, c := range a {
			if p, ok := b[line]; ok && math.Abs(p-c) > 1e-6 {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		query string
		mixed bool
	}{{"what was the quarterly budget", true}, {"when was the quarterly budget", false}} {
		on, off := cos(c.query, 1), cos(c.query, 0)
		if len(on) == 0 || differ(on, off) != c.mixed {
			t.Errorf("%q: cosines with VecMix %v, without %v; want them to differ: %v", c.query, on, off, c.mixed)
		}
	}
}

// TestNearestMixed: the query-time mix (fusionWeights.VecMixDepth) gives,
// deep enough, the chunks and scores a search of the mixed copy gives
// (mixedIndex), files' chunks unmixed; shallower, the chunks it returns
// carry their mixed scores in order; and through Search a question not
// asking when reads those mixed cosines.
func TestNearestMixed(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Soil\n\nGarden beds want soil tests before compost.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}, {Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	msg := func(who, text string, min int) cairn.Message {
		return cairn.Message{Role: cairn.RoleUser, Speaker: who, Text: text, Time: at.Add(time.Duration(min) * time.Minute)}
	}
	texts := []string{"tomatoes grew in the garden", "the quarterly budget and spending", "a finance meeting ran late",
		"compost and soil for the beds", "the train was late again", "budget talks with the bank", "garden beds and seeds"}
	var msgs []cairn.Message
	for i, x := range texts {
		msgs = append(msgs, msg([]string{"Melanie", "Caroline"}[i%2], x, i))
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", []cairn.Session{{Source: cairn.SourceCodex, ID: "chat", StartedAt: at, Messages: msgs}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.eng.loadVectors(ctx); err != nil {
		t.Fatal(err)
	}
	ix := f.eng.vec.index
	corpora := []string{"notes", "sessions"}
	for _, query := range []string{"the quarterly budget", "garden soil", "a late train"} {
		qv, err := f.eng.opts.Embedder.Embed(ctx, cairn.EmbedQuery, []string{query})
		if err != nil {
			t.Fatal(err)
		}
		mixed, err := f.eng.mixedIndex(ctx, ix, 1)
		if err != nil {
			t.Fatal(err)
		}
		all := ix.Len()
		want, err := f.eng.nearest(ctx, mixed, qv[0], corpora, search.Scope{}, all)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.eng.nearestMixed(ctx, ix, qv[0], corpora, search.Scope{}, all, vecMix{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) < 5 {
			t.Fatalf("%q: query-time mix returned %d chunks, the mixed copy %d (want the same, 5 or more)", query, len(got), len(want))
		}
		score := map[int64]float64{}
		for _, c := range want {
			score[c.ChunkID] = c.Score
		}
		plain := 0
		for i, c := range got {
			if math.Abs(c.Score-score[c.ChunkID]) > 1e-5 {
				t.Errorf("%q: chunk %d scores %.6f at query time, %.6f in the mixed copy", query, c.ChunkID, c.Score, score[c.ChunkID])
			}
			if v, _ := ix.Vector(c.ChunkID); math.Abs(c.Score-dot32(qv[0], v)) < 1e-6 {
				plain++
			}
			if i > 0 && got[i-1].Score < c.Score {
				t.Errorf("%q: place %d scores %.6f above place %d's %.6f", query, i+1, c.Score, i, got[i-1].Score)
			}
		}
		if plain == len(got) {
			t.Errorf("%q: every score is the plain cosine; the mix moved nothing", query)
		}
		// Shallow: two chunks from 1 × 2 nearest and the chunks after them.
		short, err := f.eng.nearestMixed(ctx, ix, qv[0], corpora, search.Scope{}, 2, vecMix{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(short) != 2 {
			t.Fatalf("%q: %d chunks for 2", query, len(short))
		}
		for _, c := range short {
			if math.Abs(c.Score-score[c.ChunkID]) > 1e-5 {
				t.Errorf("%q shallow: chunk %d scores %.6f, mixed %.6f", query, c.ChunkID, c.Score, score[c.ChunkID])
			}
		}
	}
	// Through Search, as TestMixedIndex does for the copy.
	cos := func(query string, mix float64) map[int]float64 {
		old := fusion
		fusion.VecMix, fusion.VecMixDepth = mix, 3
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeHybrid, Corpora: []string{"sessions"}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]float64{}
		for _, h := range hits {
			if h.Signals != nil && h.Signals.VecRank > 0 {
				out[h.StartLine] = h.Signals.Cosine
			}
		}
		return out
	}
	differ := func(a, b map[int]float64) bool {
		for line, c := range a {
			if p, ok := b[line]; ok && math.Abs(p-c) > 1e-6 {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		query string
		mixed bool
	}{{"what was the quarterly budget", true}, {"when was the quarterly budget", false}} {
		on, off := cos(c.query, 1), cos(c.query, 0)
		if len(on) == 0 || differ(on, off) != c.mixed {
			t.Errorf("%q: cosines with the query-time mix %v, without %v; want them to differ: %v", c.query, on, off, c.mixed)
		}
	}
}
