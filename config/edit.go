package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/cairnmemory/cairn"
)

// Edits of the config file behind `cairn corpus add` and `cairn corpus
// remove`. Each keeps the file's text and comments, changes only the lines
// it must, checks that the result still loads, and replaces the file
// atomically.

// FilesCorpus is a files corpus to add: Paths as the user typed them ("~"
// and "~/" expand to Home, relative paths are relative to the working
// directory), Glob written only when non-empty, Exclude as given.
type FilesCorpus struct {
	Name    string
	Paths   []string
	Glob    string
	Exclude []string
	Home    string // the user's home directory, for "~"; empty: "~" is an error
}

// AddFiles appends a files corpus to the configuration at path (a missing
// file starts from Template). The name must be valid and not configured
// yet, and every path must exist (a glob pattern: the folder it starts
// from), so a typo fails here, naming the path, rather than as a sync
// failure later.
func AddFiles(path string, c FilesCorpus) error {
	if err := ValidName(c.Name); err != nil {
		return err
	}
	if len(c.Paths) == 0 {
		return cairn.Invalidf("no corpus path given: give a directory, file or glob pattern")
	}
	if c.Glob != "" && strings.TrimSpace(c.Glob) == "" {
		return cairn.Invalidf("glob is blank: give a pattern such as %q or leave it out", cairn.DefaultGlob)
	}
	var paths []string
	for _, p := range c.Paths {
		abs, err := userPath(p, c.Home)
		if err != nil {
			return err
		}
		if err := mustExist(abs); err != nil {
			return err
		}
		paths = append(paths, quote(abs))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[[corpus]]\nname = %s\nkind = %s\npaths = [%s]\n", quote(c.Name), quote(cairn.KindFiles), strings.Join(paths, ", "))
	if c.Glob != "" {
		fmt.Fprintf(&b, "glob = %s\n", quote(c.Glob))
	}
	if len(c.Exclude) > 0 {
		var ex []string
		for _, e := range c.Exclude {
			if strings.TrimSpace(e) == "" {
				return cairn.Invalidf("--exclude is blank: give a glob pattern relative to the corpus path, such as %q", "drafts/**")
			}
			ex = append(ex, quote(e))
		}
		fmt.Fprintf(&b, "exclude = [%s]\n", strings.Join(ex, ", "))
	}
	abs, err := configFile(path)
	if err != nil {
		return fmt.Errorf("add corpus %s: %w", c.Name, err)
	}
	return addTable(abs, c.Name, func(text string) string { return appendTable(text, b.String()) })
}

// AddSkills adds the skills corpus (named "skills", kind "skills") with the
// given folders or glob patterns of skill folders ("~" is home): the
// corpus the skill whisperer reads SKILL.md files from.
func AddSkills(path string, paths []string, home string) error {
	if len(paths) == 0 {
		return cairn.Invalidf("no skills path given: give a folder of skill folders, such as ~/.claude/skills")
	}
	var quoted []string
	for _, p := range paths {
		abs, err := userPath(p, home)
		if err != nil {
			return err
		}
		if err := mustExist(abs); err != nil {
			return err
		}
		quoted = append(quoted, quote(abs))
	}
	table := fmt.Sprintf("[[corpus]]\nname = %s\nkind = %s\npaths = [%s]\n", quote(cairn.KindSkills), quote(cairn.KindSkills), strings.Join(quoted, ", "))
	abs, err := configFile(path)
	if err != nil {
		return fmt.Errorf("add corpus skills: %w", err)
	}
	return addTable(abs, cairn.KindSkills, func(text string) string { return appendTable(text, table) })
}

// AddSessions adds transcript sources to the sessions corpus: it writes
// the corpus when the file has none, and otherwise appends the sources to
// its sources array (a source already there is an error naming its line:
// edit its root there). roots maps a source id to the folders to read it
// from ("~" expanded to home; each must exist); sources without roots use
// their tools' standard locations at load time.
func AddSessions(path string, sources []string, roots map[string][]string, home string) error {
	if len(sources) == 0 {
		return cairn.Invalidf("no --source given: allowed %s", strings.Join(cairn.Sources, ", "))
	}
	for id := range roots {
		if !slices.Contains(sources, id) {
			return cairn.Invalidf("--root %s=... names a source not given with --source", id)
		}
	}
	var entries []string
	for _, id := range sources {
		if !slices.Contains(cairn.Sources, id) {
			return cairn.Invalidf("unknown source %q: allowed %s", id, strings.Join(cairn.Sources, ", "))
		}
		if len(roots[id]) == 0 {
			if !hasStandardRoot(id) { // the config would not load: refuse before writing it
				return cairn.Invalidf("source %q has no standard location: give its folder with --root %s=DIR", id, id)
			}
			entries = append(entries, quote(id))
			continue
		}
		var qs []string
		for _, r := range roots[id] {
			a, err := userPath(r, home)
			if err != nil {
				return err
			}
			if err := mustExist(a); err != nil {
				return fmt.Errorf("--root %s=%s: %w", id, r, err)
			}
			qs = append(qs, quote(a))
		}
		entries = append(entries, fmt.Sprintf("{id = %s, root = [%s]}", quote(id), strings.Join(qs, ", ")))
	}
	abs, err := configFile(path)
	if err != nil {
		return fmt.Errorf("add sessions corpus: %w", err)
	}
	text, cfg, err := readForEdit(abs)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(cfg.Corpora, func(k Corpus) bool { return k.Kind == cairn.KindSessions })
	if i < 0 {
		table := "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [" + strings.Join(entries, ", ") + "]\n"
		return addTable(abs, cairn.KindSessions, func(text string) string { return appendTable(text, table) })
	}
	k := cfg.Corpora[i]
	for _, s := range k.Sources {
		if slices.Contains(sources, s.ID) {
			return invalidf("source %q is already in the sessions corpus at %s:%d; edit its entry there to change its roots", s.ID, abs, k.Line)
		}
	}
	updated, err := appendToArray(text, k.Line, "sources", entries)
	if err != nil {
		return fmt.Errorf("add sessions sources: %w", err)
	}
	return writeChecked(abs, updated, "add sessions sources")
}

// hasStandardRoot reports whether source has a standard location
// (DefaultRoots, whatever the environment), so that a sources entry
// without a root loads.
func hasStandardRoot(source string) bool {
	return len(DefaultRoots(source, func(string) string { return "" }, string(filepath.Separator))) > 0
}

// RemoveCorpus deletes the [[corpus]] table named name (ignoring case)
// from the configuration at path: its header and keys, and the comments
// and blank lines inside it, up to the comments that lead into the next
// table. Comments above its header are kept (they may speak of more than
// this table). The index keeps the corpus's documents until the next
// sync prunes them.
func RemoveCorpus(path, name string) error {
	abs, err := configFile(path)
	if err != nil {
		return fmt.Errorf("remove corpus %s: %w", name, err)
	}
	text, cfg, err := readForEdit(abs)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(cfg.Corpora, func(k Corpus) bool { return strings.EqualFold(k.Name, name) })
	if i < 0 {
		var names []string
		for _, k := range cfg.Corpora {
			names = append(names, k.Name)
		}
		if len(names) == 0 {
			return fmt.Errorf("corpus %q is not configured in %s (it has no corpus): %w", name, abs, cairn.ErrNotFound)
		}
		return fmt.Errorf("corpus %q is not configured in %s; configured: %s: %w", name, abs, joinNames(names), cairn.ErrNotFound)
	}
	lines := strings.SplitAfter(text, "\n")
	start := cfg.Corpora[i].Line - 1 // 0-based
	end := len(lines)                // exclusive
	for _, h := range headerLines([]byte(text)) {
		if h-1 > start {
			end = h - 1
			break
		}
	}
	for end > start+1 && isCommentOrBlank(lines[end-1]) {
		end-- // comments and blank lines that lead into what follows stay
	}
	if end < len(lines) && strings.TrimSpace(lines[end]) == "" {
		end++ // with the blank line that set the table apart
	}
	if end == len(lines) {
		for start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start-- // no blank lines left dangling at the end of the file
		}
	}
	updated := strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	return writeChecked(abs, updated, "remove corpus "+name)
}

// configFile makes path absolute and follows a symlink to the file it
// names, so an edit rewrites the file, not the link.
func configFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if target, err := filepath.EvalSymlinks(abs); err == nil {
		abs = target
	}
	return abs, nil
}

// readForEdit reads the config at abs (Template when missing) and parses
// it without expanding "~".
func readForEdit(abs string) (string, *Config, error) {
	text, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		text, err = []byte(Template), nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read config %s: %w", abs, err)
	}
	cfg, err := parse(abs, text, resolver{dir: filepath.Dir(abs), keep: true})
	if err != nil {
		return "", nil, err
	}
	return string(text), cfg, nil
}

// writeChecked replaces the config at abs with text once text loads.
func writeChecked(abs, text, what string) error {
	if _, err := parse(abs, []byte(text), resolver{dir: filepath.Dir(abs), keep: true}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return writeAtomic(abs, []byte(text))
}

// userPath makes a path typed on the command line absolute: "~" and "~/..."
// are the home directory (a shell leaves a quoted '~/notes' alone), other
// relative paths are relative to the working directory.
func userPath(p, home string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", cairn.Invalidf("corpus path is blank: give a directory, file or glob pattern")
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if home == "" {
			return "", cairn.Invalidf("path %q: no home directory known to expand ~", p)
		}
		return filepath.Join(home, p[1:]), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve path %s: %w", p, err)
	}
	return abs, nil
}

// mustExist checks that a path being added exists; for a glob pattern,
// the folder it starts from (its longest prefix without glob characters).
func mustExist(abs string) error {
	check := abs
	if strings.ContainsAny(abs, "*?[{(") {
		segs := strings.Split(filepath.ToSlash(abs), "/")
		k := 0
		for k < len(segs) && !strings.ContainsAny(segs[k], "*?[{(") {
			k++
		}
		check = filepath.FromSlash(strings.Join(segs[:k], "/"))
		if check == "" {
			check = string(filepath.Separator)
		}
	}
	if _, err := os.Stat(check); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return cairn.Invalidf("path %s does not exist: create it first, or check for a typo", check)
		}
		return fmt.Errorf("check path %s: %w", check, err)
	}
	return nil
}

// headerLines returns the 1-based lines of every table header in data
// ([[corpus]], [embedder], [llm.*]), in order. data has parsed already.
func headerLines(data []byte) []int {
	var p unstable.Parser
	p.Reset(data)
	var out []int
	for p.NextExpression() {
		expr := p.Expression()
		if expr.Kind == unstable.Table || expr.Kind == unstable.ArrayTable {
			out = append(out, keyLine(&p, expr))
		}
	}
	return out
}

func isCommentOrBlank(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// appendToArray adds TOML values to the array value of key in the table
// whose header is on line header, after its last value, keeping the
// array's comments and layout.
func appendToArray(text string, header int, key string, values []string) (string, error) {
	cfgTables, err := scan("", []byte(text))
	if err != nil {
		return "", err
	}
	var keyAt int
	for _, t := range cfgTables {
		if t.line == header {
			keyAt = t.keys[key]
		}
	}
	if keyAt == 0 {
		return "", fmt.Errorf("find %s on the table at line %d", key, header)
	}
	off := 0
	for l := 1; l < keyAt; l++ {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	eq := strings.IndexByte(text[off:], '=')
	open := strings.IndexByte(text[off+eq:], '[')
	if eq < 0 || open < 0 {
		return "", fmt.Errorf("find the array of %s at line %d", key, keyAt)
	}
	last, err := lastValue(text, off+eq+open)
	if err != nil {
		return "", fmt.Errorf("read the array of %s at line %d: %w", key, keyAt, err)
	}
	add := strings.Join(values, ", ")
	switch text[last] {
	case '[':
	case ',':
		add = " " + add + ","
	default:
		add = ", " + add
	}
	return text[:last+1] + add + text[last+1:], nil
}

// lastValue walks the array opening at text[open] and returns the offset
// of its last significant character before the closing bracket: the
// opening bracket itself, a comma, or the end of the last value. Strings
// and comments are skipped.
func lastValue(text string, open int) (int, error) {
	depth, last := 0, open
	for i := open; i < len(text); i++ {
		switch c := text[i]; c {
		case '#':
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				return 0, errors.New("unclosed array")
			}
			i += nl
			continue
		case '"', '\'':
			end := closeQuote(text, i)
			if end < 0 {
				return 0, errors.New("unclosed string")
			}
			i, last = end, end
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return last, nil
			}
		case ' ', '\t', '\r', '\n':
			continue
		}
		last = i
	}
	return 0, errors.New("unclosed array")
}

// closeQuote returns the offset of the quote that closes the string
// opening at text[i] (basic strings honour backslash escapes).
func closeQuote(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j
		case '\n':
			return -1
		}
	}
	return -1
}
