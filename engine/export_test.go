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
