package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Claude Code's settings.json, edited without losing anything: an object's
// keys keep their order and every value Cairn does not touch is kept as
// written (re-indented). Hooks are configured as
//
//	"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": N}]}]}
//
// (https://code.claude.com/docs/en/hooks#configuration).

// object is a JSON object with its keys in order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject reads a JSON object; blank input is an empty one.
func parseObject(data []byte) (*object, error) {
	o := newObject()
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return o, nil
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// MarshalJSON writes the keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// pretty writes o indented by two spaces, with a final newline.
func (o *object) pretty() ([]byte, error) {
	raw, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// childObject reads o[key] as an object (absent: empty).
func (o *object) childObject(key string) (*object, error) {
	raw, ok := o.get(key)
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return newObject(), nil
	}
	c, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	return c, nil
}

// childArray reads o[key] as an array (absent: empty).
func (o *object) childArray(key string) ([]json.RawMessage, error) {
	raw, ok := o.get(key)
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%q is not an array: %w", key, err)
	}
	return a, nil
}

func (o *object) setValue(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.set(key, raw)
	return nil
}

// hookEntry is one hook Cairn installs: the event, the matcher of its
// group ("" for none) and the command.
type hookEntry struct {
	Event, Matcher, Command string
	Timeout                 int // seconds
}

// isCairnCommand recognizes a command Cairn installed, whatever the path
// of the executable or the flags after it.
func isCairnCommand(cmd string) bool { return strings.Contains(cmd, " "+hookRunWords+" ") }

// hookRunWords are the words of the hidden command the hooks run.
const hookRunWords = "hooks run claude-code"

// mergeHooks adds the entries to settings; an entry whose event already
// has a Cairn command is replaced in place (the path or flags changed),
// so installing twice adds nothing. It reports whether anything changed.
func mergeHooks(settings *object, entries []hookEntry) (bool, error) {
	hooks, err := settings.childObject("hooks")
	if err != nil {
		return false, fmt.Errorf("settings: %w", err)
	}
	changed := false
	for _, e := range entries {
		groups, err := hooks.childArray(e.Event)
		if err != nil {
			return false, fmt.Errorf("settings hooks: %w", err)
		}
		cmd := map[string]any{"type": "command", "command": e.Command, "timeout": e.Timeout}
		found, differ := false, false
		for gi, g := range groups {
			out, hit, err := replaceCairnHook(g, cmd)
			if err != nil {
				return false, fmt.Errorf("settings hooks %q[%d]: %w", e.Event, gi, err)
			}
			if hit {
				found = true
				if !bytes.Equal(out, g) {
					groups[gi], differ = out, true
				}
			}
		}
		if found && !differ {
			continue
		}
		if !found {
			g := newObject()
			if e.Matcher != "" {
				g.setValue("matcher", e.Matcher)
			}
			g.setValue("hooks", []any{cmd})
			raw, _ := g.MarshalJSON()
			groups = append(groups, raw)
		}
		if err := hooks.setValue(e.Event, groups); err != nil {
			return false, err
		}
		changed = true
	}
	if changed {
		raw, _ := hooks.MarshalJSON()
		settings.set("hooks", raw)
	}
	return changed, nil
}

// replaceCairnHook replaces the Cairn hooks of one matcher group with
// cmd; hit reports whether the group held one.
func replaceCairnHook(group json.RawMessage, cmd map[string]any) (json.RawMessage, bool, error) {
	g, err := parseObject(group)
	if err != nil {
		return nil, false, err
	}
	hs, err := g.childArray("hooks")
	if err != nil {
		return nil, false, err
	}
	hit := false
	for i, h := range hs {
		var c struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(h, &c) == nil && isCairnCommand(c.Command) {
			hit = true
			ho, err := parseObject(h)
			if err != nil {
				return nil, false, err
			}
			for _, k := range []string{"type", "command", "timeout"} {
				ho.setValue(k, cmd[k])
			}
			hs[i], _ = ho.MarshalJSON()
		}
	}
	if !hit {
		return group, false, nil
	}
	if err := g.setValue("hooks", hs); err != nil {
		return nil, false, err
	}
	out, _ := g.MarshalJSON()
	return compactOrSame(group, out), true, nil
}

// compactOrSame returns old when it says the same as new, so an unchanged
// group keeps its bytes.
func compactOrSame(old, new json.RawMessage) json.RawMessage {
	var a, b bytes.Buffer
	if json.Compact(&a, old) == nil && json.Compact(&b, new) == nil && bytes.Equal(a.Bytes(), b.Bytes()) {
		return old
	}
	return new
}

// removeHooks deletes every Cairn command from settings' hooks, then the
// groups and events it leaves empty (and "hooks" when nothing is left).
// It reports how many commands it removed.
func removeHooks(settings *object) (int, error) {
	if _, ok := settings.get("hooks"); !ok {
		return 0, nil
	}
	hooks, err := settings.childObject("hooks")
	if err != nil {
		return 0, fmt.Errorf("settings: %w", err)
	}
	removed := 0
	for _, event := range append([]string(nil), hooks.keys...) {
		groups, err := hooks.childArray(event)
		if err != nil {
			continue // not Cairn's to judge
		}
		var kept []json.RawMessage
		n := 0
		for _, g := range groups {
			out, dropped, err := dropCairnHooks(g)
			if err != nil {
				kept = append(kept, g)
				continue
			}
			n += dropped
			if out != nil {
				kept = append(kept, out)
			}
		}
		if n == 0 {
			continue
		}
		removed += n
		if len(kept) == 0 {
			hooks.del(event)
		} else if err := hooks.setValue(event, kept); err != nil {
			return 0, err
		}
	}
	if removed == 0 {
		return 0, nil
	}
	if len(hooks.keys) == 0 {
		settings.del("hooks")
	} else {
		raw, _ := hooks.MarshalJSON()
		settings.set("hooks", raw)
	}
	return removed, nil
}

// dropCairnHooks removes the Cairn commands of a group; nil when none is
// left of a group that held one.
func dropCairnHooks(group json.RawMessage) (json.RawMessage, int, error) {
	g, err := parseObject(group)
	if err != nil {
		return nil, 0, err
	}
	hs, err := g.childArray("hooks")
	if err != nil {
		return nil, 0, err
	}
	var kept []json.RawMessage
	for _, h := range hs {
		var c struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(h, &c) == nil && isCairnCommand(c.Command) {
			continue
		}
		kept = append(kept, h)
	}
	n := len(hs) - len(kept)
	switch {
	case n == 0:
		return group, 0, nil
	case len(kept) == 0:
		return nil, n, nil
	}
	if err := g.setValue("hooks", kept); err != nil {
		return nil, 0, err
	}
	out, _ := g.MarshalJSON()
	return out, n, nil
}
