package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Template is what Init writes: comments only, so it configures no corpus.
const Template = `# Cairn configuration (TOML). Everything below is a comment: uncomment
# what you need. cairn help lists the commands; unknown keys are errors.
#
# Each [[corpus]] table names a set of documents to index. Keys:
#
#   name     required. 1 to 64 letters, digits, '.', '_' or '-', starting with
#            a letter or digit; unique ignoring case; not all, extracted or
#            memories.
#   kind     required. "files" (Markdown and text files), "sessions" (agent
#            transcripts; at most one such corpus, named "sessions") or
#            "skills" (folders of SKILL.md skills for the skill whisperer;
#            at most one, named "skills", with name, kind and paths only).
#   paths    files, skills: required. Directories, files or glob patterns.
#            Relative paths are relative to this file's directory; "~/" is
#            your home.
#   glob     files: optional. Which files to index under a directory path
#            (default "**/*.md").
#   exclude  files: optional. Glob patterns, relative to each path, to skip.
#   defaultExcludes  files: optional, default true: skip .git, .hg, .svn,
#            node_modules, .venv, venv, __pycache__, .tox and .loggie folders
#            unless the glob names one. false walks into them too (never .git).
#   redact   files: optional, default true: secrets (API keys, tokens, private
#            keys, passwords) are replaced with [REDACTED:<kind>] before
#            anything is stored, searched or sent to an embedding model.
#            redact = false stores secrets in the index as written.
#   sources  sessions: required. Source ids (claude-code, codex, openclaw,
#            gemini, aider, openai-chat, cursor, loggie) or {id = "codex", root = "/path"}.
#   chatTypes            sessions: default ["channel", "group"]; add "direct".
#   maxExpandedTokens    sessions: default 500, the size of a hit's turn.
#   syncIntervalMinutes  sessions: default 60, cairn serve's session sync.
#   keepRemoved          sessions: default true, keep sessions whose
#                        transcript was deleted.
#
# Add corpora with: cairn corpus add NAME PATH
#              and: cairn corpus add sessions --kind sessions --source claude-code
#              and: cairn corpus add skills ~/.claude/skills --kind skills
# or let cairn init --discover add the agents it finds on this machine.
#
# [[corpus]]
# name = "notes"
# kind = "files"
# paths = ["~/notes"]
# glob = "**/*.md"
# exclude = ["archive/**"]
#
# [[corpus]]
# name = "sessions"
# kind = "sessions"
# sources = ["claude-code", "codex"]
#
# [[corpus]]
# name = "skills"
# kind = "skills"
# paths = ["~/.claude/skills"]
#
# Semantic search: an [embedder] (without one, search is BM25 alone).
#
# [embedder]
# provider = "onnx"                 # in process; "openai": any /v1/embeddings endpoint
# model = "/path/to/model-folder"   # onnx: a folder with model.onnx and tokenizer.json
#                                   # (cairn models pull OWNER/NAME fetches one)
# library = "/path/to/libonnxruntime.so.1"   # onnx; or set CAIRN_ONNXRUNTIME_LIB
# base_url = "http://127.0.0.1:11434/v1"     # openai
# api_key_env = "EMBEDDING_API_KEY"          # openai: the variable holding the key
# query_prefix = ""                 # text put before queries (some models want one)
# document_prefix = ""              # and before documents
# quantize = "auto"                 # onnx: int8 for a new index where the CPU has VNNI (half the CPU), else none (FP32);
#                                   # an index with vectors keeps theirs. "none" (left out) or "int8" fix it (a change re-embeds)
#
# Long-term memories: cairn consolidate uses [llm.consolidate], cairn memories
# sleep uses [llm.fast]. Keys of both:
#
# [llm.consolidate]
# api = "openai"                    # or "anthropic"
# base_url = "https://api.openai.com/v1"
# model = "MODEL"
# api_key_env = "OPENAI_API_KEY"    # or api_key_file = "/path/to/key"
# timeout_seconds = 300
# max_output_tokens = 32000
#
# [llm.fast]                        # the small model: sleep, gather, the whisperers' queries
# base_url = "http://127.0.0.1:8080/v1"
# model = "MODEL"
#
# [llm.judge]                       # judged search and the whisperers; absent: the [llm.fast] model
# enabled = true
# timeout_ms = 1500
#
# Prompt-time hints (cairn whisper, cairn hooks install claude-code;
# docs/hooks.md). The memory whisperer needs a judge and a query model
# ([llm.judge] or [llm.fast]); the skill whisperer needs the skills corpus
# and an [embedder].
#
# [memorySearch]
# mode = "local"                    # or "judged": memory_search asks the judge
#
# [memoryWhisperer]
# enabled = false
# corpora = ["memories"]            # configured corpora it may search, or "memories"
# minUsefulness = 0.7               # 0 to 1
# maxHints = 2                      # 1 to 2
# cooldownTurns = 10                # 0 to 1000
# timeoutMs = 3000                  # 1 to 10000
# complementaryHints = false
#
# [skillWhisperer]
# enabled = false
# historyMessages = 5               # messages before the prompt in its query
# minScore = 0.5                    # 0 to 1
# cooldownTurns = 10
`

// Init writes Template to path unless a file is already there, creating the
// parent directories (0700). It reports whether it created the file.
func Init(path string) (created bool, err error) {
	_, err = os.Lstat(path)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("init config %s: %w", path, err)
	}
	if err := writeAtomic(path, []byte(Template)); err != nil {
		return false, fmt.Errorf("init config %s: %w", path, err)
	}
	return true, nil
}

// AddCorpus appends a files corpus to the configuration at path, keeping the
// existing text and comments (a missing file starts from Template). The name
// must be valid and not configured yet; dir is made absolute; glob is written
// only when non-empty. The result must still load before it replaces the
// file.
func AddCorpus(path, name, dir, glob string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if strings.TrimSpace(dir) == "" {
		return cairn.Invalidf("corpus path is blank: give a directory, file or glob pattern")
	}
	if glob != "" && strings.TrimSpace(glob) == "" {
		return cairn.Invalidf("glob is blank: give a pattern such as %q or leave it out", cairn.DefaultGlob)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("add corpus %s: %w", name, err)
	}
	if target, err := filepath.EvalSymlinks(abs); err == nil {
		abs = target // rewrite the file a symlink points to, not the link
	}
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("add corpus %s: %w", name, err)
	}
	return addTable(abs, name, func(text string) string { return appendCorpus(text, name, dirAbs, glob) })
}

// AddSessionsCorpus adds the sessions corpus with the given sources; roots
// maps a source id to the folders to read it from (made absolute). Sources
// without roots use their tools' standard locations at load time.
func AddSessionsCorpus(path string, sources []string, roots map[string][]string) error {
	if len(sources) == 0 {
		return cairn.Invalidf("no --source given: allowed %s", strings.Join(cairn.Sources, ", "))
	}
	var entries []string
	for _, id := range sources {
		if !slices.Contains(cairn.Sources, id) {
			return cairn.Invalidf("unknown source %q: allowed %s", id, strings.Join(cairn.Sources, ", "))
		}
		rs := roots[id]
		if len(rs) == 0 {
			entries = append(entries, quote(id))
			continue
		}
		var qs []string
		for _, r := range rs {
			a, err := filepath.Abs(r)
			if err != nil {
				return fmt.Errorf("add sessions corpus: %w", err)
			}
			qs = append(qs, quote(a))
		}
		entries = append(entries, fmt.Sprintf("{id = %s, root = [%s]}", quote(id), strings.Join(qs, ", ")))
	}
	for id := range roots {
		if !slices.Contains(sources, id) {
			return cairn.Invalidf("--root %s=... names a source not given with --source", id)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("add sessions corpus: %w", err)
	}
	if target, err := filepath.EvalSymlinks(abs); err == nil {
		abs = target
	}
	table := "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [" + strings.Join(entries, ", ") + "]\n"
	return addTable(abs, cairn.KindSessions, func(text string) string { return appendTable(text, table) })
}

// addTable appends a table made by add to the config at abs, refusing a
// name already configured, and checks the result loads before writing it.
func addTable(abs, name string, add func(text string) string) error {
	text, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		text, err = []byte(Template), nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", abs, err)
	}
	check := resolver{dir: filepath.Dir(abs), keep: true}
	cfg, err := parse(abs, text, check)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(cfg.Corpora, func(k Corpus) bool { return strings.EqualFold(k.Name, name) }); i >= 0 {
		k := cfg.Corpora[i]
		return invalidf("corpus %q is already configured in %s:%d (as %q); pick another name", name, abs, k.Line, k.Name)
	}
	updated := add(string(text))
	if _, err := parse(abs, []byte(updated), check); err != nil {
		return fmt.Errorf("add corpus %s: %w", name, err)
	}
	return writeAtomic(abs, []byte(updated))
}

// appendTable returns text with table appended after a blank line.
func appendTable(text, table string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + table
}

// appendCorpus returns text with a files [[corpus]] table appended.
func appendCorpus(text, name, dir, glob string) string {
	var b strings.Builder
	b.WriteString("[[corpus]]\n")
	fmt.Fprintf(&b, "name = %s\n", quote(name))
	fmt.Fprintf(&b, "kind = %s\n", quote(cairn.KindFiles))
	fmt.Fprintf(&b, "paths = [%s]\n", quote(dir))
	if glob != "" {
		fmt.Fprintf(&b, "glob = %s\n", quote(glob))
	}
	return appendTable(text, b.String())
}

// quote returns s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeAtomic writes data to path through a temporary file in the same
// directory (fsync, rename, mode 0600), creating parent directories (0700).
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create config dir: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("chmod temp file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write temp file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename temp file: %w", err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable where the system can fsync a directory;
// where it cannot, the rename has still happened, so that is no error.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
