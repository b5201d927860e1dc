package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
)

// Clustering over the index (C17, C18): the population read from the
// store, clustered in process by package cluster, stored as one run that
// replaces the previous one. Never scheduled: only Recluster makes a run.

// ReclusterOptions tune Recluster; nil means defaults.
type ReclusterOptions struct {
	// Cluster holds the C17 options (zero fields: defaults). Its Progress
	// function, when set, is also told of the PhaseWriting step.
	Cluster cluster.Options
	// Corpora names the corpora to cluster. Nil or ["all"]: every files
	// and sessions corpus; the memories corpus only when named. Skills are
	// never clustered.
	Corpora []string
}

// ClusterRun describes a stored run: what Recluster returns (C18).
type ClusterRun struct {
	Status               string  `json:"status" jsonschema:"ok"`
	RunID                string  `json:"runId"`
	CreatedAt            string  `json:"createdAt"`
	CompletedAt          string  `json:"completedAt"`
	InputDigest          string  `json:"inputDigest" jsonschema:"sha256 over the clustered chunks and their vectors"`
	Model                string  `json:"model"`
	EmbeddingFingerprint string  `json:"embeddingFingerprint"`
	Dimensions           int     `json:"dimensions"`
	Clusters             int     `json:"clusters"`
	Members              int     `json:"members" jsonschema:"unique chunks clustered, noise included"`
	Noise                int     `json:"noise"`
	Stale                bool    `json:"stale"`
	StaleSince           *string `json:"staleSince"`
}

// timeFormat is how curation outputs write times: UTC, milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z"

func isoTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func isoPtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := isoTime(t)
	return &s
}

// PhaseWriting is the step Recluster reports through
// ReclusterOptions.Cluster.Progress after cluster.Run's phases: storing
// the run (0 of 1, then 1 of 1).
const PhaseWriting = "writing"

// Recluster clusters the chunks of the selected corpora and stores the
// run, replacing the previous one in one transaction. It holds the sync
// lock, so no sync changes the index meanwhile. It fails with
// cairn.ErrUnavailable when there is no embedder, chunks still need
// embedding (the error gives the count), or there are fewer than
// cluster.MinUnique unique chunks; bad options match cairn.ErrInvalid.
func (e *Engine) Recluster(ctx context.Context, o *ReclusterOptions) (*ClusterRun, error) {
	if o == nil {
		o = &ReclusterOptions{}
	}
	if err := o.Cluster.Validate(); err != nil {
		return nil, err
	}
	corpora, err := e.clusterCorpora(o.Corpora)
	if err != nil {
		return nil, err
	}
	if err := canWriteAll(ctx, corpora); err != nil { // scope.go: the run replaces the agent's one run
		return nil, err
	}
	emb := e.opts.Embedder
	if emb == nil {
		return nil, fmt.Errorf("recluster: no embedder configured, and clustering needs vectors (configure [embedder]): %w", cairn.ErrUnavailable)
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	release, err := e.beginSync(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	created := time.Now().UTC()
	in, err := e.clusterInput(ctx, emb.Identity(), corpora)
	if err != nil {
		return nil, err
	}
	res, err := cluster.Run(ctx, in.items, &o.Cluster)
	if err != nil {
		return nil, fmt.Errorf("recluster: %w", err)
	}
	w, err := analysisWrite(created, emb.Identity(), corpora, in, res, o.Cluster)
	if err != nil {
		return nil, err
	}
	report := func(done int) {
		if o.Cluster.Progress != nil {
			o.Cluster.Progress(cluster.Step{Phase: PhaseWriting, Done: done, Total: 1})
		}
	}
	report(0)
	if err := e.store.PutAnalysis(ctx, w); err != nil {
		return nil, err
	}
	report(1)
	run, err := e.validRun(ctx)
	if err != nil {
		return nil, err
	}
	if run == nil || run.ID != w.Run.ID || !run.StaleAt.IsZero() {
		return nil, fmt.Errorf("recluster: no valid, fresh run after writing %s: %w", w.Run.ID, cairn.ErrUnavailable)
	}
	return runInfo(run), nil
}

func runInfo(r *cairn.AnalysisRun) *ClusterRun {
	return &ClusterRun{Status: "ok", RunID: r.ID, CreatedAt: isoTime(r.CreatedAt), CompletedAt: isoTime(r.CompletedAt),
		InputDigest: r.InputDigest, Model: r.Model, EmbeddingFingerprint: r.EmbeddingFingerprint, Dimensions: r.Dimensions,
		Clusters: r.Clusters, Members: r.Members, Noise: r.Noise, Stale: !r.StaleAt.IsZero(), StaleSince: isoPtr(r.StaleAt)}
}

// clusterCorpora resolves the corpora to cluster: names as for a search
// (nil or ["all"]: every corpus), kept to files and sessions corpora
// unless the memories corpus is named; a skills corpus is never.
func (e *Engine) clusterCorpora(names []string) ([]string, error) {
	sel, err := cairn.SelectCorpora(e.opts.Corpora, names)
	if err != nil {
		return nil, err
	}
	named := len(names) > 0 && !slices.Equal(names, []string{"all"})
	var out []string
	for _, c := range sel {
		switch {
		case c.Kind == cairn.KindFiles || c.Kind == cairn.KindSessions:
			out = append(out, c.Name)
		case c.Kind == cairn.KindMemories && named:
			out = append(out, c.Name)
		case c.Kind == cairn.KindSkills && named:
			return nil, cairn.Invalidf("corpora: %s is a skills corpus, which is never clustered", c.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// defaultClusterCorpora is what a Recluster with no corpora clusters.
func (e *Engine) defaultClusterCorpora() []string {
	out, _ := e.clusterCorpora(nil)
	return out
}

// clusterIn is the population of one run.
type clusterIn struct {
	items  []cluster.Item
	digest string
}

// clusterInput reads the population, checks every chunk has a vector of
// the embedder, fingerprints the texts and digests the input (C17 step
// 4: hash, seq, offsets, the model, and the raw vector bytes).
func (e *Engine) clusterInput(ctx context.Context, id cairn.EmbedderIdentity, corpora []string) (*clusterIn, error) {
	in := &clusterIn{}
	h := sha256.New()
	key := id.Key()
	pending := 0
	fps := map[string]bool{}
	err := e.store.EachClusterChunk(ctx, key, corpora, func(c cairn.ClusterChunk) error {
		if c.Vector == nil {
			pending++
			return nil
		}
		v, err := unitVector(c.Vector)
		if err != nil {
			return fmt.Errorf("recluster: chunk %d of %s: %w", c.Seq, c.Hash, err)
		}
		fp := fingerprint(c.Text)
		fps[fp] = true
		in.items = append(in.items, cluster.Item{Hash: c.Hash, Seq: c.Seq, Fingerprint: fp, Vector: v})
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00%s\x00%d\x00", c.Hash, c.Seq, c.Pos, c.Len, key, len(v))
		var b [4]byte
		for _, x := range v {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			h.Write(b[:])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if pending > 0 {
		return nil, fmt.Errorf("recluster: %d chunks still need embedding: run cairn sync (or memory_sync_sessions) and retry: %w", pending, cairn.ErrUnavailable)
	}
	if len(fps) < cluster.MinUnique {
		return nil, fmt.Errorf("recluster: %d unique chunks in %v, at least %d needed: index more text first: %w",
			len(fps), corpora, cluster.MinUnique, cairn.ErrUnavailable)
	}
	in.digest = hex.EncodeToString(h.Sum(nil))
	return in, nil
}

// fingerprint is C6's chunk fingerprint: sha256 hex of the exact text.
func fingerprint(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// unitVector returns v at unit length; a zero or non-finite vector is an
// error (cosine space: a vector that does not claim to be normalized is
// normalized here).
func unitVector(v []float32) ([]float32, error) {
	var s float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector is not finite")
		}
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return nil, fmt.Errorf("vector is zero")
	}
	if math.Abs(s-1) < 1e-4 {
		return v, nil
	}
	n := float32(1 / math.Sqrt(s))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * n
	}
	return out, nil
}

// analysisWrite turns a clustering result into the rows of a run.
func analysisWrite(created time.Time, id cairn.EmbedderIdentity, corpora []string, in *clusterIn, res *cluster.Result, o cluster.Options) (*cairn.AnalysisWrite, error) {
	runID, err := uuid4()
	if err != nil {
		return nil, err
	}
	params, err := runParams(o, res, corpora)
	if err != nil {
		return nil, err
	}
	fp := sha256.Sum256([]byte(id.Key()))
	// Dimensions are the vectors' own: an embedder that learns its
	// dimension from the first answer (openai) has 0 in its identity.
	w := &cairn.AnalysisWrite{Run: cairn.AnalysisRun{ID: runID, CreatedAt: created, CompletedAt: time.Now().UTC(),
		InputDigest: in.digest, Model: id.Model, EmbeddingFingerprint: hex.EncodeToString(fp[:]), Dimensions: len(in.items[0].Vector),
		Params: params, Corpora: corpora, Clusters: len(res.Clusters), Members: len(res.Members), Noise: res.Noise}}
	for _, c := range res.Clusters {
		w.Clusters = append(w.Clusters, cairn.AnalysisCluster{ID: c.ID, Size: c.Size, MeanProbability: c.MeanProbability})
	}
	for _, m := range res.Members {
		w.Members = append(w.Members, cairn.AnalysisMember{Hash: m.Hash, Seq: m.Seq, Cluster: m.Cluster, Probability: m.Probability,
			OutlierScore: m.OutlierScore, X: m.X, Y: m.Y, RepresentativeRank: m.RepresentativeRank})
	}
	for _, d := range res.Duplicates {
		w.Duplicates = append(w.Duplicates, cairn.DuplicateOccurrence{Fingerprint: d.Fingerprint,
			Canonical: cairn.ChunkKey{Hash: d.CanonicalHash, Seq: d.CanonicalSeq}, Duplicate: cairn.ChunkKey{Hash: d.DuplicateHash, Seq: d.DuplicateSeq}})
	}
	return w, nil
}

// runParams is params_json: {collections, effective, requested, resolved},
// keys sorted at every level, compact (a map marshals sorted).
func runParams(o cluster.Options, res *cluster.Result, corpora []string) (string, error) {
	var resolved, effective map[string]any
	for _, p := range []struct {
		s   cluster.Settings
		dst *map[string]any
	}{{res.Resolved, &resolved}, {res.Effective, &effective}} {
		b, _ := json.Marshal(p.s)
		if err := json.Unmarshal(b, p.dst); err != nil {
			return "", fmt.Errorf("record clustering options: %w", err)
		}
	}
	b, err := json.Marshal(map[string]any{"collections": corpora, "requested": requestedOptions(o), "resolved": resolved, "effective": effective})
	if err != nil {
		return "", fmt.Errorf("record clustering options: %w", err)
	}
	return string(b), nil
}

// requestedOptions are the options as given: only the fields set.
func requestedOptions(o cluster.Options) map[string]any {
	space, hd := map[string]any{}, map[string]any{}
	set := func(m map[string]any, k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	set(space, "method", o.Space.Method, o.Space.Method != "")
	set(space, "nComponents", o.Space.NComponents, o.Space.NComponents != 0)
	set(space, "nNeighbors", o.Space.NNeighbors, o.Space.NNeighbors != 0)
	if o.Space.MinDist != nil {
		space["minDist"] = *o.Space.MinDist
	}
	set(hd, "minClusterSize", o.HDBSCAN.MinClusterSize, o.HDBSCAN.MinClusterSize != 0)
	set(hd, "minSamples", o.HDBSCAN.MinSamples, o.HDBSCAN.MinSamples != 0)
	set(hd, "clusterSelectionMethod", o.HDBSCAN.ClusterSelectionMethod, o.HDBSCAN.ClusterSelectionMethod != "")
	set(hd, "clusterSelectionEpsilon", o.HDBSCAN.ClusterSelectionEpsilon, o.HDBSCAN.ClusterSelectionEpsilon != 0)
	set(hd, "allowSingleCluster", o.HDBSCAN.AllowSingleCluster, o.HDBSCAN.AllowSingleCluster)
	out := map[string]any{}
	set(out, "space", space, len(space) > 0)
	set(out, "hdbscan", hd, len(hd) > 0)
	if o.Seed != nil {
		out["seed"] = *o.Seed
	}
	return out
}

// uuid4 is a random RFC 4122 version 4 UUID.
func uuid4() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make run id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// clusterRef is C6's cluster ref: the first 10 hex digits of
// sha256(runId + "\0" + cluster id); noise is cluster -1. Refs change
// with every run.
func clusterRef(runID string, id int) string {
	sum := sha256.Sum256([]byte(runID + "\x00" + strconv.Itoa(id)))
	return hex.EncodeToString(sum[:])[:10]
}

// validRun returns the latest run when it is valid (C19: every cluster's
// stored size equals its memberships, the sizes and noise add up to the
// members, no membership of a missing cluster), nil when there is none or
// it is not valid. A run over another set of corpora than the default
// one (a corpus added or removed since) is marked stale first.
func (e *Engine) validRun(ctx context.Context) (*cairn.AnalysisRun, error) {
	run, err := e.store.LatestAnalysis(ctx)
	if err != nil {
		if errors.Is(err, cairn.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	// scope.go: a run's clusters, members and samples hold text of every
	// corpus it covered; a caller reads them only with all of them.
	if err := canReadAll(ctx, run.Corpora); err != nil {
		return nil, fmt.Errorf("read the latest clustering run %s: %w", run.ID, err)
	}
	if run.StaleAt.IsZero() && !slices.Equal(withoutMemories(run.Corpora), e.defaultClusterCorpora()) {
		if err := e.store.MarkAnalysisStale(ctx); err != nil {
			return nil, err
		}
		if run, err = e.store.LatestAnalysis(ctx); err != nil {
			return nil, err
		}
	}
	cs, err := e.store.AnalysisClusters(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	members, clusters, noise := 0, 0, 0
	for _, c := range cs {
		members += c.Members
		switch {
		case c.ID < 0:
			noise = c.Members
		case c.Size != c.Members || c.Size == 0:
			return nil, nil
		default:
			clusters++
		}
	}
	if members != run.Members || clusters != run.Clusters || noise != run.Noise {
		return nil, nil
	}
	return &run, nil
}

func withoutMemories(corpora []string) []string {
	return slices.DeleteFunc(slices.Clone(corpora), func(c string) bool { return c == cairn.MemoriesCorpus })
}
