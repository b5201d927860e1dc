package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
	"github.com/cairnmemory/cairn/engine"
)

// cairn clusters rebuild|list|show: the clustering of C17 to C20 from the
// command line, over the same engine calls as the MCP tools.

func clustersRebuild(ctx context.Context, e *env, args []string) error {
	fs := e.flags("clusters rebuild")
	method := fs.String("method", "", "space: umap (default) or none (the vectors themselves)")
	nComponents := fs.Int("n-components", 0, "UMAP dimensions, 2 to 100 (default 25)")
	nNeighbors := fs.Int("n-neighbors", 0, "UMAP neighbours, 2 to 200 (default 15)")
	minDist := fs.Float64("min-dist", cluster.DefaultMinDist, "UMAP minimum distance, 0 to 1")
	minCluster := fs.Int("min-cluster-size", 0, "smallest cluster, 2 to 100000 (default min(150, max(15, round(0.005 N))))")
	minSamples := fs.Int("min-samples", 0, "HDBSCAN min samples, 1 to 100000 (default min(10, min-cluster-size))")
	selection := fs.String("selection", "", "cluster selection: eom (default) or leaf")
	epsilon := fs.Float64("epsilon", 0, "cluster selection epsilon, 0 or more")
	single := fs.Bool("allow-single-cluster", false, "let one cluster of everything be the answer")
	seed := fs.Int64("seed", cluster.DefaultSeed, "random seed, 0 to 4294967295")
	var corpora stringList
	fs.Var(&corpora, "corpus", "cluster only this corpus (repeatable; default every files and sessions corpus; memories only when named)")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("clusters rebuild", pos); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o := &engine.ReclusterOptions{Corpora: corpora}
	c := &o.Cluster
	c.Space.Method, c.HDBSCAN.ClusterSelectionMethod = *method, *selection
	c.HDBSCAN.ClusterSelectionEpsilon, c.HDBSCAN.AllowSingleCluster = *epsilon, *single
	if err := checkRebuildFlags(*method, *selection, *minDist, *epsilon, *seed); err != nil {
		return err
	}
	if set["min-dist"] {
		c.Space.MinDist = minDist
	}
	if set["seed"] {
		c.Seed = seed
	}
	for _, f := range []struct {
		name   string
		v      int
		lo, hi int
		dst    *int
	}{
		{"n-components", *nComponents, cluster.MinComponents, cluster.MaxComponents, &c.Space.NComponents},
		{"n-neighbors", *nNeighbors, cluster.MinNeighbors, cluster.MaxNeighbors, &c.Space.NNeighbors},
		{"min-cluster-size", *minCluster, cluster.MinClusterSizeMin, cluster.MinClusterSizeMax, &c.HDBSCAN.MinClusterSize},
		{"min-samples", *minSamples, cluster.MinSamplesMin, cluster.MinSamplesMax, &c.HDBSCAN.MinSamples},
	} {
		if set[f.name] && (f.v < f.lo || f.v > f.hi) {
			return usagef("--%s %d: allowed %d to %d", f.name, f.v, f.lo, f.hi)
		}
		*f.dst = f.v
	}
	if err := c.Validate(); err != nil {
		return usagef("clusters rebuild: %v", err)
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	// Progress as sync shows it: a bar on a terminal, a line every 5 s
	// elsewhere, nothing with --json.
	bar := newProgress(e.stderr, !e.json)
	bar.label = clusterLabel
	c.Progress = func(s cluster.Step) {
		bar.update(cairn.ProgressEvent{Corpus: s.Phase, Done: s.Done, Total: s.Total})
	}
	run, err := eng.Recluster(ctx, o)
	bar.done()
	if errors.Is(err, cairn.ErrInvalid) {
		return usagef("clusters rebuild: %v", err)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(run)
	}
	fmt.Fprintf(e.stdout, "run %s: %d clusters, %d chunks (%d noise), model %s, %d dimensions\n",
		run.RunID, run.Clusters, run.Members, run.Noise, run.Model, run.Dimensions)
	return nil
}

// checkRebuildFlags checks the flags that are not integer ranges, naming
// the flag in the CLI's style ("--seed -1: allowed 0 to 4294967295"); the
// library's own check (cluster.Options.Validate) names the option fields
// as MCP's memory_recluster takes them.
func checkRebuildFlags(method, selection string, minDist, epsilon float64, seed int64) error {
	switch {
	case method != "" && method != cluster.MethodUMAP && method != cluster.MethodNone:
		return usagef("--method %q: allowed %s, %s", method, cluster.MethodUMAP, cluster.MethodNone)
	case selection != "" && selection != cluster.SelectEOM && selection != cluster.SelectLeaf:
		return usagef("--selection %q: allowed %s, %s", selection, cluster.SelectEOM, cluster.SelectLeaf)
	case !(minDist >= 0 && minDist <= 1): // NaN fails both
		return usagef("--min-dist %v: allowed 0 to 1", minDist)
	case !(epsilon >= 0) || math.IsInf(epsilon, 1):
		return usagef("--epsilon %v: allowed 0 or more (finite)", epsilon)
	case seed < 0 || seed > cluster.MaxSeed:
		return usagef("--seed %d: allowed 0 to %d", seed, cluster.MaxSeed)
	}
	return nil
}

func clustersList(ctx context.Context, e *env, args []string) error {
	fs := e.flags("clusters list")
	limit := fs.Int("limit", engine.DefaultClusterList, fmt.Sprintf("clusters to list, 1 to %d, largest first", engine.MaxClusterList))
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("clusters list", pos); err != nil {
		return err
	}
	if *limit < 1 || *limit > engine.MaxClusterList {
		return usagef("--limit %d: allowed 1 to %d", *limit, engine.MaxClusterList)
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	l, err := eng.ListClusters(ctx, *limit)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(l)
	}
	if l.Status != "ok" {
		fmt.Fprintln(e.stdout, "no clusters yet: run cairn clusters rebuild")
		return nil
	}
	if l.Stale {
		// The engine's hint names the MCP tool (memory_recluster), as MCP
		// clients read it; on the command line the command is named.
		fmt.Fprintf(e.stdout, "stale since %s: the index changed since this run; run cairn clusters rebuild for current clusters\n", *l.StaleSince)
	}
	for _, c := range l.Clusters {
		preview := ""
		if c.Preview != nil {
			preview = firstLine(c.Preview.Text)
			if len(c.Preview.SourcePaths) > 0 {
				preview = c.Preview.SourcePaths[0] + "  " + preview
			}
		}
		fmt.Fprintf(e.stdout, "%s  %4d chunks (%d indexed)  p %.2f  %s\n", c.ClusterID, c.Size, c.AvailableSize, c.MeanProbability, preview)
	}
	if n := l.Noise; n != nil {
		fmt.Fprintf(e.stdout, "%s  %4d chunks in no cluster (noise)\n", n.ClusterID, n.Size)
	}
	return nil
}

// firstLine is the first non-blank line of s, cut to 100 characters.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 100 {
				return string(r[:99]) + "…"
			}
			return l
		}
	}
	return ""
}

func clustersShow(ctx context.Context, e *env, args []string) error {
	fs := e.flags("clusters show")
	topK := fs.Int("top-k", engine.DefaultFetchTopK, fmt.Sprintf("members per page, 1 to %d", engine.MaxFetchTopK))
	offset := fs.Int("offset", 0, "members to skip (a page's next offset)")
	sort := fs.String("sort", engine.SortRepresentative, "order: "+strings.Join(engine.FetchSorts, ", "))
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("clusters show needs one cluster ID (see cairn clusters list)")
	}
	// The flags are checked here, by their names; o.Check's errors name
	// the fields of MCP's memory_fetch_cluster.
	switch {
	case !engine.ValidClusterID(pos[0]):
		return usagef("cluster ID %q: allowed 10 lowercase hex digits (see cairn clusters list)", pos[0])
	case *topK < 1 || *topK > engine.MaxFetchTopK:
		return usagef("--top-k %d: allowed 1 to %d", *topK, engine.MaxFetchTopK)
	case *offset < 0:
		return usagef("--offset %d: allowed 0 or more", *offset)
	case !slices.Contains(engine.FetchSorts, *sort):
		return usagef("--sort %q: allowed %s", *sort, strings.Join(engine.FetchSorts, ", "))
	}
	o := engine.FetchClusterOptions{ClusterID: pos[0], TopK: *topK, Offset: *offset, Sort: *sort}
	if err := o.Check(); err != nil {
		return usagef("clusters show: %v", err)
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	p, err := eng.FetchCluster(ctx, o)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(p)
	}
	switch p.Status {
	case "not_analyzed":
		fmt.Fprintln(e.stdout, "no clusters yet: run cairn clusters rebuild")
		return nil
	case "not_found":
		return fmt.Errorf("show cluster %s: %w in run %s (cluster IDs change with every rebuild; list them again with cairn clusters list)",
			pos[0], cairn.ErrNotFound, p.RunID)
	}
	fmt.Fprintf(e.stdout, "cluster %s: %d chunks, members %d to %d by %s\n", p.Cluster.ClusterID, p.Page.Total, p.Page.Offset+1,
		p.Page.Offset+p.Page.Returned, o.Sort)
	for _, m := range p.Members {
		when := "no event time"
		if m.EventTime != nil {
			when = (*m.EventTime)[:10] + " (" + *m.EventTimeBasis + ")"
		}
		src := ""
		if len(m.SourcePaths) > 0 {
			src = m.SourcePaths[0]
		}
		fmt.Fprintf(e.stdout, "- %s  p %.2f  %s  %s\n  %s\n", src, m.Probability, when, m.ContentFingerprint[:min(12, len(m.ContentFingerprint))], firstLine(m.Text))
	}
	if p.Page.HasMore {
		fmt.Fprintf(e.stdout, "more: --offset %d\n", *p.Page.NextOffset)
	}
	return nil
}
