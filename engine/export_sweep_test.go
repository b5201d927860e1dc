package engine

// SetFusionFeedbackBy sets the kind of lexical confidence the feedback
// share shrinks by (fusionWeights.PRFBy; 0: none) of the fusion SetFusion
// set.
func SetFusionFeedbackBy(kind int) { fusion.PRFBy = kind }
