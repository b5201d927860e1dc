package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/vector"
)

// embedBatch is how many chunks are embedded and stored per round. A
// round is what an interrupted sync keeps (TestSyncInterruptSaysWhatWasKept:
// each finished request of a remote embedder); rounds of 256 were tried for
// the ONNX embedder's sake (its two sessions wait for each other at a
// round's end) but would drop up to four finished requests on Ctrl-C, and
// with batches of 4 a round of 64 is 16 batches, so the wait is short.
const embedBatch = 64

// vectors is the in-memory vector lane: the index of the current
// embedder's vectors and which documents hold each chunk. The index loads
// on first use, from the index file (VectorFile) when it matches the
// store, else from SQLite, after which the file is written again; the
// chunk-to-document map loads only when a search filters. Both follow
// every embedding round and sync.
type vectors struct {
	// loadMu serializes loads; a load builds the new index without mu,
	// so searches go on with the lane they have meanwhile.
	loadMu  sync.Mutex
	mu      sync.RWMutex
	loaded  bool  // index matches the store as of version
	version int64 // the store's vectors version the index was loaded at
	index   *vector.Index
	docs    map[int64][]docRef // chunk id → documents holding it
	pending int                // chunks without a vector; -1: unknown
	// mixMu guards mixed, the copy of index with neighbours mixed into
	// session chunks' vectors (mixedIndex; fusionWeights.VecMix).
	mixMu sync.Mutex
	mixed mixedOf
}

// mixedOf is a mixed copy of an index and what it was built from.
type mixedOf struct {
	from   *vector.Index
	n      int // from's length then: an index grows in place by a sync's embedding rounds
	weight float64
	ix     *vector.Index
}

type docRef struct{ corpus, path string }

func (e *Engine) identity() string { return e.opts.Embedder.Identity().Key() }

// embedPending embeds every chunk that has no vector for the current
// embedder, in rounds, storing each round before the next. An unavailable
// or busy embedder stops the work; what was stored stays, and the next
// sync resumes. It returns how many chunks were embedded.
func (e *Engine) embedPending(ctx context.Context, progress func(cairn.ProgressEvent)) (int, int, error) {
	id := e.identity()
	total, err := e.store.CountPending(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	done, after := 0, int64(0)
	for done < total {
		if progress != nil {
			progress(cairn.ProgressEvent{Corpus: "embeddings", Done: done, Total: total})
		}
		batch, err := e.nextPending(ctx, id, after)
		if err != nil || len(batch) == 0 {
			return done, total - done, err
		}
		after = batch[len(batch)-1].ID
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for i, c := range batch {
			texts[i], ids[i] = c.Text, c.ID
		}
		vecs, err := e.opts.Embedder.Embed(ctx, cairn.EmbedDocument, texts)
		if err != nil {
			return done, total - done, fmt.Errorf("embed chunks (%d of %d done, the rest resume on the next sync): %w", done, total, err)
		}
		if err := e.store.PutVectors(ctx, id, ids, vecs); err != nil {
			return done, total - done, err
		}
		e.vec.mu.Lock()
		if e.vec.loaded {
			for i, k := range ids {
				if err := e.vec.index.Add(k, vecs[i]); err != nil {
					e.vec.loaded = false // reload from the store on next use
					break
				}
			}
		}
		e.vec.mu.Unlock()
		done += len(batch)
	}
	if progress != nil {
		progress(cairn.ProgressEvent{Corpus: "embeddings", Done: done, Total: total})
	}
	return done, 0, nil
}

// pendingAfter is a store that lists the chunks waiting for a vector from
// an id on (sqlite.Store): the embedding loop resumes each batch's scan
// after the last chunk of the one before. A store without it answers
// PendingChunks from where it keeps its own place (postgres.Store's floor).
type pendingAfter interface {
	PendingChunksAfter(ctx context.Context, identity string, after int64, limit int) ([]cairn.PendingChunk, error)
}

// nextPending returns the next batch to embed: the chunks without a vector
// after the last one the loop embedded. A chunk that loses its vector
// behind that point meanwhile (another writer) waits for the next sync,
// as one that gains a chunk after the loop counted its total does.
func (e *Engine) nextPending(ctx context.Context, id string, after int64) ([]cairn.PendingChunk, error) {
	if s, ok := e.store.(pendingAfter); ok {
		return s.PendingChunksAfter(ctx, id, after, embedBatch)
	}
	return e.store.PendingChunks(ctx, id, embedBatch)
}

// afterSync records how many chunks still need vectors and, when chunks
// came and went, marks the in-memory lane stale so the next use reloads
// it (searches answer from the stale lane while another goroutine
// reloads). A sync that changed no chunk keeps it: vectors it embedded
// were added as they were stored, and loading 100k vectors takes seconds.
func (e *Engine) afterSync(pending int, chunksChanged bool) {
	e.vec.mu.Lock()
	if chunksChanged {
		e.vec.loaded, e.vec.docs = false, nil
	}
	e.vec.pending = pending
	e.vec.mu.Unlock()
}

// settle is vector.Index.Settle; tests slow it down to see Close wait.
var settle = (*vector.Index).Settle

// VectorFile is the index file of the vector lane in the data directory:
// a cache of the vectors table that a new process maps instead of reading
// every vector out of SQLite (see vector.Load).
const VectorFile = "vectors.bin"

// loadVectors fills the lane when needed: from the index file when its
// stamp (the embedder identity and the store's vectors version) matches,
// else from the store, writing the file for the next process.
//
// A loaded lane is checked against the store's vectors version on every
// call (one row read): vectors written by another process, or by a sync in
// this one, make it reload.
func (e *Engine) loadVectors(ctx context.Context) error {
	// The version is read before the vectors: a file stamped with it can
	// only be older than what it holds, never newer, so a change made
	// during the load makes the file stale instead of wrong.
	version, err := e.store.VectorsVersion(ctx)
	if err != nil {
		return err
	}
	fresh := func() (bool, bool) {
		e.vec.mu.RLock()
		defer e.vec.mu.RUnlock()
		return e.vec.loaded && e.vec.version == version, e.vec.index != nil
	}
	ok, have := fresh()
	if ok {
		return nil
	}
	if !e.vec.loadMu.TryLock() {
		if have {
			return nil // another goroutine reloads: answer from the lane we have
		}
		e.vec.loadMu.Lock()
	}
	defer e.vec.loadMu.Unlock()
	if ok, _ := fresh(); ok {
		return nil
	}
	idn := e.opts.Embedder.Identity()
	id := idn.Key()
	stamp := vector.Stamp{Tag: sha256.Sum256([]byte(id)), Version: version}
	path := filepath.Join(e.opts.Dir, VectorFile)
	ix, err := vector.Load(path, stamp, !e.opts.OneShot)
	if err == nil {
		e.loadLists(ix, path, stamp) // vectorlists.go
	}
	if err == nil && !e.opts.OneShot {
		// Searches start on the mapped file at once; the copy into
		// huge-page memory (faster searches, see vector/mem.go) follows,
		// owned by the engine: Close waits for it.
		e.background(func() { settle(ix) })
	}
	if errors.Is(err, vector.ErrCorrupt) && e.opts.Logf != nil {
		e.opts.Logf("cairn: %s is damaged (%v); rebuilding it from the vectors in %s", path, err, DBFile)
	}
	if err != nil {
		if ix, err = e.readVectors(ctx, id, idn.Dimension); err != nil {
			return err
		}
		if ix.Len() > 0 {
			e.buildLists(ix, path, stamp) // before Save: the file is written list by list
			// A cache: a failure to write it costs the next process time,
			// not correctness.
			if err := ix.Save(path, stamp); err != nil {
				e.logf("cairn: %v", err)
			} else {
				e.saveLists(ix, path, stamp)
			}
		}
	}
	// Vectors are deleted with their chunks and noise chunks get none, so
	// the pending count is a difference of two counts; probing the vectors
	// table per chunk (CountPending) read a page per chunk, 1 s at 21k
	// chunks in a one-shot search. A negative difference means stray
	// vectors: then count exactly.
	embeddable, err := e.store.CountEmbeddable(ctx)
	if err != nil {
		return err
	}
	pending := embeddable - ix.Len()
	if pending < 0 {
		if pending, err = e.store.CountPending(ctx, id); err != nil {
			return err
		}
	}
	e.vec.mu.Lock()
	e.vec.index, e.vec.docs, e.vec.pending, e.vec.loaded, e.vec.version = ix, nil, pending, true, version
	e.vec.mu.Unlock()
	return nil
}

// readVectors builds the index from the store.
func (e *Engine) readVectors(ctx context.Context, id string, dim int) (*vector.Index, error) {
	n, err := e.store.CountVectors(ctx, id)
	if err != nil {
		return nil, err
	}
	var ix *vector.Index
	err = e.store.EachVector(ctx, id, func(k int64, v []float32) error {
		if ix == nil {
			ix = vector.New(len(v))
			ix.Grow(n) // one allocation instead of doublings
		}
		return ix.Add(k, v) // Add copies v
	})
	if err != nil {
		return nil, err
	}
	if ix == nil {
		ix = vector.New(max(dim, 1))
	}
	return ix, nil
}

// vectorDocs returns which documents hold each chunk, loading the map on
// first use after a load or sync.
func (e *Engine) vectorDocs(ctx context.Context) (map[int64][]docRef, error) {
	e.vec.mu.RLock()
	docs := e.vec.docs
	e.vec.mu.RUnlock()
	if docs != nil {
		return docs, nil
	}
	docs = map[int64][]docRef{}
	if err := e.store.ChunkDocs(ctx, func(c int64, corpus, path string) {
		docs[c] = append(docs[c], docRef{corpus, path})
	}); err != nil {
		return nil, err
	}
	e.vec.mu.Lock()
	if e.vec.loaded && e.vec.docs == nil {
		e.vec.docs = docs
	}
	e.vec.mu.Unlock()
	return docs, nil
}

// errNoVectors says the vector lane cannot answer yet.
var errNoVectors = errors.New("vectors are not complete")

// vectorLane returns up to n chunk candidates by cosine similarity, only
// from the allowed corpora and paths (filters apply before top-k), with
// the query's vector.
func (e *Engine) vectorLane(ctx context.Context, query string, corpora []string, scope search.Scope, n int) ([]cairn.Candidate, []float32, error) {
	return e.vectorLaneMixed(ctx, query, corpora, scope, n, vecMix{})
}

// vecMix is how the vector lane mixes each session chunk's vector with its
// previous chunk's (fusionWeights.VecMix, VecMixDepth): weight 0 for none;
// depth 0 over the mixed copy of the index (mixedIndex), above 0 at query
// time over depth × n nearest chunks (nearestMixed).
type vecMix struct {
	weight float64
	depth  int
}

// vectorLaneMixed is vectorLane over the index with each session chunk's
// vector mixed with its previous chunk's as mix says, the index itself
// when mix.weight is 0.
func (e *Engine) vectorLaneMixed(ctx context.Context, query string, corpora []string, scope search.Scope, n int, mix vecMix) ([]cairn.Candidate, []float32, error) {
	if err := e.loadVectors(ctx); err != nil {
		return nil, nil, err
	}
	e.vec.mu.RLock()
	pending, ix := e.vec.pending, e.vec.index
	e.vec.mu.RUnlock()
	if pending > 0 {
		return nil, nil, fmt.Errorf("%w: %d chunks are waiting for vectors (run cairn sync)", errNoVectors, pending)
	}
	// The query goes to a model, which may be remote: it is redacted like
	// every text sent to one (the index holds placeholders anyway).
	redacted, _ := redact.Redact(query)
	qv, err := e.opts.Embedder.Embed(ctx, cairn.EmbedQuery, []string{redacted})
	if err != nil {
		return nil, nil, fmt.Errorf("embed query: %w", err)
	}
	if mix.weight > 0 && mix.depth > 0 && e.anySessions(corpora) {
		cands, err := e.nearestMixed(ctx, ix, qv[0], corpora, scope, n, mix)
		return cands, qv[0], err
	}
	if mix.weight > 0 {
		if ix, err = e.mixedIndex(ctx, ix, mix.weight); err != nil {
			return nil, nil, err
		}
	}
	cands, err := e.nearest(ctx, ix, qv[0], corpora, scope, n)
	if err != nil {
		return nil, nil, err
	}
	return cands, qv[0], nil
}

// mixedIndex is a copy of from in which each session chunk's vector is
// itself plus weight times the vector of the chunk before it in its
// document (the previous one that has a vector, by seq), normalized; the
// first chunk of a session and every chunk of other corpora keep theirs.
// The vectors are the ones stored: nothing is embedded again. It is built
// on first use and again after from changes (fusionWeights.VecMix).
func (e *Engine) mixedIndex(ctx context.Context, from *vector.Index, weight float64) (*vector.Index, error) {
	e.vec.mixMu.Lock()
	defer e.vec.mixMu.Unlock()
	if m := e.vec.mixed; m.ix != nil && m.from == from && m.n == from.Len() && m.weight == weight {
		return m.ix, nil
	}
	n := from.Len()
	docs, err := e.vectorDocs(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(docs))
	var sess []int64
	for id, ds := range docs {
		ids = append(ids, id)
		if slices.ContainsFunc(ds, func(d docRef) bool { return e.isSessions(d.corpus) }) {
			sess = append(sess, id)
		}
	}
	slices.Sort(ids)
	slices.Sort(sess)
	cands, err := e.store.Chunks(ctx, sess)
	if err != nil {
		return nil, err
	}
	type place struct {
		id  int64
		seq int
	}
	byDoc := map[docRef][]place{}
	for _, c := range cands {
		if e.isSessions(c.Corpus) {
			d := docRef{c.Corpus, c.Path}
			byDoc[d] = append(byDoc[d], place{c.ChunkID, c.Seq})
		}
	}
	prev := map[int64]int64{}
	for _, ps := range byDoc {
		slices.SortFunc(ps, func(a, b place) int { return a.seq - b.seq })
		last := int64(-1)
		for _, p := range ps {
			if _, ok := from.Vector(p.id); !ok {
				continue
			}
			if _, seen := prev[p.id]; !seen && last >= 0 {
				prev[p.id] = last
			}
			last = p.id
		}
	}
	ix := vector.New(from.Dim())
	ix.Grow(n)
	for _, id := range ids {
		v, ok := from.Vector(id)
		if !ok {
			continue
		}
		if p, ok := prev[id]; ok {
			if pv, ok := from.Vector(p); ok {
				v = mixVectors(v, pv, weight)
			}
		}
		if err := ix.Add(id, v); err != nil {
			return nil, err
		}
	}
	e.vec.mixed = mixedOf{from, n, weight, ix}
	return ix, nil
}

// nearestMixed is nearest over the index as mixedIndex would mix it, at
// query time (fusionWeights.VecMixDepth): the mix.depth × n chunks nearest
// qv by their own vectors, and the chunk after each, are scored by their
// vectors mixed with the previous chunk's, (qv·v + w qv·p) / |v + w p| for
// a session chunk with a previous chunk p, qv·v for any other, and the n
// best are read from the store with those scores. A chunk's previous chunk
// is the one whose id is one less when both are in the same sessions
// document (vectorDocs): chunks of a document are stored in order, so it is
// the one before it. No vector is copied; the id → document map is the one
// filtered searches load anyway, and the store is read once, for the n
// returned, as nearest reads it.
func (e *Engine) nearestMixed(ctx context.Context, ix *vector.Index, qv []float32, corpora []string, scope search.Scope, n int, mix vecMix) ([]cairn.Candidate, error) {
	ok, filter, err := e.vectorScope(ctx, corpora, scope)
	if err != nil {
		return nil, err
	}
	docs, err := e.vectorDocs(ctx)
	if err != nil {
		return nil, err
	}
	res := ix.Search(qv, mix.depth*n, &vector.SearchOptions{Filter: filter})
	if len(res) == 0 {
		return nil, nil
	}
	// follows reports whether chunk a is the one after chunk b in a
	// sessions document both are in.
	follows := func(a, b int64) bool {
		if a != b+1 {
			return false
		}
		for _, da := range docs[a] {
			if e.isSessions(da.corpus) && slices.Contains(docs[b], da) {
				return true
			}
		}
		return false
	}
	w := mix.weight
	score := make(map[int64]float64, 2*len(res))
	var pool []int64
	add := func(id int64) {
		if _, seen := score[id]; seen {
			return
		}
		v, has := ix.Vector(id)
		if !has {
			return
		}
		s := dot32(qv, v)
		if follows(id, id-1) {
			if p, has := ix.Vector(id - 1); has {
				if norm := math.Sqrt(dot32(v, v) + w*w*dot32(p, p) + 2*w*dot32(v, p)); norm > 0 {
					s = (s + w*dot32(qv, p)) / norm
				}
			}
		}
		score[id] = s
		pool = append(pool, id)
	}
	for _, r := range res {
		add(r.Key)
	}
	for _, r := range res {
		// The chunk after a near one: its previous chunk is near, so its
		// mixed vector may be.
		if next := r.Key + 1; follows(next, r.Key) && (filter == nil || filter(next)) {
			add(next)
		}
	}
	slices.SortFunc(pool, func(a, b int64) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})
	cands, err := e.store.Chunks(ctx, pool[:min(n, len(pool))])
	if err != nil {
		return nil, err
	}
	out := cands[:0]
	for _, c := range cands {
		if ok(docRef{c.Corpus, c.Path}) {
			c.Score, c.Lane = score[c.ChunkID], cairn.LaneVector
			out = append(out, c)
		}
	}
	return out, nil
}

// dot32 is the dot product of two vectors of one length, in float64.
func dot32(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// mixVectors is v + w × u, normalized (v when the sum is zero).
func mixVectors(v, u []float32, w float64) []float32 {
	out := make([]float64, len(v))
	var sum float64
	for i := range v {
		out[i] = float64(v[i]) + w*float64(u[i])
		sum += out[i] * out[i]
	}
	if sum == 0 {
		return v
	}
	norm := math.Sqrt(sum)
	m := make([]float32, len(v))
	for i, x := range out {
		m[i] = float32(x / norm)
	}
	return m
}

// vectorAt is vectorLane for a query vector given (a pass that moves or
// rewrites the query: hybrid_expand.go): the n nearest chunks of the
// corpora and scope in the lane as loaded, each with its cosine to qv.
func (e *Engine) vectorAt(ctx context.Context, qv []float32, corpora []string, scope search.Scope, n int) ([]cairn.Candidate, error) {
	e.vec.mu.RLock()
	ix := e.vec.index
	e.vec.mu.RUnlock()
	return e.nearest(ctx, ix, qv, corpora, scope, n)
}

// vectorScope is what the corpora and scope allow of the vector index: ok
// for a document, filter for a chunk (nil when every chunk is allowed:
// documents of removed corpora are dropped after the search and pruned at
// sync).
func (e *Engine) vectorScope(ctx context.Context, corpora []string, scope search.Scope) (func(docRef) bool, func(int64) bool, error) {
	paths := scope.Paths
	allowC := map[string]bool{}
	for _, c := range corpora {
		allowC[c] = true
	}
	var allowP map[string]bool
	if paths != nil {
		allowP = map[string]bool{}
		for _, p := range paths {
			allowP[p] = true
		}
	}
	ok := func(d docRef) bool {
		return allowC[d.corpus] && (allowP == nil || scope.PathCorpora != nil && !slices.Contains(scope.PathCorpora, d.corpus) || allowP[d.path])
	}
	var filter func(int64) bool
	if allowP != nil || len(corpora) < e.searchableCorpora() {
		// Filters apply before top-k. Searching every corpus needs none:
		// documents of removed corpora are dropped after the search and
		// pruned at sync.
		docs, err := e.vectorDocs(ctx)
		if err != nil {
			return nil, nil, err
		}
		filter = func(k int64) bool {
			for _, d := range docs[k] {
				if ok(d) {
					return true
				}
			}
			return false
		}
	}
	return ok, filter, nil
}

// nearest is the search both share: the n chunks of ix nearest qv whose
// documents the corpora and scope allow (filters apply before top-k),
// read from the store, each scored by its cosine to qv.
func (e *Engine) nearest(ctx context.Context, ix *vector.Index, qv []float32, corpora []string, scope search.Scope, n int) ([]cairn.Candidate, error) {
	ok, filter, err := e.vectorScope(ctx, corpora, scope)
	if err != nil {
		return nil, err
	}
	res := ix.Search(qv, n, &vector.SearchOptions{Filter: filter})
	ids := make([]int64, len(res))
	score := map[int64]float32{}
	for i, r := range res {
		ids[i], score[r.Key] = r.Key, r.Score
	}
	cands, err := e.store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := cands[:0]
	for _, c := range cands {
		if ok(docRef{c.Corpus, c.Path}) {
			c.Score, c.Lane = float64(score[c.ChunkID]), cairn.LaneVector
			out = append(out, c)
		}
	}
	return out, nil
}

// searchableCorpora counts the configured corpora a search can select.
func (e *Engine) searchableCorpora() int {
	n := 0
	for _, c := range e.opts.Corpora {
		if c.Kind != cairn.KindSkills && (c.Kind != cairn.KindMemories || e.recall.live.Load()) {
			n++
		}
	}
	return n
}

// PendingEmbeddings reports how many chunks still wait for a vector from
// the configured embedder (0 without one). While it is above zero, hybrid
// search answers from the lexical lane alone.
func (e *Engine) PendingEmbeddings(ctx context.Context) (int, error) {
	if e.opts.Embedder == nil {
		return 0, nil
	}
	if err := e.loadVectors(ctx); err != nil {
		return 0, err
	}
	e.vec.mu.RLock()
	defer e.vec.mu.RUnlock()
	return e.vec.pending, nil
}
