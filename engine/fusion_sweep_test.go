package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
)

// sweepSetting is one point of TestFusionSweep's grid.
type sweepSetting struct {
	mode        string
	lex, vec, k float64
	lexMatch    bool
	vecScale    float64
	lean        float64 // the query-dependent vector weight (fusionWeights.Lean)
	leanBy      int
	diverse     float64 // the diversity pass by document (fusionWeights.Diverse)
	after       int
	context     float64 // the neighbours' share (fusionWeights.Context)
	prf         float64 // the lexical feedback pass's share (fusionWeights.PRF)
	prfDocs     int
	prfTerms    int
	dates       float64 // the lift of a unit holding the query's date (fusionWeights.Dates)
	speaker     float64 // the lift of a unit spoken by a participant the query names (fusionWeights.Speaker)
	speakerBy   int     // the lexical confidence that lift shrinks by (fusionWeights.SpeakerBy; 0: none)
	speakerOne  bool    // lift only when the query names one participant (fusionWeights.SpeakerOne)
	speakerCap  int     // at most that many lifted units a document (fusionWeights.SpeakerCap; 0: all)
	speakerShr  float64 // the lift shrunk by the share of units it reaches (fusionWeights.SpeakerShare)
	prfBy       int     // the lexical confidence the feedback share shrinks by (fusionWeights.PRFBy; 0: none)
	speakerDep  int     // the vector lane that many times deeper for the named participant's turns (fusionWeights.SpeakerDepth)
	speakerVec  float64 // the vector weight's rise when the lift applies (fusionWeights.SpeakerVec)
	speakerStr  bool    // the lexical lane asked again without the one named participant (fusionWeights.SpeakerStrip)
	prfNamed    bool    // feedback only for the queries the speaker lift applies to (fusionWeights.PRFNamed)
	speakerPair float64 // the spread over two named participants (fusionWeights.SpeakerPair)
	vecPRF      float64 // the vector lane's feedback share (fusionWeights.VecPRF)
	vecPRFDocs  int     // how many first fused hits it reads (fusionWeights.VecPRFDocs)
	vecPRFBeta  float64 // how far the query moves toward them (fusionWeights.VecPRFBeta)
	session     float64 // the session lift (fusionWeights.Session)
	sessionTop  int     // how many of a session's best units its score sums (fusionWeights.SessionTop)
	vecStrip    bool    // the vector lane asked without the one named participant (fusionWeights.VecStrip)
	vecStripShr float64 // that pass fused beside the whole query's with this share (fusionWeights.VecStripShare)
	prfAsks     bool    // the feedback pass only for queries asking for a thing (fusionWeights.PRFAsks)
	vecWhen     float64 // the vector weight's factor for a query asking when (fusionWeights.VecWhen)
	vecMix      float64 // the previous chunk's weight in the mixed index (fusionWeights.VecMix)
	vecMixDepth int     // the query-time mix over that many times the lane's nearest (fusionWeights.VecMixDepth)
}

func (s sweepSetting) String() string {
	if s.mode == cairn.ModeLexical || s.mode == cairn.ModeVector {
		return s.mode
	}
	out := fmt.Sprintf("hybrid lex %.2f vec %.2f k %.0f m %v s %.2f", s.lex, s.vec, s.k, s.lexMatch, s.vecScale)
	if s.lean > 0 {
		out += fmt.Sprintf(" lean %.2f by %d", s.lean, s.leanBy)
	}
	if s.diverse > 0 {
		out += fmt.Sprintf(" div %.3f after %d", s.diverse, s.after)
	}
	if s.context > 0 {
		out += fmt.Sprintf(" ctx %.2f", s.context)
	}
	if s.prf > 0 {
		out += fmt.Sprintf(" prf %.2f docs %d terms %d", s.prf, s.prfDocs, s.prfTerms)
		if s.prfBy != 0 {
			out += fmt.Sprintf(" by %d", s.prfBy)
		}
		if s.prfNamed {
			out += " named"
		}
		if s.prfAsks {
			out += " asks"
		}
	}
	if s.dates > 0 {
		out += fmt.Sprintf(" dates %.2f", s.dates)
	}
	if s.speaker > 0 {
		out += fmt.Sprintf(" speaker %.2f", s.speaker)
		if s.speakerBy != 0 {
			out += fmt.Sprintf(" by %d", s.speakerBy)
		}
		if s.speakerOne {
			out += " one"
		}
		if s.speakerCap > 0 {
			out += fmt.Sprintf(" cap %d", s.speakerCap)
		}
		if s.speakerShr > 0 {
			out += fmt.Sprintf(" share %.2f", s.speakerShr)
		}
		if s.speakerDep > 1 {
			out += fmt.Sprintf(" depth %d", s.speakerDep)
		}
		if s.speakerVec > 0 {
			out += fmt.Sprintf(" vec+ %.2f", s.speakerVec)
		}
		if s.speakerStr {
			out += " strip"
		}
		if s.speakerPair > 0 {
			out += fmt.Sprintf(" pair %.2f", s.speakerPair)
		}
		if s.vecStrip {
			out += " vecstrip"
			if s.vecStripShr > 0 {
				out += fmt.Sprintf(" %.2f", s.vecStripShr)
			}
		}
	}
	if s.vecPRF > 0 {
		out += fmt.Sprintf(" vprf %.2f docs %d beta %.2f", s.vecPRF, s.vecPRFDocs, s.vecPRFBeta)
	}
	if s.session > 0 {
		out += fmt.Sprintf(" session %.2f top %d", s.session, s.sessionTop)
	}
	if s.vecWhen > 0 {
		out += fmt.Sprintf(" vecwhen %.2f", s.vecWhen)
	}
	if s.vecMix > 0 {
		out += fmt.Sprintf(" vecmix %.2f", s.vecMix)
		if s.vecMixDepth > 0 {
			out += fmt.Sprintf(" depth %d", s.vecMixDepth)
		}
	}
	return out
}

// memoEmbedder answers a text it embedded before from memory: a sweep
// asks the same 883 questions under every setting, and their embeddings
// were most of a setting's time.
type memoEmbedder struct {
	cairn.Embedder
	mu   sync.Mutex
	seen map[string][]float32
}

// Close closes the embedder underneath, as the engine closes its own.
func (m *memoEmbedder) Close() error {
	if c, ok := m.Embedder.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

func (m *memoEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	m.mu.Lock()
	out := make([][]float32, len(texts))
	var miss []string
	for i, t := range texts {
		if v, ok := m.seen[kind+"\x00"+t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
		}
	}
	m.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := m.Embedder.Embed(ctx, kind, miss)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	j := 0
	for i := range out {
		if out[i] == nil {
			out[i] = got[j]
			m.seen[kind+"\x00"+texts[i]] = got[j]
			j++
		}
	}
	return out, nil
}

// TestFusionSweep asks the LoCoMo development questions in lexical mode
// and in hybrid mode under a grid of lane weights and rank constants
// (CAIRN_FUSION_SWEEP=1; it imports and embeds six conversations, then
// asks 883 questions per setting), and reports each setting's turn recall
// and MRR by category, and the setting chosen by leave-one-conversation-
// out cross-validation scored on the conversation held out. The choice is
// the setting with the largest sum of turn recall at every cutoff and MRR
// on the other five conversations. CAIRN_FUSION_GRID overrides the grid:
// "lex:vec:k[:lexmatch:vecscale:lean:leanby:diverse:after:context:prf:prfdocs:prfterms:dates:speaker:speakerby:speakerone:speakercap:speakershare:prfby:speakerdepth:speakervec:speakerstrip:prfnamed:speakerpair:vecprf:vecprfdocs:vecprfbeta:session:sessiontop:vecstrip:vecstripshare:prfasks:vecwhen:vecmix:vecmixdepth],..." (k 0:
// fuse scores; lexmatch 1: BM25 over the query's ideal; vecscale: the
// cosine range; lean and leanby: the vector weight lowered by the lexical
// lane's confidence; diverse and after: the diversity pass by document;
// context: the share of a neighbouring chunk's score; prf, prfdocs and
// prfterms: the lexical lane's feedback pass, its share, how many first
// hits it reads and how many words it asks for; dates: the lift of a unit
// holding a date the query names; speaker and speakerby: the lift of a
// unit spoken by a participant the query names, and the kind of lexical
// confidence it shrinks by, 0 for none; speakerone 1: only when the query
// names one participant; speakercap: at most that many lifted units a
// document; speakershare: the lift shrunk by that times the share of units
// it reaches; prfby: the kind of lexical confidence the feedback share
// shrinks by, 0 for none; speakerdepth: the vector lane that many times
// deeper for the named participant's turns; speakervec: the vector
// weight times 1 + that when the lift applies; speakerstrip 1: the
// lexical lane asked again without the one name; prfnamed 1: feedback
// only for the queries the lift applies to; speakerpair: the spread over
// two named participants; vecprf, vecprfdocs and vecprfbeta: the vector
// lane's feedback pass, its share, how many first fused hits it reads and
// how far the query moves toward them; session and sessiontop: the lift
// of a unit by its session's score, the sum of that many best units;
// vecstrip 1: the vector lane asked without the one name; vecstripshare:
// that pass fused beside the whole query's with this share instead;
// prfasks 1: the feedback pass only for queries asking for a thing, not
// when nor yes or no; vecwhen: the vector weight times that for a query
// asking when; vecmix: the vector lane of a query not asking when over
// the index with each session chunk's vector mixed with its previous
// chunk's at that weight; vecmixdepth: that mix at query time over that
// many times the lane's nearest chunks and the chunk after each, no copy).
// CAIRN_FUSION_DIR
// keeps the index there, so a second sweep skips the embedding;
// CAIRN_FUSION_LIMIT asks that many hits a question instead of 50;
// CAIRN_FUSION_VECTOR=1 adds the vector lane alone as a setting and
// CAIRN_FUSION_TURNS=1 keeps each question's retrieved turns in the JSON
// (reading where the misses are: bench/rk-miss.py);
// CAIRN_FUSION_OUT writes every question's scores per setting there as
// JSON. Tables in bench/RESULTS.md, "Hybrid fusion".
func TestFusionSweep(t *testing.T) {
	if os.Getenv("CAIRN_FUSION_SWEEP") == "" {
		t.Skip("set CAIRN_FUSION_SWEEP=1 to sweep fusion weights over the LoCoMo development split")
	}
	shared := testshared.Dir(t, testshared.Model, testshared.Library, testshared.LocomoDev)
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		t.Fatal(err)
	}
	grid := []sweepSetting{{mode: cairn.ModeLexical}}
	if os.Getenv("CAIRN_FUSION_NO_LEXICAL") != "" {
		grid = nil // a second sweep over the same index: lexical's scores are the first's
	}
	if os.Getenv("CAIRN_FUSION_VECTOR") != "" {
		grid = append(grid, sweepSetting{mode: cairn.ModeVector}) // the vector lane alone, for reading the misses
	}
	limit := 0 // the eval's 50
	if v := os.Getenv("CAIRN_FUSION_LIMIT"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	spec := os.Getenv("CAIRN_FUSION_GRID")
	if spec == "" {
		for _, k := range []float64{10, 30, 60} {
			for _, v := range []float64{0.1, 0.2, 0.3, 0.5, 0.7, 1} {
				grid = append(grid, sweepSetting{mode: cairn.ModeHybrid, lex: 1, vec: v, k: k})
			}
		}
	}
	for _, p := range strings.Split(spec, ",") {
		if p == "" {
			continue
		}
		f := strings.Split(p+strings.Repeat(":0", 36), ":")
		var x [36]float64
		for i := range x {
			if x[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		grid = append(grid, sweepSetting{cairn.ModeHybrid, x[0], x[1], x[2], x[3] != 0, x[4], x[5], int(x[6]), x[7], int(x[8]), x[9], x[10], int(x[11]), int(x[12]), x[13], x[14], int(x[15]), x[16] != 0, int(x[17]), x[18], int(x[19]), int(x[20]), x[21], x[22] != 0, x[23] != 0, x[24],
			x[25], int(x[26]), x[27], x[28], int(x[29]), x[30] != 0, x[31], x[32] != 0, x[33], x[34], int(x[35])})
	}
	defer engine.SetFusion(1, 1, 60, false, 0)() // the defaults back after the sweep
	// CAIRN_FUSION_COST: every search pays its own lanes and embeddings
	// (no memo), and each setting's wall and process CPU time is logged:
	// a grid repeating two settings in turn compares their cost.
	cost := os.Getenv("CAIRN_FUSION_COST") != ""
	engine.SetLaneMemo(!cost)
	defer engine.SetLaneMemo(false)
	var qemb cairn.Embedder = &memoEmbedder{Embedder: emb, seen: map[string][]float32{}}
	if cost {
		qemb = emb
	}
	var began time.Time
	var cpu0 time.Duration
	done := map[string][]eval.SweepQuestion{}
	ctx := context.Background()
	o := eval.LocomoOptions{Data: filepath.Join(shared, testshared.LocomoDev),
		Audit: filepath.Join(shared, "data", "locomo", "locomo-dev-audit-errors.json"), Mode: cairn.ModeHybrid, Embedder: qemb,
		Dir: os.Getenv("CAIRN_FUSION_DIR"), Limit: limit, KeepTurns: os.Getenv("CAIRN_FUSION_TURNS") != "",
		SettingDone: func(i int, qs []eval.SweepQuestion) {
			if cost {
				t.Logf("cost %s: %d questions, wall %.1f ms, CPU %.1f ms a question (load %s)", grid[i], len(qs),
					float64(time.Since(began).Microseconds())/1e3/float64(max(len(qs), 1)),
					float64((processCPU()-cpu0).Microseconds())/1e3/float64(max(len(qs), 1)), loadAverage())
			}
			t.Logf("done %-34s %s", grid[i], sweepRow(qs, nil))
			done[grid[i].String()] = qs
			writeSweep(t, done) // each setting as it ends: a sweep stopped early keeps what it measured
		}}
	res, err := eval.LocomoSweep(ctx, o, len(grid), func(i int) string {
		s := grid[i]
		t.Logf("setting %d of %d: %s", i+1, len(grid), s)
		began, cpu0 = time.Now(), processCPU()
		if s.mode == cairn.ModeHybrid {
			engine.SetFusion(s.lex, s.vec, s.k, s.lexMatch, s.vecScale)
			engine.SetFusionShape(s.lean, s.leanBy, s.diverse, s.after, s.context)
			engine.SetFusionFeedback(s.prf, s.prfDocs, s.prfTerms)
			engine.SetFusionFeedbackBy(s.prfBy)
			engine.SetFusionDates(s.dates)
			engine.SetFusionSpeaker(s.speaker, s.speakerBy)
			engine.SetFusionSpeakerShape(s.speakerOne, s.speakerCap, s.speakerShr)
			engine.SetFusionSpeakerDepth(s.speakerDep, s.speakerVec)
			engine.SetFusionSpeakerStrip(s.speakerStr, s.prfNamed)
			engine.SetFusionSpeakerPair(s.speakerPair)
			engine.SetFusionVecFeedback(s.vecPRF, s.vecPRFDocs, s.vecPRFBeta)
			engine.SetFusionSession(s.session, s.sessionTop, s.vecStrip)
			engine.SetFusionVecStripShare(s.vecStripShr)
			engine.SetFusionAsks(s.prfAsks, s.vecWhen)
			engine.SetFusionVecMix(s.vecMix)
			engine.SetFusionVecMixDepth(s.vecMixDepth)
		}
		return s.mode
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range grid {
		t.Logf("%-34s %s", s, sweepRow(res[i], nil))
	}
	rows := make(map[string][]eval.SweepQuestion, len(grid))
	for i, s := range grid {
		rows[s.String()] = res[i]
	}
	writeSweep(t, rows)
	// Leave one conversation out: pick on the rest, score the held out.
	var convs []string
	for _, q := range res[0] {
		if !contains(convs, q.Conv) {
			convs = append(convs, q.Conv)
		}
	}
	var cv []eval.SweepQuestion
	var lexical []eval.SweepQuestion
	if grid[0].mode == cairn.ModeLexical {
		lexical = res[0]
	}
	for _, c := range convs {
		best, bestV := 0, -1.0
		for i := range grid {
			if grid[i].mode != cairn.ModeHybrid {
				continue
			}
			if v := objective(res[i], func(q eval.SweepQuestion) bool { return q.Conv != c }); v > bestV {
				best, bestV = i, v
			}
		}
		t.Logf("held out %s: chose %s", c, grid[best])
		for _, q := range res[best] {
			if q.Conv == c {
				cv = append(cv, q)
			}
		}
	}
	t.Logf("%-34s %s", "lexical", sweepRow(lexical, nil))
	t.Logf("%-34s %s", "hybrid, cross-validated", sweepRow(cv, nil))
	cats := []string{"multi-hop", "temporal", "open-domain", "single-hop"}
	for _, cat := range cats {
		in := func(q eval.SweepQuestion) bool { return q.Category == cat }
		t.Logf("  %-32s %s", cat+" lexical", sweepRow(lexical, in))
		t.Logf("  %-32s %s", cat+" hybrid cv", sweepRow(cv, in))
	}
}

// writeSweep writes every question's scores per setting to
// CAIRN_FUSION_OUT as JSON (nothing without it), for tables by category.
func writeSweep(t *testing.T, rows map[string][]eval.SweepQuestion) {
	out := os.Getenv("CAIRN_FUSION_OUT")
	if out == "" {
		return
	}
	data, err := json.Marshal(rows)
	if err == nil {
		err = os.WriteFile(out+".tmp", data, 0o644)
	}
	if err == nil {
		err = os.Rename(out+".tmp", out)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// objective is the sum of turn recall at every cutoff and MRR over the
// questions sel selects, averaged.
func objective(qs []eval.SweepQuestion, sel func(eval.SweepQuestion) bool) float64 {
	sum, n := 0.0, 0
	for _, q := range qs {
		if !sel(q) {
			continue
		}
		n++
		for _, k := range eval.TurnKs {
			sum += q.Scores.TurnRecall[k]
		}
		sum += q.Scores.MRR
	}
	return sum / float64(max(n, 1))
}

func sweepRow(qs []eval.SweepQuestion, sel func(eval.SweepQuestion) bool) string {
	var s []eval.Scores
	for _, q := range qs {
		if sel == nil || sel(q) {
			s = append(s, q.Scores)
		}
	}
	m := eval.Average(s)
	keys := make([]string, 0, len(eval.TurnKs))
	for _, k := range eval.TurnKs {
		keys = append(keys, fmt.Sprintf("@%d %4.1f", k, m[fmt.Sprintf("turn_recall@%d", k)]))
	}
	return fmt.Sprintf("n %3d  %s  mrr %4.1f", len(s), strings.Join(keys, " "), m["mrr"])
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the first field of /proc/loadavg, "?" without it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
