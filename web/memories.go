package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// maxMemoryRows is how many memories the list shows.
const maxMemoryRows = 500

// memoriesPage is the memories list's data.
type memoriesPage struct {
	page
	Kind, Status string
	Kinds        []string
	Statuses     []string
	Rows         []memoryRow
	Full         bool // the list stopped at maxMemoryRows
}

type memoryRow struct {
	cairn.Memory
	Link, Told, When string
}

// memories serves /ui/memories?kind=K&status=active|superseded|all.
func (h *Handler) memories(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	q := r.URL.Query()
	d := &memoriesPage{page: h.pageOf("Memories", "memories"), Kind: q.Get("kind"), Status: q.Get("status"),
		Kinds:    append(append([]string{"", cairn.MemoryEpisode, cairn.MemoryObservation}, cairn.ItemKinds...), cairn.MemoryProfile),
		Statuses: []string{cairn.StatusActive, cairn.StatusSuperseded, "all"}}
	if d.Status == "" {
		d.Status = cairn.StatusActive
	}
	if !slices.Contains(d.Statuses, d.Status) {
		h.fail(w, r, 0, cairn.Invalidf("status %q: allowed %s (empty: active)", d.Status, strings.Join(d.Statuses, ", ")))
		return
	}
	f := cairn.MemoryFilter{Kind: d.Kind, Status: d.Status, Limit: maxMemoryRows}
	if d.Status == "all" {
		f.Status = ""
	}
	ms, err := eng.Memories(r.Context(), f)
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	for _, m := range ms {
		d.Rows = append(d.Rows, memoryRow{Memory: m, Link: memoryURL(m.ID), Told: day(m), When: when(m)})
	}
	d.Full = len(ms) == maxMemoryRows
	h.render(w, r, http.StatusOK, "memories", d)
}

func memoryURL(id string) string { return "/ui/memory?id=" + url.QueryEscape(id) }

// day is the told date of m.
func day(m cairn.Memory) string {
	if m.ToldAt.IsZero() {
		return ""
	}
	return m.ToldAt.UTC().Format("2006-01-02 15:04")
}

// when is the event date or span of m.
func when(m cairn.Memory) string {
	switch {
	case m.EventDate != "":
		return m.EventDate
	case m.StartDate != "" || m.EndDate != "":
		return m.StartDate + " – " + m.EndDate
	}
	return ""
}

// memoryPage is one memory's data.
type memoryPage struct {
	page
	M          cairn.Memory
	Told, When string
	Links      []linkView
	Sources    []sourceView
	Superseded string // the memory that replaced it
	Graph      *graph
	GraphError string
}

type linkView struct {
	Kind, Direction, Other, Title, Link, Reason string
}

type sourceView struct {
	cairn.Provenance
	Open string
}

// memory serves /ui/memory?id=ID: every field, the links, the source
// lines (each opens the session projection at them) and the concept graph
// around it.
func (h *Handler) memory(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	ctx := r.Context()
	id := r.URL.Query().Get("id")
	m, err := eng.Memory(ctx, id)
	if errors.Is(err, cairn.ErrNotFound) {
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("no memory %q: see the memories page", id))
		return
	}
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d := &memoryPage{page: h.pageOf(m.Title+" · Memory", "memories"), M: m, Told: day(m), When: when(m)}
	if m.SupersededBy != "" {
		d.Superseded = memoryURL(m.SupersededBy)
	}
	for _, p := range m.Provenance {
		v := sourceView{Provenance: p}
		if strings.TrimSpace(p.Path) != "" { // a memory told directly has no source document
			v.Open = docURL(p.Path, p.StartLine, p.EndLine, "")
		}
		d.Sources = append(d.Sources, v)
	}
	links, err := eng.MemoryLinks(ctx, m.ID)
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	for _, l := range links {
		v := linkView{Kind: l.Kind, Direction: "to", Other: l.To, Reason: l.Reason}
		if l.To == m.ID {
			v.Direction, v.Other = "from", l.From
		}
		v.Link, v.Title = memoryURL(v.Other), v.Other
		if o, err := eng.Memory(ctx, v.Other); err == nil {
			v.Title = o.Title
		}
		d.Links = append(d.Links, v)
	}
	if m.Status == cairn.StatusActive {
		d.Graph, err = h.graphOf(r, eng, m)
		if err != nil {
			d.GraphError = err.Error()
		}
	}
	h.render(w, r, http.StatusOK, "memory", d)
}

// graphOf explores the concept graph from m (engine.Explore, no model)
// and lays it out for drawing.
func (h *Handler) graphOf(r *http.Request, eng *engine.Engine, m cairn.Memory) (*graph, error) {
	res, err := eng.Explore(r.Context(), "", &engine.ExploreOptions{IDs: []string{m.ID}, Limit: graphMemories, Concepts: graphConcepts})
	if err != nil {
		return nil, err
	}
	titles := map[string]string{m.ID: m.Title}
	for _, rel := range res.Related {
		if o, err := eng.Memory(r.Context(), rel.ID); err == nil {
			titles[rel.ID] = o.Title
		}
	}
	return layout(m, res, titles), nil
}

// itoa is strconv.Itoa for the templates.
func itoa(n int) string { return strconv.Itoa(n) }
