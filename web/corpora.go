package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/mcpserver"
)

// maxDocRows is how many documents a page of a corpus's table lists.
const maxDocRows = 500

// corporaPage is the corpora template's data.
type corporaPage struct {
	page
	Corpora  []corpusView
	Selected *corpusView
	Docs     []docRow
	// DocsFrom and DocsTo number the first and last document shown (from
	// 1), MoreDocs counts those after them; PrevDocs and NextDocs link the
	// pages around ("" at an end).
	DocsFrom, DocsTo   int
	MoreDocs           int
	PrevDocs, NextDocs string
	Sessions           *engine.SyncStatus // the last session sync
	Background         []field            // the server's first sync, watcher, periodic sync
	// ServerRunning: one of those is running, and the script follows it.
	ServerRunning bool
	Sync          syncState // the last sync started here
	Failures      []cairn.FileFailure
}

// corpusView is one corpus's line.
type corpusView struct {
	Name, Kind string
	Where      []string // folders, or source=root pairs
	Documents  int
	Bytes      int64
	Link       string
	// Note replaces the counts of a corpus the index does not hold (the
	// skills corpus, read into memory from its folders).
	Note string
}

type docRow struct {
	Path, Open string
	Size       int64
	Modified   string
}

// corpora serves /ui/corpora[?corpus=NAME[&from=N]]: every corpus with
// its size, the sync state and, for one corpus, a page of its documents
// (maxDocRows in path order, after the first N). The totals are one
// aggregate query and the documents a page of rows: at 50,000 documents
// listing them all to count and sort took 170 ms of CPU.
func (h *Handler) corpora(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	ctx := r.Context()
	d := &corporaPage{page: h.pageOf("Corpora", "corpora")}
	d.Sync, _ = h.syncs.snapshot()
	sel := r.URL.Query().Get("corpus")
	from, err := docOffset(r.URL.Query().Get("from"))
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	corpora := eng.Corpora()
	var names []string
	if engine.CanRead(ctx, cairn.MemoriesCorpus) == nil {
		names = append(names, cairn.MemoriesCorpus)
	}
	for _, c := range corpora {
		names = append(names, c.Name)
	}
	totals, err := eng.DocTotals(ctx, names)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if totals[cairn.MemoriesCorpus].Documents > 0 || slices.ContainsFunc(corpora, func(c cairn.Corpus) bool { return c.Kind == cairn.KindSessions }) {
		// the memories corpus: consolidation's and remember's memories
		corpora = append(corpora, cairn.Corpus{Name: cairn.MemoriesCorpus, Kind: cairn.KindMemories})
	}
	for _, c := range corpora {
		t := totals[c.Name]
		v := corpusView{Name: c.Name, Kind: c.Kind, Where: c.Paths, Documents: t.Documents, Bytes: t.Bytes,
			Link: "/ui/corpora?corpus=" + url.QueryEscape(c.Name)}
		for _, s := range c.Sources {
			v.Where = append(v.Where, s.ID+"="+strings.Join(s.Roots, ","))
		}
		switch c.Kind {
		case cairn.KindSkills:
			v.Note = "held in memory, read from its folders (not in the index)"
		case cairn.KindMemories:
			v.Where = []string{"sessions (consolidation) and remember"}
		}
		d.Corpora = append(d.Corpora, v)
		if c.Name == sel {
			d.Selected = &d.Corpora[len(d.Corpora)-1]
			docs, err := eng.DocumentPage(ctx, c.Name, from, maxDocRows)
			if err != nil {
				h.fail(w, r, http.StatusInternalServerError, err)
				return
			}
			d.Docs = docRows(c.Name, docs)
			d.docPages(c.Name, from, v.Documents)
		}
		if c.Kind == cairn.KindSessions {
			fails, err := eng.TranscriptFailures(ctx, c.Name)
			if err != nil {
				h.fail(w, r, http.StatusInternalServerError, err)
				return
			}
			d.Failures = append(d.Failures, fails...)
		}
	}
	if sel != "" && d.Selected == nil {
		d.Message = "no corpus named " + sel + " is configured"
	}
	if st, err := eng.SyncStatus(); err == nil && st.Status != "idle" {
		d.Sessions = st
	}
	d.Background, d.ServerRunning = h.serverSyncs(r)
	h.render(w, r, http.StatusOK, "corpora", d)
}

// docOffset reads the from parameter: how many of the newest documents
// the page skips.
func docOffset(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, cairn.Invalidf("from %q: allowed a count of documents to skip, 0 or more", v)
	}
	return n, nil
}

// docPages fills the page's place in the corpus's documents: the first
// and last shown, how many more, and the links to the pages around it.
func (d *corporaPage) docPages(corpus string, from, total int) {
	d.DocsFrom, d.DocsTo = min(from+1, total), min(from+len(d.Docs), total)
	d.MoreDocs = max(0, total-from-len(d.Docs))
	link := func(at int) string {
		return "/ui/corpora?" + url.Values{"corpus": {corpus}, "from": {strconv.Itoa(at)}}.Encode()
	}
	if from > 0 {
		d.PrevDocs = link(max(0, from-maxDocRows))
	}
	if d.MoreDocs > 0 {
		d.NextDocs = link(from + len(d.Docs))
	}
}

// serverSyncs flattens the server's own syncs (the first sync, the
// watcher, the periodic session sync, and a running session sync's phase)
// and says whether one is running.
func (h *Handler) serverSyncs(r *http.Request) ([]field, bool) {
	out, err := h.opts.Agent.SyncStatus(r.Context(), mcpserver.Empty{})
	if err != nil {
		return []field{{Key: "error", Value: err.Error()}}, false
	}
	var fields []field
	running := out.Status == "running"
	if running {
		fields = append(fields, field{Key: "sessionSync", Value: strings.TrimSpace("running " + out.Phase)})
	}
	if b := out.Background; b != nil {
		fields = append(fields, flatten(b)...)
		running = running || b.FirstSync != nil && b.FirstSync.Status == "running" || b.Watcher != nil && b.Watcher.Pending
	}
	return fields, running
}

// serverProgress serves GET /ui/sync/server: the server's own syncs as
// the corpora page shows them, for the script to follow while one runs.
func (h *Handler) serverProgress(w http.ResponseWriter, r *http.Request) {
	fields, running := h.serverSyncs(r)
	type kv struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	out := struct {
		Running bool `json:"running"`
		Fields  []kv `json:"fields"`
	}{Running: running, Fields: []kv{}}
	for _, f := range fields {
		out.Fields = append(out.Fields, kv{f.Key, f.Value})
	}
	writeJSON(w, http.StatusOK, out)
}

// docRows lists a page of documents.
func docRows(corpus string, docs []cairn.DocState) []docRow {
	rows := make([]docRow, len(docs))
	for i, doc := range docs {
		p := engine.Scheme + corpus + "/" + doc.Path
		rows[i] = docRow{Path: doc.Path, Open: docURL(p, 0, 0, ""), Size: doc.Size}
		if doc.ModTime > 0 {
			rows[i].Modified = time.Unix(0, doc.ModTime).UTC().Format("2006-01-02 15:04")
		}
	}
	return rows
}
