package engine

// SetFusionSpeaker sets the lift of a unit spoken by a participant the
// query names (fusionWeights.Speaker, SpeakerBy) of the fusion SetFusion
// set.
func SetFusionSpeaker(weight float64, by int) { fusion.Speaker, fusion.SpeakerBy = weight, by }
