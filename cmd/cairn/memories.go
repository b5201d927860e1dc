package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/sqlite"
)

// memorySource is what memories list and show read: the agent's engine,
// or memory.db alone (engine.MemoryReader) when index.db is damaged.
type memorySource interface {
	Memories(ctx context.Context, f cairn.MemoryFilter) ([]cairn.Memory, error)
	Memory(ctx context.Context, id string) (cairn.Memory, error)
	MemoryLinks(ctx context.Context, id string) ([]cairn.MemoryLink, error)
	Close(ctx context.Context) error
}

// openMemories opens the agent's engine, or, when its index.db is
// damaged, its memory.db alone and read only: the memories are a file of
// their own and stay readable. The damage is said on stderr with the
// remedy; any other error to open is returned as it is.
func (e *env) openMemories(ctx context.Context) (memorySource, error) {
	eng, _, err := e.open(ctx)
	if err == nil {
		return eng, nil
	}
	if !sqlite.IsDamaged(err) && !errors.Is(err, engine.ErrDamaged) {
		return nil, err
	}
	_, dataDir := e.paths()
	dir, derr := config.AgentDir(dataDir, e.agent)
	if derr != nil {
		return nil, err
	}
	r, rerr := engine.OpenMemoryReader(ctx, local.Fill(engine.Options{Dir: dir}))
	if rerr != nil {
		return nil, fmt.Errorf("%w (and %s alone: %v)", err, sqlite.DurableFile, rerr)
	}
	fmt.Fprintf(e.stderr, "cairn: warning: the index is damaged: %v\ncairn: warning: reading the memories from %s alone; run cairn doctor --repair to rebuild the index\n",
		err, sqlite.DurableFile)
	return r, nil
}

func memoriesList(ctx context.Context, e *env, args []string) error {
	fs := e.flags("memories list")
	kind := fs.String("kind", "", "only memories of this kind: episode, observation, profile or an item kind")
	status := fs.String("status", cairn.StatusActive, "only memories of this status: active, superseded or all")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("memories list", pos); err != nil {
		return err
	}
	switch *status {
	case cairn.StatusActive, cairn.StatusSuperseded:
	case "all":
		*status = ""
	default:
		return usagef("--status %q: allowed active, superseded, all", *status)
	}
	eng, err := e.openMemories(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	ms, err := eng.Memories(ctx, cairn.MemoryFilter{Kind: *kind, Status: *status})
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"memories": ms})
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stdout, "no memories (run cairn consolidate)")
		return nil
	}
	for _, m := range ms {
		told := ""
		if !m.ToldAt.IsZero() {
			told = m.ToldAt.Format("2006-01-02")
		}
		title := m.Title
		if m.Status != cairn.StatusActive {
			title += " (" + m.Status + ")"
		}
		fmt.Fprintf(e.stdout, "%s  %-12s %-10s %s\n", m.ID, m.Kind, told, title)
	}
	return nil
}

func memoriesShow(ctx context.Context, e *env, args []string) error {
	fs := e.flags("memories show")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memories show needs one memory ID (see cairn memories list)")
	}
	eng, err := e.openMemories(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	m, err := eng.Memory(ctx, pos[0])
	if errors.Is(err, cairn.ErrNotFound) {
		return fmt.Errorf("%w (see cairn memories list)", err)
	}
	if err != nil {
		return err
	}
	links, err := eng.MemoryLinks(ctx, m.ID)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(struct {
			cairn.Memory
			Links []cairn.MemoryLink `json:"links"`
		}{m, links})
	}
	fmt.Fprint(e.stdout, consolidate.Document(&m))
	fmt.Fprintf(e.stdout, "\nid %s · thread cairn://%s\n", m.ID, m.Thread)
	if len(links) > 0 {
		fmt.Fprintln(e.stdout, "\nLinks:")
		for _, l := range links {
			fmt.Fprintf(e.stdout, "- %s\n", linkLine(ctx, eng, m.ID, l))
		}
	}
	return nil
}

// linkLine says what a link is from the shown memory's side: "merged
// m-… (title)", "merged into m-…", "supersedes m-…", "superseded by m-…",
// "related m-…", with the model's reason.
func linkLine(ctx context.Context, eng memorySource, id string, l cairn.MemoryLink) string {
	other, verb := l.To, l.Kind
	if l.To == id {
		other = l.From
		switch l.Kind {
		case cairn.LinkMerged:
			verb = "merged into"
		case cairn.LinkSupersedes:
			verb = "superseded by"
		}
	}
	s := verb + " " + other
	if o, err := eng.Memory(ctx, other); err == nil {
		s += " (" + o.Title + ")"
	}
	if l.Reason != "" {
		s += ": " + l.Reason
	}
	return s
}
