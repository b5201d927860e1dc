// Package curator holds the curator skill (skills/curator/SKILL.md): how
// an agent turns Cairn's clusters and maintenance tasks into maintained
// topic files. cairn skills install curator writes it where Claude Code
// and OpenClaw look for skills.
package curator

import _ "embed"

// Name is the skill's name, its folder under a skills directory.
const Name = "cairn-curator"

// Skill is the SKILL.md text.
//
//go:embed SKILL.md
var Skill string
