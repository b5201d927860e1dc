package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
	"github.com/cairnmemory/cairn/engine"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The curation tools (C18 to C23): clusters of what is indexed, and the
// maintenance inbox. Each calls the engine directly; none calls a model.
const (
	ToolRecluster    = "memory_recluster"
	ToolListClusters = "memory_list_clusters"
	ToolFetchCluster = "memory_fetch_cluster"
	ToolListTasks    = "memory_list_maintenance_tasks"
	ToolUpdateTask   = "memory_update_maintenance_task"
)

// ReclusterIn is the input of memory_recluster: C17's options, every one
// optional.
type ReclusterIn struct {
	Space   *SpaceIn   `json:"space,omitempty" jsonschema:"the space clusters are found in"`
	HDBSCAN *HDBSCANIn `json:"hdbscan,omitempty" jsonschema:"the clustering"`
	Seed    *int64     `json:"seed,omitempty" jsonschema:"every random choice comes from it: the same seed and index give the same run"`
	Corpora []string   `json:"corpora,omitempty" jsonschema:"corpora to cluster; omitted or [\"all\"]: every files and sessions corpus (memories only when named)"`
}

// SpaceIn chooses the space.
type SpaceIn struct {
	Method      string   `json:"method,omitempty" jsonschema:"umap (a seeded reduction) or none (the vectors themselves)"`
	NComponents *int     `json:"nComponents,omitempty" jsonschema:"dimensions UMAP reduces to"`
	NNeighbors  *int     `json:"nNeighbors,omitempty" jsonschema:"neighbours UMAP's graph joins"`
	MinDist     *float64 `json:"minDist,omitempty" jsonschema:"how tightly UMAP packs neighbours"`
}

// HDBSCANIn holds the clustering options.
type HDBSCANIn struct {
	MinClusterSize          *int     `json:"minClusterSize,omitempty" jsonschema:"the smallest cluster; default min(150, max(15, round(0.005 N)))"`
	MinSamples              *int     `json:"minSamples,omitempty" jsonschema:"how conservative: default min(10, minClusterSize)"`
	ClusterSelectionMethod  string   `json:"clusterSelectionMethod,omitempty" jsonschema:"eom (excess of mass: fewer, larger clusters) or leaf (many small ones)"`
	ClusterSelectionEpsilon *float64 `json:"clusterSelectionEpsilon,omitempty" jsonschema:"clusters nearer than this merge"`
	AllowSingleCluster      *bool    `json:"allowSingleCluster,omitempty" jsonschema:"whether one cluster of everything may be the answer"`
}

// ReclusterOut is the output of memory_recluster.
type ReclusterOut struct {
	Status               string  `json:"status" jsonschema:"ok or unavailable (no embedder, chunks still to embed, too few chunks)"`
	Error                string  `json:"error,omitempty" jsonschema:"unavailable: why, and what to do"`
	RunID                string  `json:"runId,omitempty"`
	CreatedAt            string  `json:"createdAt,omitempty"`
	CompletedAt          string  `json:"completedAt,omitempty"`
	InputDigest          string  `json:"inputDigest,omitempty"`
	Model                string  `json:"model,omitempty"`
	EmbeddingFingerprint string  `json:"embeddingFingerprint,omitempty"`
	Dimensions           int     `json:"dimensions"`
	Clusters             int     `json:"clusters"`
	Members              int     `json:"members"`
	Noise                int     `json:"noise"`
	Stale                bool    `json:"stale"`
	StaleSince           *string `json:"staleSince"`
}

// Recluster runs memory_recluster.
func (a *Agent) Recluster(ctx context.Context, in ReclusterIn) (*ReclusterOut, error) {
	o, err := reclusterOptions(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return &ReclusterOut{Status: "unavailable", Error: err.Error()}, nil
	}
	r, err := a.eng.Recluster(ctx, o)
	if errors.Is(err, cairn.ErrUnavailable) {
		return &ReclusterOut{Status: "unavailable", Error: err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return &ReclusterOut{Status: r.Status, RunID: r.RunID, CreatedAt: r.CreatedAt, CompletedAt: r.CompletedAt, InputDigest: r.InputDigest,
		Model: r.Model, EmbeddingFingerprint: r.EmbeddingFingerprint, Dimensions: r.Dimensions, Clusters: r.Clusters,
		Members: r.Members, Noise: r.Noise, Stale: r.Stale, StaleSince: r.StaleSince}, nil
}

// reclusterOptions turns the input into engine options, checking each
// given value against its range (a given 0 is out of range, not the
// default).
func reclusterOptions(in ReclusterIn) (*engine.ReclusterOptions, error) {
	o := &engine.ReclusterOptions{Corpora: in.Corpora}
	c := &o.Cluster
	var err error
	if s := in.Space; s != nil {
		c.Space.Method, c.Space.MinDist = s.Method, s.MinDist
		if c.Space.NComponents, err = given(s.NComponents, "space.nComponents", cluster.MinComponents, cluster.MaxComponents); err != nil {
			return nil, err
		}
		if c.Space.NNeighbors, err = given(s.NNeighbors, "space.nNeighbors", cluster.MinNeighbors, cluster.MaxNeighbors); err != nil {
			return nil, err
		}
	}
	if h := in.HDBSCAN; h != nil {
		c.HDBSCAN.ClusterSelectionMethod = h.ClusterSelectionMethod
		if h.ClusterSelectionEpsilon != nil {
			c.HDBSCAN.ClusterSelectionEpsilon = *h.ClusterSelectionEpsilon
		}
		if h.AllowSingleCluster != nil {
			c.HDBSCAN.AllowSingleCluster = *h.AllowSingleCluster
		}
		if c.HDBSCAN.MinClusterSize, err = given(h.MinClusterSize, "hdbscan.minClusterSize", cluster.MinClusterSizeMin, cluster.MinClusterSizeMax); err != nil {
			return nil, err
		}
		if c.HDBSCAN.MinSamples, err = given(h.MinSamples, "hdbscan.minSamples", cluster.MinSamplesMin, cluster.MinSamplesMax); err != nil {
			return nil, err
		}
	}
	c.Seed = in.Seed
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// ListClustersIn is the input of memory_list_clusters.
type ListClustersIn struct {
	Limit *int `json:"limit,omitempty" jsonschema:"clusters to list, largest first"`
}

// ListClusters runs memory_list_clusters.
func (a *Agent) ListClusters(ctx context.Context, in ListClustersIn) (*engine.ClusterList, error) {
	limit, err := given(in.Limit, "limit", 1, engine.MaxClusterList)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	return a.eng.ListClusters(ctx, limit)
}

// given checks an optional integer input: nil is 0 (the default), a given
// value must be in range.
func given(v *int, name string, lo, hi int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < lo || *v > hi {
		return 0, cairn.Invalidf("%s %d out of range: allowed %d to %d", name, *v, lo, hi)
	}
	return *v, nil
}

// FetchClusterIn is the input of memory_fetch_cluster.
type FetchClusterIn struct {
	ClusterID string `json:"clusterId" jsonschema:"a clusterId from memory_list_clusters (10 hex digits; ids change on reclustering)"`
	TopK      *int   `json:"topK,omitempty" jsonschema:"members per page"`
	Offset    *int   `json:"offset,omitempty" jsonschema:"members to skip: a page's nextOffset"`
	Sort      string `json:"sort,omitempty" jsonschema:"representative (nearest the centre first), score_desc, score_asc (the cluster's edge first), date_desc or date_asc (by event time, else file time)"`
}

func fetchOptions(in FetchClusterIn) (engine.FetchClusterOptions, error) {
	o := engine.FetchClusterOptions{ClusterID: in.ClusterID, Sort: in.Sort}
	var err error
	if o.TopK, err = given(in.TopK, "topK", 1, engine.MaxFetchTopK); err != nil {
		return o, err
	}
	if in.Offset != nil && *in.Offset < 0 {
		return o, cairn.Invalidf("offset %d out of range: allowed 0 or more", *in.Offset)
	}
	if in.Offset != nil {
		o.Offset = *in.Offset
	}
	check := o
	return o, check.Check()
}

// FetchCluster runs memory_fetch_cluster.
func (a *Agent) FetchCluster(ctx context.Context, in FetchClusterIn) (*engine.ClusterPage, error) {
	o, err := fetchOptions(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	return a.eng.FetchCluster(ctx, o)
}

// ListTasksIn is the input of memory_list_maintenance_tasks.
type ListTasksIn struct {
	Status string `json:"status,omitempty" jsonschema:"pending (default), resolved, deferred or irrelevant"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"tasks to list"`
}

// ListTasksOut is the output of memory_list_maintenance_tasks.
type ListTasksOut struct {
	Status string        `json:"status"`
	Tasks  []engine.Task `json:"tasks"`
}

// ListTasks runs memory_list_maintenance_tasks.
func (a *Agent) ListTasks(ctx context.Context, in ListTasksIn) (*ListTasksOut, error) {
	limit, err := checkListTasks(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	ts, err := a.eng.ListTasks(ctx, in.Status, limit)
	if err != nil {
		return nil, err
	}
	return &ListTasksOut{Status: "ok", Tasks: ts}, nil
}

func checkListTasks(in ListTasksIn) (int, error) {
	if in.Status != "" && !strings.Contains(" "+strings.Join(engine.TaskStatuses, " ")+" ", " "+in.Status+" ") {
		return 0, cairn.Invalidf("status %q: allowed %s", in.Status, strings.Join(engine.TaskStatuses, ", "))
	}
	return given(in.Limit, "limit", 1, engine.MaxTaskList)
}

// UpdateTaskIn is the input of memory_update_maintenance_task.
type UpdateTaskIn struct {
	TaskID     string        `json:"taskId" jsonschema:"a task id from memory_list_maintenance_tasks"`
	Action     string        `json:"action" jsonschema:"resolve, defer or irrelevant"`
	Note       string        `json:"note,omitempty" jsonschema:"what was decided or done (required to resolve a quality_review task)"`
	Annotation *AnnotationIn `json:"annotation,omitempty" jsonschema:"resolving an ambiguous_event_time task: when it happened (required there, refused elsewhere)"`
}

// AnnotationIn is an event date for a source.
type AnnotationIn struct {
	Scope     string `json:"scope,omitempty" jsonschema:"chunk (default: this passage, found again by its text) or document (the whole file)"`
	EventTime string `json:"eventTime" jsonschema:"ISO 8601 with an offset, e.g. 2024-05-06T09:00:00+02:00"`
	Basis     string `json:"basis" jsonschema:"path, frontmatter, session or agent_verified"`
	Evidence  string `json:"evidence" jsonschema:"what the date rests on"`
}

// UpdateTaskOut is the output of memory_update_maintenance_task.
type UpdateTaskOut struct {
	Status string       `json:"status" jsonschema:"ok or not_found"`
	Task   *engine.Task `json:"task,omitempty"`
}

func taskRequest(in UpdateTaskIn) engine.TaskUpdateRequest {
	r := engine.TaskUpdateRequest{TaskID: in.TaskID, Action: in.Action, Note: in.Note}
	if a := in.Annotation; a != nil {
		r.Annotation = &engine.AnnotationRequest{Scope: a.Scope, EventTime: a.EventTime, Basis: a.Basis, Evidence: a.Evidence}
	}
	return r
}

// UpdateTask runs memory_update_maintenance_task: one transaction; Cairn
// never edits the source.
func (a *Agent) UpdateTask(ctx context.Context, in UpdateTaskIn) (*UpdateTaskOut, error) {
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	t, err := a.eng.UpdateTask(ctx, taskRequest(in))
	if errors.Is(err, cairn.ErrNotFound) {
		return &UpdateTaskOut{Status: "not_found"}, nil
	}
	if err != nil {
		return nil, err
	}
	return &UpdateTaskOut{Status: "ok", Task: t}, nil
}

// checkCuration validates the curation tools' arguments as the tools
// will (Agent.check); other names pass.
func (a *Agent) checkCuration(name string, raw json.RawMessage) error {
	var err error
	switch name {
	case ToolRecluster:
		var in ReclusterIn
		if in, err = decode[ReclusterIn](raw); err == nil {
			_, err = reclusterOptions(in)
		}
	case ToolListClusters:
		var in ListClustersIn
		if in, err = decode[ListClustersIn](raw); err == nil {
			_, err = given(in.Limit, "limit", 1, engine.MaxClusterList)
		}
	case ToolFetchCluster:
		var in FetchClusterIn
		if in, err = decode[FetchClusterIn](raw); err == nil {
			_, err = fetchOptions(in)
		}
	case ToolListTasks:
		var in ListTasksIn
		if in, err = decode[ListTasksIn](raw); err == nil {
			_, err = checkListTasks(in)
		}
	case ToolUpdateTask:
		_, err = decode[UpdateTaskIn](raw)
	default:
		return a.checkJudgedCuration(name, raw) // curation_judged.go
	}
	return err
}

func enumOf(vals ...string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

func reclusterSchema() *jsonschema.Schema {
	return inputSchema[ReclusterIn](func(p map[string]*jsonschema.Schema) {
		sp, hd := p["space"].Properties, p["hdbscan"].Properties
		sp["method"].Enum = enumOf(cluster.MethodUMAP, cluster.MethodNone)
		rangeOf(sp["nComponents"], cluster.MinComponents, cluster.MaxComponents, cluster.DefaultNComponents)
		rangeOf(sp["nNeighbors"], cluster.MinNeighbors, cluster.MaxNeighbors, cluster.DefaultNNeighbors)
		rangeOf(sp["minDist"], 0, 1, cluster.DefaultMinDist)
		rangeOf(hd["minClusterSize"], cluster.MinClusterSizeMin, cluster.MinClusterSizeMax, nil)
		rangeOf(hd["minSamples"], cluster.MinSamplesMin, cluster.MinSamplesMax, nil)
		hd["clusterSelectionMethod"].Enum = enumOf(cluster.SelectEOM, cluster.SelectLeaf)
		rangeOf(hd["clusterSelectionEpsilon"], 0, 0, 0.0)
		rangeOf(p["seed"], 0, cluster.MaxSeed, cluster.DefaultSeed)
		p["corpora"].Items.MinLength = jsonschema.Ptr(1)
	})
}

func fetchSchema() *jsonschema.Schema {
	return inputSchema[FetchClusterIn](func(p map[string]*jsonschema.Schema) {
		p["clusterId"].Pattern = `^[0-9a-f]{10}$`
		rangeOf(p["topK"], 1, engine.MaxFetchTopK, engine.DefaultFetchTopK)
		rangeOf(p["offset"], 0, 0, 0)
		p["sort"].Enum = enumOf(engine.FetchSorts...)
	})
}

func updateTaskSchema() *jsonschema.Schema {
	return inputSchema[UpdateTaskIn](func(p map[string]*jsonschema.Schema) {
		p["taskId"].MinLength = jsonschema.Ptr(1)
		p["action"].Enum = enumOf(engine.TaskActions...)
		p["note"].MinLength, p["note"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(engine.MaxTaskNote)
		an := p["annotation"].Properties
		an["scope"].Enum = enumOf("chunk", "document")
		an["basis"].Enum = enumOf(engine.AnnotationBases...)
		an["evidence"].MinLength, an["evidence"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(engine.MaxTaskNote)
	})
}

// addCuration registers the curation tools on s.
func addCuration(s *mcp.Server, a *Agent) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	writes := &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolRecluster, InputSchema: reclusterSchema(), Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		Description: "Cluster everything indexed by topic (in process: exact duplicates set aside, UMAP, HDBSCAN), replacing the previous run. " +
			"Clusters are attention signals for curating memory: list them with memory_list_clusters. Never runs by itself; " +
			"status unavailable when chunks still need embedding (sync first) or there is no embedder. Takes seconds to minutes.",
	}, handler(a.Recluster))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolListClusters, InputSchema: inputSchema[ListClustersIn](func(p map[string]*jsonschema.Schema) {
			rangeOf(p["limit"], 1, engine.MaxClusterList, engine.DefaultClusterList)
		}), Annotations: readOnly,
		Description: "List the clusters of the latest run, largest first, each with a preview of its most central passage and the noise " +
			"(passages in no cluster). stale says the index changed since the run; not_analyzed: run memory_recluster first.",
	}, handler(a.ListClusters))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolFetchCluster, InputSchema: fetchSchema(), Annotations: writes,
		Description: "Read one cluster's passages a page at a time, by representativeness, score or date (event time: a session's start, a " +
			"dated file name or an annotation; else the file's time). Each member has its text, cairn:// paths and fingerprint. " +
			"A date sort files an ambiguous_event_time task for each member without an event time; exact duplicates on the page " +
			"become exact_duplicate tasks (see memory_list_maintenance_tasks).",
	}, handler(a.FetchCluster))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolListTasks, InputSchema: inputSchema[ListTasksIn](func(p map[string]*jsonschema.Schema) {
			p["status"].Enum = enumOf(engine.TaskStatuses...)
			rangeOf(p["limit"], 1, engine.MaxTaskList, engine.DefaultTaskList)
		}), Annotations: readOnly,
		Description: "List maintenance tasks (ambiguous event dates, exact duplicates, quality reviews) oldest first, urgent quality reviews " +
			"before all; each says what it is about (path, fingerprint) and what to do (detail.instruction). Cairn never edits a source: " +
			"you fix the file if it needs fixing, then close the task with memory_update_maintenance_task.",
	}, handler(a.ListTasks))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolUpdateTask, InputSchema: updateTaskSchema(), Annotations: writes,
		Description: "Resolve, defer or mark irrelevant a maintenance task, with a note. Resolving an ambiguous_event_time task needs an " +
			"annotation (eventTime with offset, basis, evidence) that date sorts use from then on; a quality_review needs a note. " +
			"Closed tasks never reopen for the same content.",
	}, handler(a.UpdateTask))
	addJudgedCuration(s, a) // curation_judged.go
}
