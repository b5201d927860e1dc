package consolidate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// answer is a model's reply to one window. It has passed the pass's schema
// before it is decoded (see checked in ask.go): an answer off the schema
// is asked again, never read in part. Episodes, items and observations are
// kept raw for the gate, which reads them one at a time; the lenient
// types below (a number as a string, one cue for a list) are a second
// line that a schema-checked answer does not reach.
type answer struct {
	SegmentSummary string            `json:"segment_summary"`
	Episodes       []json.RawMessage `json:"episodes"`
	Items          []json.RawMessage `json:"items"`
	Observations   []json.RawMessage `json:"observations"`
}

type episode struct {
	Request  number   `json:"request"`
	Outcome  string   `json:"outcome"`
	Keep     flexBool `json:"keep"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Cues     strList  `json:"cues"`
	Concepts strList  `json:"concepts"`
}

type item struct {
	Kind        string   `json:"kind"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Body        string   `json:"body"`
	AppliesWhen string   `json:"applies_when"`
	Scope       string   `json:"scope"`
	Requests    numList  `json:"requests"`
	Confidence  string   `json:"confidence"`
	Importance  number   `json:"importance"`
	Contested   flexBool `json:"contested"`
	Ambiguous   flexBool `json:"ambiguous"`
	Cues        strList  `json:"cues"`
	Concepts    strList  `json:"concepts"`
}

type observation struct {
	Text      string  `json:"text"`
	About     string  `json:"about"`
	EventDate string  `json:"event_date"`
	StartDate string  `json:"start_date"`
	EndDate   string  `json:"end_date"`
	Phase     string  `json:"phase"`
	Requests  numList `json:"requests"`
	Concepts  strList `json:"concepts"`
	Cues      strList `json:"cues"`
}

var (
	errNoObject = errors.New("answer is not a JSON object")
	errNoFields = errors.New("answer has none of segment_summary, episodes, items, observations")
)

// decodeAnswer reads a model's answer, checked against the pass's schema
// and unfenced (see checked): one JSON object.
func decodeAnswer(s string) (*answer, error) {
	if !strings.HasPrefix(s, "{") {
		return nil, errNoObject
	}
	var keys map[string]json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&keys); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc([]string{"segment_summary", "episodes", "items", "observations"}, func(k string) bool { _, ok := keys[k]; return ok }) {
		return nil, errNoFields
	}
	var a answer
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&a); err != nil {
		return nil, err
	}
	return &a, nil
}

// number is an integer the model may have written as a float or a string.
type number struct {
	V   float64
	Set bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if string(b) == "null" || len(b) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return errors.New("not a number: " + string(b))
	}
	n.V, n.Set = v, true
	return nil
}

func (n number) Int() int { return int(math.Round(n.V)) }

// numList accepts a list of numbers or a single number.
type numList []number

func (l *numList) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var v []number
		err := json.Unmarshal(b, &v)
		*l = v
		return err
	}
	var n number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n.Set {
		*l = numList{n}
	}
	return nil
}

// strList accepts a list of strings or one string.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var v []any
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		for _, x := range v {
			if s, ok := x.(string); ok {
				*l = append(*l, s)
			}
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil // another type: no cues
	}
	*l = strList{s}
	return nil
}

// flexBool accepts true/false, "true"/"false" and null.
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	switch strings.Trim(string(b), `"`) {
	case "true", "yes", "1":
		*f = true
	case "false", "no", "0", "null", "":
		*f = false
	default:
		return errors.New("not a boolean: " + string(b))
	}
	return nil
}
