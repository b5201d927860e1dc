package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/cairnmemory/cairn/mcpserver"
)

// diagnosticsPage is the diagnostics template's data: memory_diagnostics
// as sections of fields.
type diagnosticsPage struct {
	page
	Sections []section
}

type section struct {
	Name   string
	Fields []field
}

// field is one leaf of a JSON document: its dotted path and value.
type field struct {
	Key, Value string
}

// diagnostics serves /ui/diagnostics: what memory_diagnostics answers
// (index counts, embedding readiness, telemetry percentiles, whisperer
// outcomes, background work), each top-level part a section. The fields
// are read from the tool's JSON, so a field added to the tool shows here
// without a change to the page.
func (h *Handler) diagnostics(w http.ResponseWriter, r *http.Request) {
	out, err := h.opts.Agent.Diagnostics(r.Context(), mcpserver.Empty{})
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d := &diagnosticsPage{page: h.pageOf("Diagnostics", "diagnostics")}
	var top map[string]json.RawMessage
	raw, _ := json.Marshal(out)
	_ = json.Unmarshal(raw, &top)
	var loose []field
	for _, k := range sortedKeys(top) {
		fs := flattenJSON("", top[k])
		if len(fs) == 1 && fs[0].Key == "" {
			loose = append(loose, field{Key: k, Value: fs[0].Value})
			continue
		}
		d.Sections = append(d.Sections, split(k, fs)...)
	}
	if loose != nil {
		d.Sections = append([]section{{Name: "status", Fields: loose}}, d.Sections...)
	}
	h.render(w, r, http.StatusOK, "diagnostics", d)
}

// bigSection is the most fields a section shows before it is split by its
// next key (whisperers into memory, skill, telemetry).
const bigSection = 20

// split cuts a long section into one per next key, in order.
func split(name string, fs []field) []section {
	if len(fs) <= bigSection {
		return []section{{Name: name, Fields: fs}}
	}
	var out []section
	for _, f := range fs {
		head, rest, ok := strings.Cut(f.Key, ".")
		if !ok {
			head, rest = "", f.Key
		}
		sub := strings.TrimSuffix(name+"."+head, ".")
		if n := len(out); n == 0 || out[n-1].Name != sub {
			out = append(out, section{Name: sub})
		}
		out[len(out)-1].Fields = append(out[len(out)-1].Fields, field{Key: rest, Value: f.Value})
	}
	return out
}

// flatten turns any JSON-encodable value into its leaves.
func flatten(v any) []field {
	raw, err := json.Marshal(v)
	if err != nil {
		return []field{{Key: "error", Value: err.Error()}}
	}
	return flattenJSON("", raw)
}

// flattenJSON lists the leaves of a JSON value, keys joined by dots and
// array indexes in brackets; an empty object or array is one leaf.
func flattenJSON(prefix string, raw json.RawMessage) []field {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		if len(obj) == 0 {
			return []field{{Key: prefix, Value: "(none)"}}
		}
		var out []field
		for _, k := range sortedKeys(obj) {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			out = append(out, flattenJSON(key, obj[k])...)
		}
		return out
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && arr != nil {
		if len(arr) == 0 {
			return []field{{Key: prefix, Value: "(none)"}}
		}
		var out []field
		for i, el := range arr {
			out = append(out, flattenJSON(fmt.Sprintf("%s[%d]", prefix, i), el)...)
		}
		return out
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []field{{Key: prefix, Value: s}}
	}
	return []field{{Key: prefix, Value: strings.TrimSpace(string(raw))}}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
