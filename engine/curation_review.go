package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
)

// Judged reviews (C26, C27): a cluster's sampled members judged for
// ingestion defects, and a claim judged against the passages cited for
// it. Neither writes anything.

// Limits of the reviews.
const (
	reviewPerSort        = 3    // members sampled from each of two orders
	maxReviewChunkChars  = 2000 // a sampled member's text
	reviewConcurrency    = 6
	reviewFlagConfidence = 0.9
	MaxClaimChars        = 2000
	MaxCitations         = 3
	MaxCitationLines     = 120
	MaxCitationPathChars = 2000
	MaxEvidenceChars     = 6000
	claimConfidence      = 0.9
)

// ReviewedMember is one sampled member and its judged defect.
type ReviewedMember struct {
	Path        string  `json:"path"`
	Hash        string  `json:"hash"`
	Seq         int     `json:"seq"`
	From        int     `json:"from" jsonschema:"the chunk's first line in path"`
	Fingerprint string  `json:"fingerprint"`
	Defect      string  `json:"defect" jsonschema:"wrapper, encoding, boilerplate or none_or_uncertain"`
	Confidence  float64 `json:"confidence"`
	Flagged     bool    `json:"flagged" jsonschema:"a defect other than none_or_uncertain with confidence >= 0.9"`
}

// RecurringDefect is a defect flagged on two members or more.
type RecurringDefect struct {
	Defect   string   `json:"defect"`
	Examples []string `json:"examples" jsonschema:"paths of flagged members"`
}

// ClusterReview is ReviewCluster's answer.
type ClusterReview struct {
	Status      string            `json:"status" jsonschema:"ok, not_found, not_analyzed or unavailable (see reason)"`
	Reason      string            `json:"reason,omitempty"`
	RunID       string            `json:"runId,omitempty"`
	ClusterID   string            `json:"clusterId"`
	Members     []ReviewedMember  `json:"members"`
	Recurring   []RecurringDefect `json:"recurring"`
	Sampled     int               `json:"sampled"`
	Considered  int               `json:"considered"`
	ClusterSize int               `json:"clusterSize"`
	Policy      string            `json:"policy"`
	Scope       AuditScope        `json:"scope"`
}

// sampled is a member chosen for review with its source and text.
type sampled struct {
	m      *fetchMember
	src    cairn.ChunkSource
	from   int
	defect string
	conf   float64
	err    error
}

// ReviewCluster samples a cluster of a fresh run (the top members by
// representativeness and the weakest by score, within the approved
// corpora, whole chunks of at most 2,000 characters), asks one judgment
// per member (at most six at a time), and checks that the run, the scope
// and every fingerprint held meanwhile; otherwise it is unavailable.
func (e *Engine) ReviewCluster(ctx context.Context, j Judge, corpora []string, clusterID string) (*ClusterReview, error) {
	ctx, cancel := context.WithTimeout(ctx, CurationDeadline)
	defer cancel()
	if !clusterIDPattern.MatchString(clusterID) {
		return nil, cairn.Invalidf("clusterId %q: want 10 lowercase hex digits (from memory_list_clusters)", clusterID)
	}
	if err := canReadAll(ctx, corpora); err != nil { // scope.go
		return nil, err
	}
	out := &ClusterReview{Status: "ok", ClusterID: clusterID, Members: []ReviewedMember{}, Recurring: []RecurringDefect{},
		Policy: j.Policy(judge.ClusterDefects), Scope: AuditScope{Corpora: corpora}}
	picks, run, size, status, err := e.sampleCluster(ctx, corpora, clusterID)
	if err != nil || status != "" {
		out.Status, out.Reason = status, reasonOf(status)
		return out, err
	}
	out.RunID, out.ClusterSize = run, size
	out.Considered = picks.considered
	var wg sync.WaitGroup
	sem := make(chan struct{}, reviewConcurrency)
	for _, p := range picks.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			got, err := j.Ask(ctx, &judge.Request{Rubric: judge.ClusterDefects, State: map[string]any{"members": []map[string]string{{"text": p.m.text}}}})
			if err != nil {
				p.err = err
				return
			}
			a := got.Answers["member_0"]
			p.defect, p.conf = a.Choice, a.Confidence
		}()
	}
	wg.Wait()
	for _, p := range picks.members {
		if p.err != nil {
			out.Status, out.Reason = "unavailable", "judge: "+p.err.Error()
			return out, nil
		}
	}
	if why, err := e.reviewHeld(ctx, run, clusterID, picks.members); err != nil || why != "" {
		out.Status, out.Reason = "unavailable", why
		return out, err
	}
	counts := map[string][]string{}
	for _, p := range picks.members {
		rm := ReviewedMember{Path: cairnPath(p.src.Corpus, p.src.Path), Hash: p.m.Hash, Seq: p.m.Seq, From: p.from, Fingerprint: p.m.fp,
			Defect: p.defect, Confidence: round4(p.conf)}
		rm.Flagged = p.defect != "none_or_uncertain" && p.conf >= reviewFlagConfidence
		if rm.Flagged {
			counts[p.defect] = append(counts[p.defect], rm.Path)
		}
		out.Members = append(out.Members, rm)
	}
	for _, d := range judge.ClusterDefects.Questions[0].Options {
		if len(counts[d]) >= 2 {
			out.Recurring = append(out.Recurring, RecurringDefect{Defect: d, Examples: counts[d][:min(3, len(counts[d]))]})
		}
	}
	out.Sampled = len(out.Members)
	return out, nil
}

func reasonOf(status string) string {
	switch status {
	case "not_analyzed":
		return hintNotAnalyzed
	case "not_found":
		return "no such cluster in the latest run: cluster ids change with every recluster; list them again"
	case "unavailable":
		return "the run is stale: recluster (memory_recluster) and review again"
	}
	return ""
}

type picks struct {
	members    []*sampled
	considered int
}

// sampleCluster picks the members to review; status is non-empty when
// there is nothing to review (not_analyzed, not_found, unavailable).
func (e *Engine) sampleCluster(ctx context.Context, corpora []string, ref string) (picks, string, int, string, error) {
	var p picks
	run, err := e.validRun(ctx)
	if err != nil || run == nil {
		return p, "", 0, "not_analyzed", err
	}
	if !run.StaleAt.IsZero() {
		return p, run.ID, 0, "unavailable", nil
	}
	c, err := e.clusterByRef(ctx, run.ID, ref)
	if err != nil || c == nil {
		return p, run.ID, 0, "not_found", err
	}
	ms, err := e.store.AnalysisMembers(ctx, cairn.MemberQuery{RunID: run.ID, Cluster: c.ID, Corpora: readList(ctx)})
	if err != nil {
		return p, "", 0, "", err
	}
	all := make([]*fetchMember, len(ms))
	for i := range ms {
		all[i] = &fetchMember{AnalysisMember: ms[i]}
	}
	var order []*fetchMember
	for _, sort := range []string{SortRepresentative, SortScoreAsc} {
		sortMembers(all, sort, c.ID < 0)
		order = append(order, all[:min(reviewPerSort, len(all))]...)
	}
	seen := map[cairn.ChunkKey]bool{}
	var cand []*fetchMember
	for _, m := range order {
		k := cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq}
		if !seen[k] {
			seen[k] = true
			cand = append(cand, m)
		}
	}
	p.considered = len(cand)
	if err := e.withTexts(ctx, cand); err != nil {
		return p, "", 0, "", err
	}
	for _, m := range cand {
		i := slices.IndexFunc(m.Sources, func(s cairn.ChunkSource) bool { return slices.Contains(corpora, s.Corpus) })
		if i < 0 || m.text == "" || utf8.RuneCountInString(m.text) > maxReviewChunkChars {
			continue
		}
		from, err := e.chunkLine(ctx, m.Sources[i], m.Hash, m.Seq)
		if err != nil {
			return p, "", 0, "", err
		}
		p.members = append(p.members, &sampled{m: m, src: m.Sources[i], from: from})
	}
	return p, run.ID, c.Size, "", nil
}

// chunkLine is the first line of a chunk in a document (0 when it is not
// there any more).
func (e *Engine) chunkLine(ctx context.Context, src cairn.ChunkSource, hash string, seq int) (int, error) {
	occ, err := e.store.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{src.Corpus}, Path: src.Path, AfterSeq: seq - 1, Limit: 1})
	if err != nil || len(occ) == 0 || occ[0].Hash != hash || occ[0].Seq != seq {
		return 0, err
	}
	return occ[0].StartLine, nil
}

// reviewHeld checks, after the judgments, that the run is still the
// latest and fresh and that each member's chunk still has the text judged.
func (e *Engine) reviewHeld(ctx context.Context, runID, ref string, ps []*sampled) (string, error) {
	ctx = context.WithoutCancel(ctx)
	run, err := e.validRun(ctx)
	if err != nil {
		return "", err
	}
	if run == nil || run.ID != runID || !run.StaleAt.IsZero() {
		return "the index or the clustering changed during the review: review again", nil
	}
	var keys []cairn.ChunkKey
	for _, p := range ps {
		keys = append(keys, cairn.ChunkKey{Hash: p.m.Hash, Seq: p.m.Seq})
	}
	texts, err := e.store.ChunkKeyTexts(ctx, keys)
	if err != nil {
		return "", err
	}
	for _, p := range ps {
		if fingerprint(texts[cairn.ChunkKey{Hash: p.m.Hash, Seq: p.m.Seq}]) != p.m.fp {
			return "a sampled member changed during the review: review again", nil
		}
	}
	return "", nil
}

// Citation is one passage cited for a claim.
type Citation struct {
	Path  string `json:"path" jsonschema:"cairn://<corpus>/<path> of an indexed document"`
	From  int    `json:"from" jsonschema:"first line, from 1"`
	Lines int    `json:"lines" jsonschema:"lines to read, 1 to 120"`
}

// CitedEvidence is a citation as read.
type CitedEvidence struct {
	Path         string `json:"path"`
	From         int    `json:"from"`
	Lines        int    `json:"lines"`
	DocumentHash string `json:"documentHash"`
	ExcerptHash  string `json:"excerptHash"`
}

// ClaimReview is ReviewClaim's answer.
type ClaimReview struct {
	Status        string             `json:"status" jsonschema:"ok or unavailable (see reason)"`
	Verdict       string             `json:"verdict,omitempty" jsonschema:"supports, contradicts or insufficient_evidence"`
	Confidence    float64            `json:"confidence"`
	Probabilities map[string]float64 `json:"probabilities,omitempty"`
	NeedsReview   bool               `json:"needsReview" jsonschema:"the verdict is not supports, or its confidence is below 0.9"`
	Evidence      []CitedEvidence    `json:"evidence"`
	Policy        string             `json:"policy"`
	Scope         AuditScope         `json:"scope"`
	Reason        string             `json:"reason,omitempty"`
}

// CheckClaim validates a claim and its citations (C27's limits).
func CheckClaim(claim string, cites []Citation) error {
	switch {
	case strings.TrimSpace(claim) == "":
		return cairn.Invalidf("claim is blank: give the statement to check")
	case utf8.RuneCountInString(claim) > MaxClaimChars:
		return cairn.Invalidf("claim has %d characters: allowed at most %d", utf8.RuneCountInString(claim), MaxClaimChars)
	case len(cites) < 1 || len(cites) > MaxCitations:
		return cairn.Invalidf("citations: %d given, allowed 1 to %d", len(cites), MaxCitations)
	}
	for i, c := range cites {
		switch {
		case !strings.HasPrefix(c.Path, "cairn://") || utf8.RuneCountInString(c.Path) > MaxCitationPathChars:
			return cairn.Invalidf("citations[%d].path %.80q: want a cairn:// path of at most %d characters", i, c.Path, MaxCitationPathChars)
		case c.From < 1:
			return cairn.Invalidf("citations[%d].from %d out of range: allowed 1 or more", i, c.From)
		case c.Lines < 1 || c.Lines > MaxCitationLines:
			return cairn.Invalidf("citations[%d].lines %d out of range: allowed 1 to %d", i, c.Lines, MaxCitationLines)
		}
	}
	return nil
}

// ReviewClaim reads the cited lines from the indexed documents of the
// approved corpora, asks one judgment of the claim against them, and
// checks that no cited document changed meanwhile (else unavailable:
// retry). It never writes.
func (e *Engine) ReviewClaim(ctx context.Context, j Judge, corpora []string, claim string, cites []Citation) (*ClaimReview, error) {
	if err := CheckClaim(claim, cites); err != nil {
		return nil, err
	}
	if err := canReadAll(ctx, corpora); err != nil { // scope.go
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, CurationDeadline)
	defer cancel()
	out := &ClaimReview{Status: "ok", Evidence: []CitedEvidence{}, Policy: j.Policy(judge.Claim), Scope: AuditScope{Corpora: corpora}}
	unavailable := func(reason string) (*ClaimReview, error) {
		out.Status, out.NeedsReview, out.Reason, out.Evidence = "unavailable", true, reason, []CitedEvidence{}
		return out, nil
	}
	texts, evidence, reason, err := e.readCitations(ctx, corpora, cites)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return unavailable(reason)
	}
	got, err := j.Ask(ctx, &judge.Request{Rubric: judge.Claim, State: map[string]any{"claim": claim, "evidence": texts}})
	if err != nil {
		return unavailable("judge: " + err.Error())
	}
	_, after, _, err := e.readCitations(context.WithoutCancel(ctx), corpora, cites)
	if err != nil {
		return nil, err
	}
	if !sameHashes(evidence, after) {
		return unavailable("a cited document changed during the review: read it again and retry")
	}
	a := got.Answers["relation"]
	out.Verdict, out.Confidence, out.Probabilities, out.Evidence = a.Choice, round4(a.Confidence), a.Probabilities, evidence
	out.NeedsReview = a.Choice != "supports" || a.Confidence < claimConfidence
	return out, nil
}

func sameHashes(a, b []CitedEvidence) bool {
	return slices.EqualFunc(a, b, func(x, y CitedEvidence) bool { return x.DocumentHash == y.DocumentHash })
}

// readCitations reads each cited range of an indexed document; reason
// says why a citation cannot be used (C27).
func (e *Engine) readCitations(ctx context.Context, corpora []string, cites []Citation) ([]string, []CitedEvidence, string, error) {
	var texts []string
	var ev []CitedEvidence
	total := 0
	for i, c := range cites {
		rest := strings.TrimPrefix(c.Path, "cairn://")
		corpus, path, ok := strings.Cut(rest, "/")
		at := slices.IndexFunc(corpora, func(n string) bool { return strings.EqualFold(n, corpus) })
		if !ok || path == "" || at < 0 {
			return nil, nil, fmt.Sprintf("citations[%d]: %s is outside the corpora evidence review may read (%s)", i, c.Path, strings.Join(corpora, ", ")), nil
		}
		corpus = corpora[at]
		doc, err := e.store.DocumentText(ctx, corpus, path)
		if errors.Is(err, cairn.ErrNotFound) {
			return nil, nil, fmt.Sprintf("citations[%d]: %s is not indexed", i, c.Path), nil
		}
		if err != nil {
			return nil, nil, "", err
		}
		lines := strings.SplitAfter(doc, "\n")
		if n := len(lines); n > 0 && lines[n-1] == "" {
			lines = lines[:n-1]
		}
		if c.From > len(lines) {
			return nil, nil, fmt.Sprintf("citations[%d]: from %d is past the end of %s (%d lines)", i, c.From, c.Path, len(lines)), nil
		}
		excerpt := strings.Join(lines[c.From-1:min(len(lines), c.From-1+c.Lines)], "")
		if strings.TrimSpace(excerpt) == "" {
			return nil, nil, fmt.Sprintf("citations[%d]: lines %d to %d of %s are empty", i, c.From, c.From+c.Lines-1, c.Path), nil
		}
		total += utf8.RuneCountInString(excerpt)
		if total > MaxEvidenceChars {
			return nil, nil, fmt.Sprintf("the cited evidence holds more than %d characters: cite fewer lines", MaxEvidenceChars), nil
		}
		texts = append(texts, excerpt)
		ev = append(ev, CitedEvidence{Path: cairnPath(corpus, path), From: c.From, Lines: c.Lines, DocumentHash: sha256Hex(doc), ExcerptHash: sha256Hex(excerpt)})
	}
	return texts, ev, "", nil
}
