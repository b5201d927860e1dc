package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

// LoCoMo categories under the paper's names.
var LocomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoQA struct {
	Question string          `json:"question"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
	Answer   json.RawMessage `json:"answer"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	Text        string `json:"text"`
	DiaID       string `json:"dia_id"`
	BlipCaption string `json:"blip_caption"`
}

type auditEntry struct {
	QuestionID      string   `json:"question_id"`
	Question        string   `json:"question"`
	CorrectEvidence []string `json:"correct_evidence"`
}

// auditFix is one correction: the question it is for, as the audit
// quotes it, and the evidence to score against.
type auditFix struct {
	question string
	evidence []string
}

// auditEvidence is the corrected evidence of question qi (0-based) of
// sample ci, if the audit has one. The audit's ids (locomo_<c>_qa<n>)
// number a sample's questions from 0 (all 95 entries of the development
// split's audit quote the question at index n, though its README says
// 1-based), so the entry under qi is taken when it quotes this question,
// else the one under qi+1 when that one does: a correction is never
// applied to a question it does not quote. Until 12-04 the entry under
// qi+1 was applied unchecked, so every correction scored the question
// before the one it was for.
func auditEvidence(audit map[string]auditFix, ci, qi int, question string) ([]string, bool) {
	for _, n := range []int{qi, qi + 1} {
		if f, ok := audit[fmt.Sprintf("locomo_%d_qa%d", ci, n)]; ok && sameQuestion(f.question, question) {
			return f.evidence, true
		}
	}
	return nil, false
}

// sameQuestion compares two quotes of a question, case and outer spaces
// aside.
func sameQuestion(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// LocomoOptions tune a LoCoMo run.
type LocomoOptions struct {
	Data               string // locomo JSON file
	Audit              string // optional audit corrections
	Mode               string // lexical (vector and hybrid need an embedder)
	IncludeAdversarial bool
	Dir                string // working data directory (a fresh temporary one when empty)
	Limit              int    // hits asked per question (default 50)
	// MinScore is the minimum calibrated score, as in cairn search
	// --min-score (0: none; cairn eval passes cairn.DefaultMinScore).
	MinScore float64
	// Embedder serves the vector and hybrid modes.
	Embedder cairn.Embedder
	// QA, when set, answers each question from the retrieved turns and
	// judges the answer against the gold one (LoCoMo's J score).
	QA cairn.LLM
	// Backend is the storage the run indexes into (nil: SQLite): what
	// bench/cmd/pgbench compares PostgreSQL's lexical lane with.
	Backend cairn.Backend
	// SettingDone, when set, is called by LocomoSweep with each setting's
	// questions as soon as the setting is scored (a long sweep shows its
	// results as they come).
	SettingDone func(setting int, qs []SweepQuestion)
	// KeepTurns has LocomoSweep keep every question's retrieved turns in
	// rank order (SweepQuestion.Turns), for reading where the misses are.
	KeepTurns bool
	// Asked, when set, is called by Locomo with each question it scores
	// (scores and the evidence turns' ranks; the turns too with
	// KeepTurns), for comparing two runs question by question.
	Asked func(SweepQuestion)
}

// Report is the result of a run. JSON names are fixed.
type Report struct {
	Dataset    string             `json:"dataset"`
	Mode       string             `json:"mode"`
	Questions  int                `json:"questions"`
	Metrics    Metrics            `json:"metrics"`
	ByCategory map[string]Metrics `json:"by_category"`
	Seconds    float64            `json:"seconds"`
	Skipped    int                `json:"skipped"`    // questions without resolvable evidence
	Unresolved int                `json:"unresolved"` // evidence ids that name no turn
	QA         *QAStats           `json:"qa,omitempty"`
}

// Locomo runs the LoCoMo evaluation.
func Locomo(ctx context.Context, o LocomoOptions) (*Report, error) {
	start := time.Now()
	if err := checkMode(&o.Mode, &o.Limit, o.Embedder); err != nil {
		return nil, err
	}
	samples, audit, err := loadLocomo(o)
	if err != nil {
		return nil, err
	}
	eng, closeEng, err := openEvalOn(ctx, o.Dir, o.Embedder, o.Backend)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	rep := &Report{Dataset: "locomo", Mode: o.Mode, ByCategory: map[string]Metrics{}}
	byCat := map[string][]Scores{}
	var all []Scores
	if o.QA != nil {
		rep.QA = &QAStats{}
	}
	for ci, sample := range samples {
		sessions, turns, texts, err := locomoSessions(sample)
		if err != nil {
			return nil, err
		}
		if _, err := eng.ImportSessions(ctx, "sessions", "locomo:"+sample.SampleID, sessions); err != nil {
			return nil, err
		}
		for qi, qa := range sample.QA {
			if qa.Category == 5 && !o.IncludeAdversarial || LocomoCategories[qa.Category] == "" {
				continue
			}
			evidence := qa.Evidence
			if fix, ok := auditEvidence(audit, ci, qi, qa.Question); ok {
				evidence = fix
			}
			ids, bad := resolveEvidence(evidence, turns)
			rep.Unresolved += bad
			if len(ids) == 0 {
				rep.Skipped++
				continue
			}
			got, err := retrieveTurns(ctx, eng, sample.SampleID, qa.Question, o.Mode, o.Limit, o.MinScore, locomoSession)
			if err != nil {
				return nil, fmt.Errorf("question %d of %s: %w", qi+1, sample.SampleID, err)
			}
			sc := Score(got, ids, sessionOfTurn)
			if o.QA != nil {
				j, err := answerAndJudge(ctx, o.QA, qa.Question, goldAnswer(qa.Answer), got, texts, rep.QA)
				if err != nil {
					return nil, fmt.Errorf("question %d of %s: %w", qi+1, sample.SampleID, err)
				}
				sc.J = &j
			}
			all = append(all, sc)
			name := LocomoCategories[qa.Category]
			if o.Asked != nil {
				q := SweepQuestion{Conv: sample.SampleID, Category: name, Scores: sc, Question: qa.Question, Evidence: ids, Ranks: evidenceRanks(got, ids)}
				if o.KeepTurns {
					q.Turns = got
				}
				o.Asked(q)
			}
			byCat[name] = append(byCat[name], sc)
		}
	}
	rep.Questions = len(all)
	rep.Metrics = Average(all)
	if rep.QA != nil && rep.QA.Answered > 0 {
		rep.QA.JScore = rep.Metrics["j_score"]
	}
	for name, s := range byCat {
		rep.ByCategory[name] = Average(s)
	}
	rep.Seconds = cairn.Since(start)
	return rep, nil
}

// loadLocomo reads the samples of o.Data and the corrections of o.Audit.
func loadLocomo(o LocomoOptions) ([]locomoSample, map[string]auditFix, error) {
	data, err := os.ReadFile(o.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("read locomo data: %w", err)
	}
	var samples []locomoSample
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, nil, cairn.Invalidf("locomo data %s is not a JSON array of samples: %v", o.Data, err)
	}
	audit, err := loadAudit(o.Audit)
	if err != nil {
		return nil, nil, err
	}
	return samples, audit, nil
}

func sessionOfTurn(id string) string { s, _, _ := strings.Cut(id, ":"); return s }

var sessionField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^session_(\d+)$`) })

// locomoSessions turns a sample into one session per LoCoMo session, one
// message per turn (both speakers as users with their names), and returns
// the known turn ids. Session ids end in "-D<n>" and turn n of session s
// is "D<s>:<n>" by position.
func locomoSessions(s locomoSample) ([]cairn.Session, map[string]bool, map[string]string, error) {
	var nums []int
	for k := range s.Conversation {
		if m := sessionField().FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	turns := map[string]bool{}
	texts := map[string]string{} // turn id → "(date) Speaker: text", for QA
	var out []cairn.Session
	for _, n := range nums {
		var ts []locomoTurn
		if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", n)], &ts); err != nil {
			return nil, nil, nil, cairn.Invalidf("%s session_%d: %v", s.SampleID, n, err)
		}
		var when string
		json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d_date_time", n)], &when)
		started, _ := parseLocomoTime(when)
		sess := cairn.Session{Source: "locomo", Provider: "locomo", ChatType: "direct", ID: fmt.Sprintf("%s-D%d", s.SampleID, n),
			ConversationID: s.SampleID, StartedAt: started, StartedAtRaw: when}
		for i, t := range ts {
			text := strings.TrimSpace(t.Text)
			if t.BlipCaption != "" {
				text += " [shared an image: " + t.BlipCaption + "]"
			}
			if strings.TrimSpace(text) == "" {
				text = "(no text)"
			}
			sess.Messages = append(sess.Messages, cairn.Message{ID: t.DiaID, Role: cairn.RoleUser, Speaker: t.Speaker, Text: text, Time: started})
			id := fmt.Sprintf("D%d:%d", n, i+1)
			turns[id] = true
			texts[id] = fmt.Sprintf("(%s) %s: %s", when, t.Speaker, text)
		}
		out = append(out, sess)
	}
	return out, turns, texts, nil
}

// parseLocomoTime reads "1:56 pm on 8 May, 2023".
func parseLocomoTime(s string) (time.Time, error) {
	return time.Parse("3:04 pm on 2 January, 2006", strings.TrimSpace(s))
}

var evidenceID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`D\s*(\d+)\s*:\s*(\d+)`) })

// resolveEvidence parses evidence ids leniently (extra spaces, several ids
// in one string, a missing "D") and returns the known turns and how many
// named none.
func resolveEvidence(ev []string, turns map[string]bool) ([]string, int) {
	var out []string
	bad := 0
	for _, e := range ev {
		e = strings.TrimSpace(e)
		if !strings.Contains(e, "D") {
			e = "D" + e
		}
		ms := evidenceID().FindAllStringSubmatch(e, -1)
		if len(ms) == 0 {
			bad++
			continue
		}
		for _, m := range ms {
			id := "D" + m[1] + ":" + m[2]
			if turns[id] {
				out = append(out, id)
			} else {
				bad++
			}
		}
	}
	return dedupe(out), bad
}

func loadAudit(path string) (map[string]auditFix, error) {
	out := map[string]auditFix{}
	if path == "" {
		return out, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	var entries []auditEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, cairn.Invalidf("audit file %s is not a JSON array of corrections: %v", path, err)
	}
	for _, e := range entries {
		if len(e.CorrectEvidence) > 0 {
			out[e.QuestionID] = auditFix{e.Question, e.CorrectEvidence}
		}
	}
	return out, nil
}

// locomoSession names a LoCoMo session "D<n>" from its id "<sample>-D<n>".
func locomoSession(id string) string { return id[strings.LastIndex(id, "-")+1:] }
