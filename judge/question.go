package judge

import (
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Kind is the type of a question's answer.
type Kind string

// Answer kinds (C24).
const (
	// Binary asks yes or no; the answer is P(yes).
	Binary Kind = "binary"
	// Choice asks for one of named options; the answer is a probability
	// per option.
	Choice Kind = "choice"
	// Score asks for a level from 0 to 3; the answer is a probability per
	// level and their expected value.
	Score Kind = "score"
)

// ScoreLevels are the levels of a Score question, as labels.
var ScoreLevels = []string{"0", "1", "2", "3"}

// Limits of a request.
const (
	MaxQuestions = 16
	MaxOptions   = 8 // a choice's options are asked as the letters A to H
)

// Question is one named question of a request.
type Question struct {
	// Key names the answer: a lower-case letter, then up to 63 lower-case
	// letters, digits and _ (memory_0, relation).
	Key  string
	Kind Kind
	// Text is what is asked, about the state; a Score question's text says
	// what each level means.
	Text string
	// Options are a Choice question's labels (2 to MaxOptions, each a key
	// as above); none for the other kinds.
	Options []string
}

// labels are the answers a question allows, as they appear in Answer.
func (q Question) labels() []string {
	switch q.Kind {
	case Binary:
		return []string{"yes", "no"}
	case Score:
		return ScoreLevels
	}
	return q.Options
}

func validKey(s string) bool {
	if len(s) < 1 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkQuestions reports the first thing wrong with qs, an error matching
// cairn.ErrInvalid that names the field.
func checkQuestions(qs []Question) error {
	if len(qs) < 1 || len(qs) > MaxQuestions {
		return cairn.Invalidf("judge request has %d questions; allowed: 1 to %d", len(qs), MaxQuestions)
	}
	seen := map[string]bool{}
	for _, q := range qs {
		switch {
		case !validKey(q.Key):
			return cairn.Invalidf("question key %q; allowed: a lower-case letter, then up to 63 lower-case letters, digits and _", q.Key)
		case seen[q.Key]:
			return cairn.Invalidf("question key %q is used twice; allowed: unique keys", q.Key)
		case strings.TrimSpace(q.Text) == "":
			return cairn.Invalidf("question %s has no text; allowed: non-blank text", q.Key)
		}
		seen[q.Key] = true
		if err := checkOptions(q); err != nil {
			return err
		}
	}
	return nil
}

func checkOptions(q Question) error {
	switch q.Kind {
	case Binary, Score:
		if len(q.Options) > 0 {
			return cairn.Invalidf("question %s of kind %s has options; allowed: options only for %s", q.Key, q.Kind, Choice)
		}
		return nil
	case Choice:
	default:
		return cairn.Invalidf("question %s kind %q; allowed: %s, %s, %s", q.Key, q.Kind, Binary, Choice, Score)
	}
	if len(q.Options) < 2 || len(q.Options) > MaxOptions {
		return cairn.Invalidf("question %s has %d options; allowed: 2 to %d", q.Key, len(q.Options), MaxOptions)
	}
	seen := map[string]bool{}
	for _, o := range q.Options {
		if !validKey(o) || seen[o] {
			return cairn.Invalidf("question %s option %q; allowed: unique lower-case letters, digits and _, starting with a letter", q.Key, o)
		}
		seen[o] = true
	}
	return nil
}

// Answer is a question's typed answer. Probabilities sum to 1 (they are
// normalized over the question's labels).
type Answer struct {
	Kind Kind
	// P is a Binary answer's P(yes).
	P float64
	// Choice is the likeliest label: a Choice option, a Score level ("0"
	// to "3"), or "yes"/"no".
	Choice string
	// Confidence is the probability of Choice.
	Confidence float64
	// Score is a Score answer's expected level, Σ k·p(k), from 0 to 3.
	Score float64
	// Probabilities are by label: "yes" and "no", the options, or the
	// levels "0" to "3".
	Probabilities map[string]float64
}

// answerOf builds q's answer from unnormalized masses by label; an error
// when they hold no mass.
func answerOf(q Question, mass map[string]float64) (Answer, error) {
	total := 0.0
	for _, l := range q.labels() {
		total += mass[l]
	}
	if !(total > 0) {
		return Answer{}, fmt.Errorf("question %s: no probability on any allowed answer", q.Key)
	}
	a := Answer{Kind: q.Kind, Probabilities: make(map[string]float64, len(q.labels()))}
	for i, l := range q.labels() {
		p := mass[l] / total
		a.Probabilities[l] = p
		if p > a.Confidence || a.Choice == "" {
			a.Choice, a.Confidence = l, p
		}
		if q.Kind == Score {
			a.Score += float64(i) * p
		}
	}
	if q.Kind == Binary {
		a.P = a.Probabilities["yes"]
	}
	return a, nil
}

func (a Answer) clone() Answer {
	p := make(map[string]float64, len(a.Probabilities))
	for k, v := range a.Probabilities {
		p[k] = v
	}
	a.Probabilities = p
	return a
}
