package consolidate

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// DocumentPath is where a memory's document lives in the memories corpus.
func DocumentPath(m *cairn.Memory) string { return path.Join(m.Kind, m.ID+".md") }

// IDFromPath returns the memory id of a memories-corpus document path
// (with or without the cairn://memories/ prefix), or "".
func IDFromPath(p string) string {
	base := path.Base(p)
	id, ok := strings.CutSuffix(base, ".md")
	if !ok || !strings.HasPrefix(id, "m-") {
		return ""
	}
	return id
}

// Document renders a memory as the Markdown document the memories corpus
// indexes: title, summary, body, cues and concepts are searchable, and the
// sources name the transcript lines it came from.
func Document(m *cairn.Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(m.Title))
	meta := []string{m.Kind, m.Status}
	if !m.ToldAt.IsZero() {
		meta = append(meta, "told "+m.ToldAt.Format("2006-01-02 15:04"))
	}
	if ev := eventSpan(m); ev != "" {
		meta = append(meta, "event "+ev)
	}
	if m.Outcome != "" {
		meta = append(meta, "outcome "+m.Outcome)
	}
	if m.Importance > 0 {
		meta = append(meta, fmt.Sprintf("importance %d", m.Importance))
	}
	for _, s := range []string{m.Confidence, m.Scope, m.Phase} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	if m.SupersededBy != "" {
		meta = append(meta, "superseded by "+m.SupersededBy)
	}
	b.WriteString(strings.Join(meta, " · ") + "\n\n")
	if m.About != "" {
		fmt.Fprintf(&b, "About: %s\n\n", m.About)
	}
	b.WriteString(strings.TrimSpace(m.Summary) + "\n\n")
	if body := strings.TrimSpace(m.Body); body != "" {
		b.WriteString(body + "\n\n")
	}
	if m.AppliesWhen != "" {
		fmt.Fprintf(&b, "Applies when: %s\n\n", m.AppliesWhen)
	}
	if len(m.Cues) > 0 {
		b.WriteString("Cues:\n")
		for _, c := range m.Cues {
			fmt.Fprintf(&b, "- %s\n", c)
		}
		b.WriteString("\n")
	}
	if len(m.Concepts) > 0 {
		fmt.Fprintf(&b, "Concepts: %s\n\n", strings.Join(m.Concepts, " · "))
	}
	if len(m.Provenance) > 0 {
		b.WriteString("Sources:\n")
		for _, p := range m.Provenance {
			if p.Path == "" { // told directly (remember): "told by <agent> at <time>"
				fmt.Fprintf(&b, "- %s\n", p.Record)
				continue
			}
			fmt.Fprintf(&b, "- %s lines %d-%d", p.Path, p.StartLine, p.EndLine)
			if p.ToldAt != "" {
				fmt.Fprintf(&b, " (%s)", p.ToldAt)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func eventSpan(m *cairn.Memory) string {
	switch {
	case m.StartDate != "" || m.EndDate != "":
		return strings.TrimSpace(m.StartDate + " to " + m.EndDate)
	default:
		return m.EventDate
	}
}

// ToldTime is the time a memory's document carries as its modification
// time: when it was said, else now.
func ToldTime(m *cairn.Memory) time.Time {
	if m.ToldAt.IsZero() {
		return time.Now()
	}
	return m.ToldAt
}
