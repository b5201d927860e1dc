package engine

// SetFusionFeedbackBy sets the kind of lexical confidence the feedback
// share shrinks by (fusionWeights.PRFBy; 0: none) of the fusion SetFusion
// set.
func SetFusionFeedbackBy(kind int) { fusion.PRFBy = kind }

// SetFusionSpeakerDepth sets how much deeper the vector lane reaches for
// the named participant's turns and the vector weight's rise when the
// speaker lift applies (fusionWeights.SpeakerDepth, SpeakerVec).
func SetFusionSpeakerDepth(depth int, vec float64) {
	fusion.SpeakerDepth, fusion.SpeakerVec = depth, vec
}

// SetFusionSpeakerStrip sets whether the lexical lane is asked again
// without the one named participant (fusionWeights.SpeakerStrip), and
// whether feedback is kept for the queries the lift applies to alone
// (fusionWeights.PRFNamed).
func SetFusionSpeakerStrip(strip, prfNamed bool) {
	fusion.SpeakerStrip, fusion.PRFNamed = strip, prfNamed
}

// SetFusionSpeakerPair sets the spread over two named participants
// (fusionWeights.SpeakerPair).
func SetFusionSpeakerPair(penalty float64) { fusion.SpeakerPair = penalty }

// SetFusionVecFeedback sets the vector lane's feedback pass
// (fusionWeights.VecPRF, VecPRFDocs, VecPRFBeta).
func SetFusionVecFeedback(share float64, docs int, beta float64) {
	fusion.VecPRF, fusion.VecPRFDocs, fusion.VecPRFBeta = share, docs, beta
}

// SetFusionSession sets the session lift (fusionWeights.Session,
// SessionTop) and whether the vector lane is asked without the one named
// participant (fusionWeights.VecStrip).
func SetFusionSession(lift float64, top int, vecStrip bool) {
	fusion.Session, fusion.SessionTop, fusion.VecStrip = lift, top, vecStrip
}

// SetFusionVecStripShare sets the share of the vector weight the pass
// without the one named participant takes beside the whole query's
// (fusionWeights.VecStripShare; 0: it replaces it).
func SetFusionVecStripShare(share float64) { fusion.VecStripShare = share }

// SetFusionAsks sets the lexical feedback pass for queries asking for a
// thing alone (fusionWeights.PRFAsks) and the vector weight's factor for a
// query asking when (fusionWeights.VecWhen; 0: none).
func SetFusionAsks(prfAsks bool, vecWhen float64) { fusion.PRFAsks, fusion.VecWhen = prfAsks, vecWhen }

// SetFusionVecMix sets the weight of the previous chunk's vector in the
// mixed index the vector lane searches for queries not asking when
// (fusionWeights.VecMix; 0: the plain index).
func SetFusionVecMix(weight float64) { fusion.VecMix = weight }

// SetFusionVecMixDepth sets how many times the lane's count of nearest
// chunks the query-time mix reads (fusionWeights.VecMixDepth; 0: the mixed
// copy of the index).
func SetFusionVecMixDepth(depth int) { fusion.VecMixDepth = depth }
