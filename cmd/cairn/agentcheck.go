package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// readCommands only read an agent's data. Opening an agent that has none
// for them is an error naming the agents there are (checkAgent), not a new
// empty agents/<name>/ folder; sync, remember and the others that write
// make the agent. The default agent is exempt: before its first sync a read
// answers as an empty index does.
var readCommands = map[string]bool{
	"search": true, "get": true, "recall": true, "memories list": true, "memories show": true,
	"gather": true, "explore": true, "clusters list": true, "clusters show": true, "tasks list": true,
}

// checkAgent returns nil when agent has a data folder under dataDir, else
// a usage error naming the known agents.
func checkAgent(dataDir, agent, dir string) error {
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or an error the open reports better
	}
	entries, _ := os.ReadDir(filepath.Join(dataDir, "agents"))
	var known []string
	for _, d := range entries {
		if d.IsDir() {
			known = append(known, d.Name())
		}
	}
	slices.Sort(known)
	list := strings.Join(known, ", ")
	if list == "" {
		list = "none"
	}
	return usagef("no agent named %s; known: %s (an agent is made by its first cairn sync or cairn remember with --agent %s)", agent, list, agent)
}

// checkAgentCase refuses an agent id whose folder is not there while
// another agent's id differs from it only in case: "Alice" beside "alice"
// would be a second agent on Linux and the same folder on macOS, and HTTP
// (its path and X-Cairn-Agent) matches ids exactly, as the CLI does. Ids
// stay case-sensitive; a second spelling of one is refused, naming the
// first (ux F16). Two such folders an older build made both open.
func checkAgentCase(dataDir, agent, dir string) error {
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, _ := os.ReadDir(filepath.Join(dataDir, "agents"))
	for _, d := range entries {
		if d.IsDir() && d.Name() != agent && strings.EqualFold(d.Name(), agent) {
			return usagef("agent %s: agent %s exists, and ids that differ only in case are refused: use --agent %s", agent, d.Name(), d.Name())
		}
	}
	return nil
}
