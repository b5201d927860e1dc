package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// How much of the clustering the clusters page draws: the members of the
// largest clusters, one page of each, on a 2-D scatter plot.
const (
	scatterClusters = 12
	scatterMembers  = 50
	scatterW        = 720
	scatterH        = 420
	clusterPage     = 50
)

// clustersPage is the clusters template's data.
type clustersPage struct {
	page
	List    *engine.ClusterList
	Rows    []clusterRow
	Scatter *scatter
	// One cluster, with ?id=.
	Cluster *engine.ClusterPage
	Members []memberRow
	Next    string
	ID      string
}

type clusterRow struct {
	engine.ClusterSummary
	Link    string
	Sources []docLink
	Color   int
}

type memberRow struct {
	engine.ClusterMember
	Sources []docLink
}

type docLink struct{ Path, Open string }

// scatter is the 2-D layout of the drawn members, scaled to the drawing.
type scatter struct {
	W, H   int
	Points []point
}

type point struct {
	X, Y  float64
	Color int
	Link  string
	Title string
}

// clusters serves /ui/clusters (the latest clustering run: a scatter plot
// of the largest clusters' members and every cluster with its preview) and
// /ui/clusters?id=ID&offset=N (one cluster's members). Fetching members
// records the exact-duplicate tasks memory_fetch_cluster records: derived
// from the index, the same whoever fetches.
func (h *Handler) clusters(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d := &clustersPage{page: h.pageOf("Clusters", "clusters"), ID: r.URL.Query().Get("id")}
	if d.ID != "" {
		offset := 0
		if s := r.URL.Query().Get("offset"); s != "" {
			if offset, err = strconv.Atoi(s); err != nil || offset < 0 {
				h.fail(w, r, 0, cairn.Invalidf("offset %q is not a member offset: give a whole number from 0", s))
				return
			}
		}
		p, err := eng.FetchCluster(r.Context(), engine.FetchClusterOptions{ClusterID: d.ID, TopK: clusterPage, Offset: offset})
		if err != nil {
			if errors.Is(err, cairn.ErrInvalid) {
				err = cairn.Invalidf("%s", strings.Replace(err.Error(), "clusterId", "id", 1))
			}
			h.fail(w, r, 0, err)
			return
		}
		d.Cluster, d.Title = p, "Cluster "+d.ID
		for _, m := range p.Members {
			d.Members = append(d.Members, memberRow{ClusterMember: m, Sources: docLinks(m.SourcePaths)})
		}
		if p.Page != nil && p.Page.NextOffset != nil {
			d.Next = "/ui/clusters?" + url.Values{"id": {d.ID}, "offset": {strconv.Itoa(*p.Page.NextOffset)}}.Encode()
		}
		h.render(w, r, http.StatusOK, "clusters", d)
		return
	}
	list, err := eng.ListClusters(r.Context(), engine.MaxClusterList)
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d.List = list
	for i, c := range list.Clusters {
		row := clusterRow{ClusterSummary: c, Link: "/ui/clusters?id=" + url.QueryEscape(c.ClusterID), Color: i % 8}
		if c.Preview != nil {
			row.Sources = docLinks(c.Preview.SourcePaths)
		}
		d.Rows = append(d.Rows, row)
	}
	if d.Scatter, err = h.scatterOf(r, eng, list); err != nil {
		d.Message = "scatter plot: " + err.Error()
	}
	h.render(w, r, http.StatusOK, "clusters", d)
}

// scatterOf fetches the first page of the largest clusters and scales
// their members' 2-D layout into the drawing, nil when there is none.
func (h *Handler) scatterOf(r *http.Request, eng *engine.Engine, list *engine.ClusterList) (*scatter, error) {
	var pts []point
	for i, c := range list.Clusters {
		if i == scatterClusters {
			break
		}
		p, err := eng.FetchCluster(r.Context(), engine.FetchClusterOptions{ClusterID: c.ClusterID, TopK: scatterMembers})
		if err != nil {
			return nil, err
		}
		for _, m := range p.Members {
			pts = append(pts, point{X: m.X, Y: m.Y, Color: i % 8, Link: "/ui/clusters?id=" + url.QueryEscape(c.ClusterID),
				Title: "cluster " + c.ClusterID + ": " + short(strings.Join(strings.Fields(m.Text), " "), 120)})
		}
	}
	if len(pts) == 0 {
		return nil, nil
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX, minY, maxY = min(minX, p.X), max(maxX, p.X), min(minY, p.Y), max(maxY, p.Y)
	}
	const pad = 12
	sx := (scatterW - 2*pad) / math.Max(maxX-minX, 1e-9)
	sy := (scatterH - 2*pad) / math.Max(maxY-minY, 1e-9)
	for i := range pts {
		pts[i].X = pad + (pts[i].X-minX)*sx
		pts[i].Y = scatterH - pad - (pts[i].Y-minY)*sy
	}
	return &scatter{W: scatterW, H: scatterH, Points: pts}, nil
}

// docLinks turns cairn:// paths into links to the document view.
func docLinks(paths []string) []docLink {
	out := make([]docLink, len(paths))
	for i, p := range paths {
		out[i] = docLink{Path: p, Open: docURL(p, 0, 0, "")}
	}
	return out
}

// inboxPage is the inbox template's data.
type inboxPage struct {
	page
	Status   string
	Statuses []string
	Tasks    []taskRow
	Max      int
	Bases    []string
}

type taskRow struct {
	engine.Task
	Open   string
	Detail []field
}

// inbox serves /ui/inbox?status=S: the maintenance tasks of a status
// (pending by default), each with its detail and, for pending and deferred
// ones, the actions.
func (h *Handler) inbox(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d := &inboxPage{page: h.pageOf("Maintenance inbox", "inbox"), Status: r.URL.Query().Get("status"),
		Statuses: engine.TaskStatuses, Max: engine.MaxTaskList, Bases: engine.AnnotationBases}
	if d.Status == "" {
		d.Status = cairn.TaskPending
	}
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > engine.MaxTaskList {
			h.fail(w, r, 0, cairn.Invalidf("limit %q: allowed 1 to %d (the tasks listed)", s, engine.MaxTaskList))
			return
		}
		d.Max = n
	}
	tasks, err := eng.ListTasks(r.Context(), d.Status, d.Max)
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	for _, t := range tasks {
		row := taskRow{Task: t, Detail: flatten(t.Detail)}
		if t.Corpus != "" && t.Path != "" {
			row.Open = docURL(engine.Scheme+t.Corpus+"/"+t.Path, 0, 0, "")
		}
		d.Tasks = append(d.Tasks, row)
	}
	h.render(w, r, http.StatusOK, "inbox", d)
}

// taskAction is the body of POST /ui/tasks.
type taskAction struct {
	ID        string `json:"id"`
	Action    string `json:"action"`
	Note      string `json:"note"`
	EventTime string `json:"eventTime"`
	Basis     string `json:"basis"`
	Evidence  string `json:"evidence"`
}

// updateTask serves POST /ui/tasks (header X-Cairn-UI, a JSON taskAction):
// the inbox's resolve, defer and irrelevant buttons, through
// engine.UpdateTask and its rules.
func (h *Handler) updateTask(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(UIHeader) == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "missing " + UIHeader + " header: act on a task from the inbox page"})
		return
	}
	eng, err := h.eng()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	var in taskAction
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "read task action: " + err.Error()})
		return
	}
	req := engine.TaskUpdateRequest{TaskID: in.ID, Action: in.Action, Note: in.Note}
	if in.EventTime != "" {
		req.Annotation = &engine.AnnotationRequest{EventTime: in.EventTime, Basis: in.Basis, Evidence: in.Evidence}
	}
	t, err := eng.UpdateTask(r.Context(), req)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, t)
	case errors.Is(err, cairn.ErrInvalid):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	case errors.Is(err, cairn.ErrNotFound):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no task %q: reload the inbox", in.ID)})
	default:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	}
}

// recluster serves POST /ui/recluster (header X-Cairn-UI): a clustering
// run with the default options, in the request (a few seconds for
// thousands of chunks; bounded by the server's request timeout), its
// summary as JSON.
func (h *Handler) recluster(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(UIHeader) == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "missing " + UIHeader + " header: recluster from the clusters page"})
		return
	}
	eng, err := h.eng()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	run, err := eng.Recluster(r.Context(), nil)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, run)
	case errors.Is(err, cairn.ErrInvalid):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	case errors.Is(err, cairn.ErrUnavailable), errors.Is(err, cairn.ErrBusy):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	}
}
