package engine

// SetFusion sets the lane weights hybrid search fuses with (lex, vec) and
// the rank constant k (0: fuse normalized scores, fusionWeights.Convex),
// for sweeps over a benchmark (engine_test TestFusionSweep); the returned
// function restores the defaults. lexMatch and vecScale are
// fusionWeights'.
func SetFusion(lex, vec, k float64, lexMatch bool, vecScale float64) (restore func()) {
	old := fusion
	fusion = fusionWeights{Lex: lex, Vec: vec, K: k, Convex: k == 0, LexMatch: lexMatch, VecScale: vecScale}
	return func() { fusion = old }
}

// SetFusionShape sets the query-dependent lane weight (lean, leanBy), the
// diversity pass (diverse, after) and the neighbours' share (context) of
// the fusion SetFusion set (fusionWeights' fields of those names).
func SetFusionShape(lean float64, leanBy int, diverse float64, after int, context float64) {
	fusion.Lean, fusion.LeanBy, fusion.Diverse, fusion.DiverseAfter = lean, leanBy, diverse, after
	fusion.Context = context
}

// SetLaneMemo makes hybrid search keep each query's lanes and fuse them
// again on the next search of the query (laneMemo), for sweeps of fusion
// settings over an index they do not change; off clears the memo.
func SetLaneMemo(on bool) {
	laneMemoOn.Store(on)
	if !on {
		laneMemo.Clear()
	}
}

// SetFusionFeedback sets the lexical lane's pseudo-relevance feedback of
// the fusion SetFusion set (fusionWeights.PRF, PRFDocs, PRFTerms).
func SetFusionFeedback(weight float64, docs, terms int) {
	fusion.PRF, fusion.PRFDocs, fusion.PRFTerms = weight, docs, terms
}

// SetFusionDates sets the lift of a unit holding a date the query names
// (fusionWeights.Dates) of the fusion SetFusion set.
func SetFusionDates(weight float64) { fusion.Dates = weight }
