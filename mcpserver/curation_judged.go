package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The judged curation tools (C25 to C27, enhanced mode): each gated by
// its configuration table and the judge.
const (
	ToolAuditQuality  = "memory_audit_quality"
	ToolReviewCluster = "memory_review_cluster"
	ToolReviewClaim   = "memory_review_claim"
)

// Curation is what an agent has of the judged curation tools. Set
// Agent.Curation before serving; nil answers status disabled.
type Curation struct {
	// Judge asks the judgments; nil when no judge model is configured.
	Judge engine.Judge
	// Credential reads the judge key's state on each call (judge.Credential:
	// "available", "missing", "unreadable", "disabled"); nil: available.
	Credential func() string
	// The [qualityAudit] table: memory_audit_quality and
	// memory_review_cluster.
	AuditEnabled bool
	AuditCorpora []string
	MinNoise     float64
	// The [evidenceReview] table: memory_review_claim.
	ReviewEnabled bool
	ReviewCorpora []string

	audit sync.Mutex // one audit per agent
}

// gate says why a judged tool cannot run ("" when it can): disabled (the
// table or the judge), unavailable (no usable key).
func (c *Curation) gate(enabled bool) (status, reason string) {
	switch {
	case c == nil || !enabled:
		return "disabled", "not enabled in the configuration ([qualityAudit] or [evidenceReview] enabled = true, with corpora)"
	case c.Judge == nil:
		return "disabled", "no judge model: configure [llm.judge] or [llm.fast]"
	case c.Credential != nil && c.Credential() != "available":
		return "unavailable", "judge key " + c.Credential()
	}
	return "", ""
}

// AuditIn is the input of memory_audit_quality.
type AuditIn struct {
	Limit *int          `json:"limit,omitempty" jsonschema:"chunks to scan in this call"`
	After *AuditAfterIn `json:"after,omitempty" jsonschema:"where the last call stopped: its next"`
}

// AuditAfterIn is an audit cursor.
type AuditAfterIn struct {
	DocumentID int64 `json:"documentId"`
	Seq        int   `json:"seq"`
}

func auditOptions(in AuditIn) (engine.AuditOptions, error) {
	var o engine.AuditOptions
	var err error
	if o.Limit, err = given(in.Limit, "limit", 1, engine.MaxAuditLimit); err != nil {
		return o, err
	}
	if a := in.After; a != nil {
		if a.DocumentID < 1 {
			return o, cairn.Invalidf("after.documentId %d out of range: allowed 1 or more", a.DocumentID)
		}
		if a.Seq < 0 {
			return o, cairn.Invalidf("after.seq %d out of range: allowed 0 or more", a.Seq)
		}
		o.After = &engine.AuditCursor{DocumentID: a.DocumentID, Seq: a.Seq}
	}
	return o, nil
}

// AuditQuality runs memory_audit_quality.
func (a *Agent) AuditQuality(ctx context.Context, in AuditIn) (*engine.AuditResult, error) {
	o, err := auditOptions(in)
	if err != nil {
		return nil, err
	}
	c := a.Curation
	if status, reason := c.gate(c != nil && c.AuditEnabled); status != "" {
		return &engine.AuditResult{Status: status, Reason: reason, Groups: []engine.AuditGroup{}}, nil
	}
	if err := a.unavailable(); err != nil {
		return &engine.AuditResult{Status: "unavailable", Reason: err.Error(), Groups: []engine.AuditGroup{}}, nil
	}
	if !c.audit.TryLock() {
		return &engine.AuditResult{Status: "busy", Reason: "another audit of this agent is running", Groups: []engine.AuditGroup{}}, nil
	}
	defer c.audit.Unlock()
	o.Judge, o.Corpora, o.MinNoise = c.Judge, c.AuditCorpora, c.MinNoise
	return a.eng.AuditQuality(ctx, o)
}

// ReviewClusterIn is the input of memory_review_cluster.
type ReviewClusterIn struct {
	ClusterID string `json:"clusterId" jsonschema:"a clusterId from memory_list_clusters"`
}

// ReviewCluster runs memory_review_cluster.
func (a *Agent) ReviewCluster(ctx context.Context, in ReviewClusterIn) (*engine.ClusterReview, error) {
	if !clusterIDOK(in.ClusterID) {
		return nil, cairn.Invalidf("clusterId %q: want 10 lowercase hex digits (from memory_list_clusters)", in.ClusterID)
	}
	c := a.Curation
	empty := &engine.ClusterReview{ClusterID: in.ClusterID, Members: []engine.ReviewedMember{}, Recurring: []engine.RecurringDefect{}}
	if status, reason := c.gate(c != nil && c.AuditEnabled); status != "" {
		empty.Status, empty.Reason = status, reason
		return empty, nil
	}
	if err := a.unavailable(); err != nil {
		empty.Status, empty.Reason = "unavailable", err.Error()
		return empty, nil
	}
	return a.eng.ReviewCluster(ctx, c.Judge, c.AuditCorpora, in.ClusterID)
}

func clusterIDOK(id string) bool {
	o := engine.FetchClusterOptions{ClusterID: id}
	return o.Check() == nil
}

// ReviewClaimIn is the input of memory_review_claim.
type ReviewClaimIn struct {
	Claim     string            `json:"claim" jsonschema:"the statement to check, at most 2000 characters"`
	Citations []engine.Citation `json:"citations" jsonschema:"1 to 3 cited line ranges of indexed documents"`
}

// ReviewClaim runs memory_review_claim.
func (a *Agent) ReviewClaim(ctx context.Context, in ReviewClaimIn) (*engine.ClaimReview, error) {
	if err := engine.CheckClaim(in.Claim, in.Citations); err != nil {
		return nil, err
	}
	c := a.Curation
	empty := &engine.ClaimReview{NeedsReview: true, Evidence: []engine.CitedEvidence{}}
	if status, reason := c.gate(c != nil && c.ReviewEnabled); status != "" {
		empty.Status, empty.Reason = status, reason
		return empty, nil
	}
	if err := a.unavailable(); err != nil {
		empty.Status, empty.Reason = "unavailable", err.Error()
		return empty, nil
	}
	return a.eng.ReviewClaim(ctx, c.Judge, c.ReviewCorpora, in.Claim, in.Citations)
}

// checkJudgedCuration validates the judged curation tools' arguments as
// the tools will; other names pass.
func (a *Agent) checkJudgedCuration(name string, raw json.RawMessage) error {
	var err error
	switch name {
	case ToolAuditQuality:
		var in AuditIn
		if in, err = decode[AuditIn](raw); err == nil {
			_, err = auditOptions(in)
		}
	case ToolReviewCluster:
		var in ReviewClusterIn
		if in, err = decode[ReviewClusterIn](raw); err == nil && !clusterIDOK(in.ClusterID) {
			err = cairn.Invalidf("clusterId %q: want 10 lowercase hex digits (from memory_list_clusters)", in.ClusterID)
		}
	case ToolReviewClaim:
		var in ReviewClaimIn
		if in, err = decode[ReviewClaimIn](raw); err == nil {
			err = engine.CheckClaim(in.Claim, in.Citations)
		}
	}
	return err
}

// addJudgedCuration registers the judged curation tools on s.
func addJudgedCuration(s *mcp.Server, a *Agent) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)}
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolAuditQuality, Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		InputSchema: inputSchema[AuditIn](func(p map[string]*jsonschema.Schema) {
			rangeOf(p["limit"], 1, engine.MaxAuditLimit, engine.DefaultAuditLimit)
			rangeOf(p["after"].Properties["documentId"], 1, 0, nil)
			rangeOf(p["after"].Properties["seq"], 0, 0, nil)
		}),
		Description: "Audit indexed chunks for ingestion debris with the judge, a page at a time (pass next as after to go on): " +
			"empty chunks, messages encoded twice, serialized messages and judged noise become quality_review tasks " +
			"(memory_list_maintenance_tasks), grouped with a triage. Enhanced mode: status disabled unless [qualityAudit] is enabled.",
	}, handler(a.AuditQuality))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolReviewCluster, Annotations: readOnly,
		InputSchema: inputSchema[ReviewClusterIn](func(p map[string]*jsonschema.Schema) { p["clusterId"].Pattern = `^[0-9a-f]{10}$` }),
		Description: "Ask the judge which ingestion defect (wrapper, encoding, boilerplate) marks a cluster's sampled members: " +
			"its most central and its weakest. Defects flagged on two members or more are recurring. Writes nothing; " +
			"unavailable when the run is stale or the index changed during the review.",
	}, handler(a.ReviewCluster))
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolReviewClaim, Annotations: readOnly,
		InputSchema: inputSchema[ReviewClaimIn](func(p map[string]*jsonschema.Schema) {
			p["claim"].MinLength, p["claim"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(engine.MaxClaimChars)
			p["citations"].MinItems, p["citations"].MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(engine.MaxCitations)
			it := p["citations"].Items.Properties
			rangeOf(it["from"], 1, 0, nil)
			rangeOf(it["lines"], 1, engine.MaxCitationLines, nil)
			it["path"].MaxLength = jsonschema.Ptr(engine.MaxCitationPathChars)
		}),
		Description: "Check a claim against the lines cited for it (cairn:// paths from memory_search): the judge answers supports, " +
			"contradicts or insufficient_evidence with its confidence; needsReview unless it supports with confidence 0.9 or more. " +
			"Writes nothing; unavailable when a cited document changed during the review.",
	}, handler(a.ReviewClaim))
}

// curationDiag fills C16's enabled flags of the judged curation tools:
// on when the table enables them and a judge with a usable key serves them.
func (a *Agent) curationDiag(out *DiagnosticsOut) {
	c := a.Curation
	if c == nil {
		return
	}
	if status, _ := c.gate(c.AuditEnabled); status == "" {
		out.Enabled.QualityAudit = true
	}
	if status, _ := c.gate(c.ReviewEnabled); status == "" {
		out.Enabled.EvidenceReview = true
	}
}
