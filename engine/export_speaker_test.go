package engine

// SetFusionSpeaker sets the lift of a unit spoken by a participant the
// query names (fusionWeights.Speaker, SpeakerBy) of the fusion SetFusion
// set.
func SetFusionSpeaker(weight float64, by int) { fusion.Speaker, fusion.SpeakerBy = weight, by }

// SetFusionSpeakerShape sets the speaker lift's shape (fusionWeights
// SpeakerOne, SpeakerCap, SpeakerShare).
func SetFusionSpeakerShape(one bool, perDoc int, share float64) {
	fusion.SpeakerOne, fusion.SpeakerCap, fusion.SpeakerShare = one, perDoc, share
}
