package judge

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/cairnmemory/cairn/llm/openai"
)

// answerLine is one "<key>: <answer>" line; Markdown emphasis or a list
// dash around the key is tolerated.
var answerLine = regexp.MustCompile("^[\\s*`_-]*([a-z][a-z0-9_]*)[\\s*`]*[:=][\\s*`]*")

// fromLogprobs reads the answers of a log-probability answer: one line per
// question, "<key>: <answer>". The answer's first token is located in the
// token list, and the probabilities of that token's alternatives are
// summed by the label they spell (" Yes", "yes" and "YES" alike) and
// normalized over the labels the question allows. A label missing from
// the alternatives gets no probability (with 10 alternatives asked for,
// what is left out is small). An error says what is wrong, in Cairn's
// words (never the model's text).
func fromLogprobs(qs []Question, tokens []openai.TokenLogprob) (map[string]Answer, error) {
	var text strings.Builder
	starts := make([]int, len(tokens))
	for i, t := range tokens {
		starts[i] = text.Len()
		text.WriteString(t.Token)
	}
	byKey := map[string]Question{}
	for _, q := range qs {
		byKey[q.Key] = q
	}
	answers := map[string]Answer{}
	off := 0
	for _, line := range strings.SplitAfter(text.String(), "\n") {
		lineStart := off
		off += len(line)
		if strings.TrimSpace(line) == "" {
			continue
		}
		var key string
		at := lineStart
		switch m := answerLine.FindStringSubmatchIndex(line); {
		case m != nil:
			key, at = line[m[2]:m[3]], lineStart+m[1]
		case len(qs) == 1 && len(answers) == 0:
			key = qs[0].Key // a lone answer with no key, as small models give
		default:
			return nil, fmt.Errorf("an answer line is not <key>: <answer>")
		}
		q, ok := byKey[key]
		switch {
		case !ok:
			return nil, fmt.Errorf("an answer key is not a question of the request")
		case answers[key].Kind != "":
			return nil, fmt.Errorf("question %s is answered twice", key)
		}
		a, err := answerAt(q, tokens, starts, at)
		if err != nil {
			return nil, err
		}
		answers[key] = a
	}
	if len(answers) != len(qs) {
		return nil, fmt.Errorf("%d of %d questions answered", len(answers), len(qs))
	}
	return answers, nil
}

// answerAt reads q's answer from the token that holds byte offset at of
// the answer text, or the first one after it.
func answerAt(q Question, tokens []openai.TokenLogprob, starts []int, at int) (Answer, error) {
	for i, t := range tokens {
		if starts[i]+len(t.Token) <= at || strings.TrimSpace(t.Token) == "" {
			continue
		}
		mass := map[string]float64{}
		alts := t.Top
		if len(alts) == 0 {
			alts = []openai.TopLogprob{{Token: t.Token, Logprob: t.Logprob}}
		}
		for _, alt := range alts {
			if l, ok := labelOf(q, alt.Token); ok {
				mass[l] += math.Exp(alt.Logprob)
			}
		}
		a, err := answerOf(q, mass)
		if err != nil {
			return Answer{}, fmt.Errorf("question %s: the answer token is none of the allowed answers", q.Key)
		}
		return a, nil
	}
	return Answer{}, fmt.Errorf("question %s has no answer token", q.Key)
}

// labelOf maps a token to the label it spells for q: yes/no, a level
// digit, or an option's letter.
func labelOf(q Question, token string) (string, bool) {
	t := strings.Trim(token, " \t\n*`\"'.,:;()")
	switch q.Kind {
	case Binary:
		switch strings.ToLower(t) {
		case "yes":
			return "yes", true
		case "no":
			return "no", true
		}
	case Score:
		if len(t) == 1 && t[0] >= '0' && t[0] <= '3' {
			return t, true
		}
	case Choice:
		// Clearing bit 0x20 upper-cases a to h and leaves A to H; no
		// other byte becomes one of them.
		if len(t) == 1 {
			if i := strings.IndexByte(letters[:len(q.Options)], t[0]&^0x20); i >= 0 {
				return q.Options[i], true
			}
		}
	}
	return "", false
}
