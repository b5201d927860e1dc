package mcpserver

import "encoding/json"

// checkJudgedCuration validates the judged curation tools' arguments.
func (a *Agent) checkJudgedCuration(name string, raw json.RawMessage) error { return nil }
