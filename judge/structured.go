package judge

import (
	"encoding/json"
	"fmt"
)

// answerSchema is the JSON Schema of a structured answer: one key per
// question; a Binary question's value is P(yes), a Choice or Score
// question's an object with a probability per label. Every object lists
// all its properties as required and forbids others (what OpenAI's strict
// mode wants).
func answerSchema(qs []Question) json.RawMessage {
	prob := map[string]any{"type": "number", "minimum": 0, "maximum": 1}
	props := map[string]any{}
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = q.Key
		if q.Kind == Binary {
			props[q.Key] = prob
			continue
		}
		inner := map[string]any{}
		for _, l := range q.labels() {
			inner[l] = prob
		}
		props[q.Key] = map[string]any{"type": "object", "additionalProperties": false, "required": q.labels(), "properties": inner}
	}
	data, _ := json.Marshal(map[string]any{"type": "object", "additionalProperties": false, "required": keys, "properties": props})
	return data
}

// fromStructured reads a structured answer that the client has checked
// against answerSchema. A Choice or Score question's probabilities are
// divided by their sum (a model's stated numbers rarely sum to exactly 1);
// all zero is an error.
func fromStructured(qs []Question, text string) (map[string]Answer, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON object")
	}
	if len(raw) != len(qs) {
		return nil, fmt.Errorf("the answer has %d keys for %d questions", len(raw), len(qs))
	}
	answers := map[string]Answer{}
	for _, q := range qs {
		v, ok := raw[q.Key]
		if !ok {
			return nil, fmt.Errorf("question %s is not answered", q.Key)
		}
		mass := map[string]float64{}
		if q.Kind == Binary {
			var p float64
			if err := json.Unmarshal(v, &p); err != nil || p < 0 || p > 1 {
				return nil, fmt.Errorf("question %s: the answer is not a probability", q.Key)
			}
			mass["yes"], mass["no"] = p, 1-p
		} else if err := json.Unmarshal(v, &mass); err != nil || !probabilities(q, mass) {
			return nil, fmt.Errorf("question %s: the answer is not an object of probabilities", q.Key)
		}
		a, err := answerOf(q, mass)
		if err != nil {
			return nil, err
		}
		answers[q.Key] = a
	}
	return answers, nil
}

// probabilities reports whether mass gives each of q's labels, and nothing
// else, a number from 0 to 1.
func probabilities(q Question, mass map[string]float64) bool {
	if len(mass) != len(q.labels()) {
		return false
	}
	for _, l := range q.labels() {
		p, ok := mass[l]
		if !ok || p < 0 || p > 1 {
			return false
		}
	}
	return true
}
