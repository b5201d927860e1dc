package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/mcpserver"
)

// curation is a server agent's judged curation (C25 to C27): the judge
// and the [qualityAudit] and [evidenceReview] gates. Without a judge the
// tools answer status disabled; with one whose key cannot be read,
// unavailable.
func (e *env) curation(cfg *config.Config, agent string) *mcpserver.Curation {
	jc := cfg.Judge
	qa := cfg.QualityAudit.Filled()
	c := &mcpserver.Curation{Credential: func() string { return judge.Credential(jc, os.Getenv) },
		AuditEnabled: qa.Enabled, AuditCorpora: qa.Corpora, MinNoise: qa.MinNoise,
		ReviewEnabled: cfg.EvidenceReview.Enabled, ReviewCorpora: cfg.EvidenceReview.Corpora}
	if !c.AuditEnabled && !c.ReviewEnabled {
		return c
	}
	j, err := judge.FromConfig(jc, os.Getenv)
	switch {
	case errors.Is(err, judge.ErrNotConfigured):
	case err != nil:
		fmt.Fprintf(e.stderr, "cairn: agent %s: judge for curation: %v\n", agent, err)
	default:
		c.Judge = j
	}
	return c
}
