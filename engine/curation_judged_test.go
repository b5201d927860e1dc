package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
)

// fakeJudge is a hand-written fake of the judge: answer decides each
// judgment from the rubric and the state, and every request is kept.
type fakeJudge struct {
	mu     sync.Mutex
	reqs   []*judge.Request
	answer func(req *judge.Request) (map[string]judge.Answer, error)
}

func (f *fakeJudge) Policy(r *judge.Rubric) string { return "fake:" + r.ID }

func (f *fakeJudge) Ask(_ context.Context, req *judge.Request) (*judge.Judgment, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	a, err := f.answer(req)
	if err != nil {
		return nil, err
	}
	return &judge.Judgment{Policy: f.Policy(req.Rubric), Answers: a}, nil
}

func (f *fakeJudge) requests() []*judge.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*judge.Request(nil), f.reqs...)
}

func yesNo(p float64) judge.Answer { return judge.Answer{Kind: judge.Binary, P: p} }

func choice(label string, p float64) judge.Answer {
	return judge.Answer{Kind: judge.Choice, Choice: label, Confidence: p, Probabilities: map[string]float64{label: p}}
}

// chunkText is the text of the one chunk in a quality request.
func chunkText(req *judge.Request) string {
	return req.State.(map[string]any)["chunks"].([]map[string]string)[0]["text"]
}

// qualityAnswers: "debris" is noise, "decided" is evidence, "boom" fails.
func qualityAnswers(req *judge.Request) (map[string]judge.Answer, error) {
	text := chunkText(req)
	if strings.Contains(text, "boom") {
		return nil, &judge.Error{Code: judge.CodeTimeout, Policy: "fake:" + req.Rubric.ID}
	}
	noise, evidence := 0.1, 0.1
	if strings.Contains(text, "debris") {
		noise = 0.95
	}
	if strings.Contains(text, "decided") {
		evidence = 0.9
	}
	return map[string]judge.Answer{"noise_0": yesNo(noise), "evidence_0": yesNo(evidence)}, nil
}

func TestAuditQuality(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a-plain.md":      "# Plain\n\nWe decided to keep the garden.\n",
		"b-encoded.md":    `"{\"role\":\"user\",\"content\":\"hello\"}"` + "\n",
		"c-serialized.md": `{"role":"assistant","content":"debris"}` + "\n",
		"d-noise.md":      "# Log\n\ndebris debris, but we decided on Tuesday\n",
		"e-fails.md":      "# Later\n\nboom\n",
		"f-last.md":       "# Last\n\nquiet note\n",
	}, Options{})
	f.sync()
	j := &fakeJudge{answer: qualityAnswers}
	o := AuditOptions{Judge: j, Corpora: []string{"notes"}, MinNoise: DefaultMinNoise, Limit: 2}
	first, err := f.eng.AuditQuality(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != "ok" || first.Done || first.Scanned != 2 || first.Judged != 2 || first.Next == nil || first.Policy != "fake:quality-v3-isolated" {
		t.Fatalf("first page: %+v", first)
	}
	for _, r := range j.requests() {
		st := r.State.(map[string]any)["chunks"].([]map[string]string)
		if r.Rubric != judge.QualityIsolated || len(st) != 1 || st[0]["sourceKind"] != "files" {
			t.Errorf("request %+v", r)
		}
	}
	o.After = first.Next
	second, err := f.eng.AuditQuality(ctx, o)
	if err != nil || second.Status != "ok" || second.Flagged != 2 || second.Scanned != 2 {
		t.Fatalf("second page: %+v, %v", second, err)
	}
	o.After = second.Next
	third, err := f.eng.AuditQuality(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	// e-fails.md's judgment times out: the page stops before it, the
	// cursor stays at the last completed occurrence (second.Next).
	if third.Status != "partial" || third.Scanned != 0 || third.Done || third.Next == nil || *third.Next != *second.Next || !strings.Contains(third.Error, "timeout") {
		t.Fatalf("page with a failing judgment: %+v", third)
	}
	j.answer = func(req *judge.Request) (map[string]judge.Answer, error) {
		return map[string]judge.Answer{"noise_0": yesNo(0.1), "evidence_0": yesNo(0.5)}, nil
	}
	o.After = third.Next
	fourth, err := f.eng.AuditQuality(ctx, o)
	if err != nil || fourth.Status != "ok" || !fourth.Done || fourth.Next != nil || fourth.Scanned != 2 {
		t.Fatalf("resumed page: %+v, %v", fourth, err)
	}
	ts, err := f.eng.ListTasks(ctx, cairn.TaskPending, MaxTaskList)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]Task{}
	for _, tk := range ts {
		reasons[tk.Reason] = tk
	}
	enc, ser, noise := reasons[ReasonDoubleEncoded], reasons[ReasonSerialized], reasons[ReasonIngestionNoise]
	if enc.Path != "b-encoded.md" || enc.Detail["indicator"] != "deterministic_encoding" || enc.IndexPresence != "present_in_index" ||
		ser.Path != "c-serialized.md" || noise.Path != "d-noise.md" || noise.Detail["triage"] != TriagePreserve || len(ts) != 3 {
		t.Fatalf("quality tasks: %+v", ts)
	}
	// The urgent one (evidence in debris) comes first.
	if ts[0].ID != noise.ID {
		t.Errorf("first task %s, want the preserve_evidence_repair one %s", ts[0].Path, noise.Path)
	}
	if len(fourth.Groups) != 3 || fourth.Groups[0].Triage != TriagePreserve || fourth.Groups[0].Pending != 1 || len(fourth.Groups[0].Examples) != 1 {
		t.Errorf("groups: %+v", fourth.Groups)
	}
	// From the start again: every judged chunk comes from the cache.
	before := len(j.requests())
	again, err := f.eng.AuditQuality(ctx, AuditOptions{Judge: j, Corpora: []string{"notes"}, MinNoise: DefaultMinNoise, Limit: 20})
	if err != nil || again.Cached != 6 || again.Judged != 0 || len(j.requests()) != before || !again.Done {
		t.Errorf("audit again: %+v, %v; %d new requests", again, err, len(j.requests())-before)
	}
	f.write("d-noise.md", "# Log\n\nclean now\n")
	f.sync()
	ts, _ = f.eng.ListTasks(ctx, cairn.TaskPending, MaxTaskList)
	for _, tk := range ts {
		if tk.Path == "d-noise.md" && tk.IndexPresence != "not_present_in_index" {
			t.Errorf("after the source was fixed: %+v", tk)
		}
	}
	if _, err := f.eng.AuditQuality(ctx, AuditOptions{Judge: j, Corpora: []string{"notes"}, Limit: 21}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("limit 21: %v", err)
	}
}

func TestReviewCluster(t *testing.T) {
	ctx := context.Background()
	f := reclusterFixture(t)
	if _, err := f.eng.Recluster(ctx, smallClusters()); err != nil {
		t.Fatal(err)
	}
	l, _ := f.eng.ListClusters(ctx, 0)
	j := &fakeJudge{answer: func(req *judge.Request) (map[string]judge.Answer, error) {
		text := req.State.(map[string]any)["members"].([]map[string]string)[0]["text"]
		if req.Rubric != judge.ClusterDefects {
			return nil, errors.New("wrong rubric")
		}
		if strings.Contains(text, "garden") || strings.Contains(text, "budget") || strings.Contains(text, "support") {
			return map[string]judge.Answer{"member_0": choice("boilerplate", 0.95)}, nil
		}
		return map[string]judge.Answer{"member_0": choice("none_or_uncertain", 0.6)}, nil
	}}
	c := l.Clusters[0]
	r, err := f.eng.ReviewCluster(ctx, j, []string{"notes"}, c.ClusterID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "ok" || r.Sampled < 3 || r.Sampled > 6 || r.Sampled != len(j.requests()) || r.ClusterSize != c.Size || r.Considered < r.Sampled {
		t.Fatalf("review: %+v", r)
	}
	flagged := 0
	for _, m := range r.Members {
		if m.Flagged {
			flagged++
		}
		if m.From < 1 || !strings.HasPrefix(m.Path, "cairn://notes/") || m.Fingerprint == "" {
			t.Errorf("member %+v", m)
		}
	}
	if flagged < 2 || len(r.Recurring) != 1 || r.Recurring[0].Defect != "boilerplate" {
		t.Errorf("flagged %d, recurring %+v", flagged, r.Recurring)
	}
	if r, err := f.eng.ReviewCluster(ctx, j, []string{"other"}, c.ClusterID); err != nil || r.Sampled != 0 {
		t.Errorf("review outside the approved corpora: %+v, %v", r, err)
	}
	// The index changes while the judge answers: the review is unavailable.
	changing := &fakeJudge{answer: func(req *judge.Request) (map[string]judge.Answer, error) {
		return map[string]judge.Answer{"member_0": choice("wrapper", 0.99)}, nil
	}}
	var once sync.Once
	inner := changing.answer
	changing.answer = func(req *judge.Request) (map[string]judge.Answer, error) {
		once.Do(func() { f.write("t0/late.md", "# Late\n\ngarden late\n"); f.sync() })
		return inner(req)
	}
	if r, err := f.eng.ReviewCluster(ctx, changing, []string{"notes"}, c.ClusterID); err != nil || r.Status != "unavailable" || r.Reason == "" {
		t.Errorf("review while the index changed: %+v, %v", r, err)
	}
	if r, err := f.eng.ReviewCluster(ctx, j, []string{"notes"}, c.ClusterID); err != nil || r.Status != "unavailable" {
		t.Errorf("review of a stale run: %+v, %v", r, err)
	}
}

func TestReviewClaim(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# Deploys\n\nDeploys run every Friday.\nThe staging cluster is in Frankfurt.\n"}, Options{})
	f.sync()
	supports := &fakeJudge{answer: func(req *judge.Request) (map[string]judge.Answer, error) {
		st := req.State.(map[string]any)
		if req.Rubric != judge.Claim || st["claim"] != "Deploys are on Fridays" || len(st["evidence"].([]string)) != 1 {
			return nil, errors.New("unexpected request")
		}
		return map[string]judge.Answer{"relation": choice("supports", 0.96)}, nil
	}}
	cite := []Citation{{Path: "cairn://notes/a.md", From: 3, Lines: 1}}
	r, err := f.eng.ReviewClaim(ctx, supports, []string{"notes"}, "Deploys are on Fridays", cite)
	if err != nil || r.Status != "ok" || r.Verdict != "supports" || r.NeedsReview || len(r.Evidence) != 1 || r.Evidence[0].ExcerptHash != sha256Hex("Deploys run every Friday.\n") {
		t.Fatalf("claim: %+v, %v", r, err)
	}
	if got := supports.requests()[0].State.(map[string]any)["evidence"].([]string)[0]; got != "Deploys run every Friday.\n" {
		t.Errorf("evidence sent: %q", got)
	}
	for _, c := range []struct {
		cites []Citation
		want  string
	}{
		{[]Citation{{Path: "cairn://other/a.md", From: 1, Lines: 1}}, "outside"},
		{[]Citation{{Path: "cairn://notes/none.md", From: 1, Lines: 1}}, "not indexed"},
		{[]Citation{{Path: "cairn://notes/a.md", From: 40, Lines: 1}}, "past the end"},
		{[]Citation{{Path: "cairn://notes/a.md", From: 2, Lines: 1}}, "empty"},
	} {
		r, err := f.eng.ReviewClaim(ctx, supports, []string{"notes"}, "Deploys are on Fridays", c.cites)
		if err != nil || r.Status != "unavailable" || !r.NeedsReview || !strings.Contains(r.Reason, c.want) {
			t.Errorf("cites %+v: %+v, %v; want unavailable %q", c.cites, r, err, c.want)
		}
	}
	for _, c := range []struct {
		claim string
		cites []Citation
	}{
		{"  ", cite}, {strings.Repeat("x", 2001), cite}, {"x", nil}, {"x", append(cite, cite[0], cite[0], cite[0])},
		{"x", []Citation{{Path: "notes/a.md", From: 1, Lines: 1}}}, {"x", []Citation{{Path: "cairn://notes/a.md", From: 0, Lines: 1}}},
		{"x", []Citation{{Path: "cairn://notes/a.md", From: 1, Lines: 121}}},
	} {
		if _, err := f.eng.ReviewClaim(ctx, supports, []string{"notes"}, c.claim, c.cites); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("claim %.20q cites %+v: %v, want ErrInvalid", c.claim, c.cites, err)
		}
	}
	changing := &fakeJudge{answer: func(req *judge.Request) (map[string]judge.Answer, error) {
		f.write("a.md", "# Deploys\n\nDeploys run every Monday.\nThe staging cluster is in Frankfurt.\n")
		f.sync()
		return map[string]judge.Answer{"relation": choice("supports", 0.99)}, nil
	}}
	if r, err := f.eng.ReviewClaim(ctx, changing, []string{"notes"}, "Deploys are on Fridays", cite); err != nil || r.Status != "unavailable" ||
		!strings.Contains(r.Reason, "changed") || r.Verdict != "" {
		t.Errorf("claim whose document changed during the review: %+v, %v", r, err)
	}
}
