package ingest

// StripChannelEnvelope removes the channel envelope a gateway (OpenClaw)
// puts before inbound user text: the leading context blocks (a label line
// ending in ⟦openclaw:ctx⟧, or an older "(untrusted metadata):" label,
// each followed by a fenced json block) and a "[Mon 2026-05-04 09:46 UTC] "
// time prefix. Text without one is returned as it is. The whisperers read
// user text this way (C29 step 1), as session projection does.
func StripChannelEnvelope(text string) string {
	body, _ := ocStripEnvelope(text)
	return body
}
