package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/sqlite"
)

// embedProbeTimeout bounds doctor's one test embedding: a remote endpoint
// that never answers is a problem to report, not a hang.
const embedProbeTimeout = 30 * time.Second

// configChecks are doctor's checks of what the configuration points at,
// which the index cannot tell: whether the embedder loads and embeds, and
// whether every corpus root is there to read. A new user's try: with the
// [embedder] model pointing at a missing folder and a corpus root deleted,
// doctor printed seven ok lines and exited 0, while search fell back to the
// lexical lane and sync failed the corpus. Neither is repaired: the
// fix lines say what to change.
func (e *env) configChecks(ctx context.Context, cfg *config.Config, dir string, repair bool) []engine.DoctorCheck {
	_, dataDir := e.paths()
	return []engine.DoctorCheck{e.foldersCheck(os.Getuid(), dataDir, dir, repair), e.embedderCheck(ctx, cfg, dir), e.corporaCheck(cfg)}
}

// folderForeign opens the folders line of a folder another user owns.
const folderForeign = "owned by another user, who could replace the index and the memories: "

// foldersCheck reports the folders an agent's data lives in (the data
// root, its agents folder, the agent's folder) that group or others may
// write, or that another user owns: anyone who can write one can replace
// index.db or memory.db and be served as your memory (ux F15). Every
// command that opens an agent makes such a folder 0700 (env.privateDirs);
// doctor says so, and with repair does it. A folder of another user is
// never changed.
func (e *env) foldersCheck(uid int, dataDir, dir string, repair bool) engine.DoctorCheck {
	c := engine.DoctorCheck{Name: "folders", Status: engine.CheckOK, Detail: "the data folders are this user's and private"}
	var open, foreign []string
	for _, d := range []string{dataDir, filepath.Dir(dir), dir} {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
			foreign = append(foreign, fmt.Sprintf("%s (uid %d)", d, st.Uid))
			continue
		}
		if perm := fi.Mode().Perm(); perm&0o022 != 0 {
			open = append(open, fmt.Sprintf("%s (mode %04o)", d, perm))
		}
	}
	switch {
	case len(foreign) > 0:
		c.Status, c.Detail = engine.CheckProblem, folderForeign+strings.Join(foreign, ", ")
		c.Fix = "use a folder of your own (set CAIRN_HOME), or have its owner hand it over (chown -R, chmod 700)"
	case len(open) > 0:
		c.Status, c.Detail = engine.CheckProblem, "writable by group or others, who could replace index.db or memory.db: "+strings.Join(open, ", ")
		c.Fix = "make them 0700 (any cairn command that opens the agent does; or chmod 700 each)"
		if repair {
			if err := e.privateDirs(uid, dataDir, dir); err != nil {
				c.Fix = oneLine(err.Error())
				break
			}
			c.Status, c.Fix = engine.CheckRepaired, "made 0700"
		}
	}
	return c
}

// embedderCheck builds the configured embedder, embeds one short query
// with it and says which vectors the index holds (SQLite only).
func (e *env) embedderCheck(ctx context.Context, cfg *config.Config, dir string) engine.DoctorCheck {
	c := engine.DoctorCheck{Name: "embedder", Status: engine.CheckOK}
	ec := cfg.Embedder
	if ec == nil {
		c.Detail = "none configured: searches use the lexical lane alone"
		return c
	}
	fix := "fix [embedder] in " + cfg.Path + " (the error says what), then run cairn sync; until then searches use the lexical lane alone and no chunk is embedded"
	if cfg.Path == "" {
		fix = strings.Replace(fix, " in ", " in the config", 1)
	}
	emb, err := e.embedder(cfg)
	if err != nil {
		c.Status, c.Detail, c.Fix = engine.CheckProblem, fmt.Sprintf("%s %s cannot be loaded: %s", ec.Provider, ec.Model, oneLine(err.Error())), fix
		return c
	}
	if cl, ok := emb.(interface{ Close() error }); ok {
		defer cl.Close()
	}
	pctx, cancel := context.WithTimeout(ctx, embedProbeTimeout)
	defer cancel()
	vecs, err := emb.Embed(pctx, cairn.EmbedQuery, []string{"cairn doctor"})
	if err == nil && (len(vecs) != 1 || len(vecs[0]) == 0) {
		err = fmt.Errorf("it answered %d vectors for one text", len(vecs))
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = engine.CheckProblem, fmt.Sprintf("%s %s loads but cannot embed: %s", ec.Provider, ec.Model, oneLine(err.Error())), fix
		return c
	}
	id := emb.Identity()
	c.Detail = fmt.Sprintf("%s %s embeds (%d dimensions)", id.Provider, id.Model, len(vecs[0]))
	if storeBackend(cfg, e.agent) != nil {
		return c
	}
	ids, counts, err := sqlite.VectorIdentities(ctx, filepath.Join(dir, sqlite.IndexFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c
	case err != nil:
		c.Detail += "; the index's vectors could not be read: " + oneLine(err.Error())
		return c
	}
	key, mine, others := id.Key(), 0, []string{}
	for i, k := range ids {
		if k == key {
			mine = counts[i]
			continue
		}
		v := vectorsOfIdentity(k, counts[i]) // version.go
		others = append(others, fmt.Sprintf("%d of %s %s (quantize %s)", v.Vectors, v.Provider, v.Model, v.Quantize))
	}
	c.Detail += fmt.Sprintf("; the index holds %d of its vectors", mine)
	if len(others) > 0 {
		c.Detail += " and " + strings.Join(others, ", ") + ", which searches with this model do not use"
	}
	return c
}

// corporaCheck looks at every root of every configured corpus: a files
// corpus's folders and files, a sessions corpus's source roots. A missing
// or unreadable root is a problem: sync fails it and keeps what was
// indexed from it. A root that holds one of Cairn's own folders is fine:
// the detail says that folder is not scanned (ownFoldersNotes).
func (e *env) corporaCheck(cfg *config.Config) engine.DoctorCheck {
	c := engine.DoctorCheck{Name: "corpora", Status: engine.CheckOK}
	corpora := cfg.ToCorpora()
	if len(corpora) == 0 {
		c.Detail = "none configured (cairn corpus add NAME PATH)"
		return c
	}
	var bad, absent []string
	roots := 0
	defaults := defaultRootSet(corpora)
	for _, co := range corpora {
		for _, root := range corpusRoots(co, &bad) {
			roots++
			why := rootProblem(root)
			if why == "does not exist" && co.Kind == cairn.KindSessions && defaults[root] {
				// A source's standard folder that is not there: the tool
				// is not installed, or keeps its transcripts in its other
				// standard folder (~/.claude, not ~/.config/claude). Sync
				// reads nothing from it and fails nothing (ux U27).
				absent = append(absent, root)
				continue
			}
			if why == "" && co.Kind == cairn.KindFiles {
				why = e.ownRootProblem(root)
			}
			if why != "" {
				bad = append(bad, fmt.Sprintf("%s: %s %s", co.Name, root, why))
			}
		}
	}
	if len(bad) == 0 {
		what := "corpora"
		if len(corpora) == 1 {
			what = "corpus"
		}
		c.Detail = fmt.Sprintf("%d %s, %s, all readable", len(corpora), what, plural(roots-len(absent), "root"))
		if len(absent) > 0 {
			c.Detail += "; no transcripts yet at the standard " + plural(len(absent), "folder") + " " + strings.Join(absent, ", ")
		}
		if notes := e.ownFoldersNotes(e.corpora(cfg)); len(notes) > 0 {
			c.Detail += "; " + strings.Join(notes, "; ")
		}
		return c
	}
	c.Status, c.Detail = engine.CheckProblem, strings.Join(bad, "; ")
	c.Fix = "restore the folder, or point the corpus elsewhere in " + cfg.Path + " or remove it (cairn corpus remove NAME); meanwhile sync fails it and keeps what was indexed from it"
	return c
}

// defaultRootSet is the set of the sessions corpora's roots that are their
// source's standard folders (config.DefaultRoots: the config names no root
// for the source), as opposed to folders the config names.
func defaultRootSet(corpora []cairn.Corpus) map[string]bool {
	home, _ := os.UserHomeDir()
	set := map[string]bool{}
	for _, co := range corpora {
		for _, s := range co.Sources {
			if d := config.DefaultRoots(s.ID, os.Getenv, home); slices.Equal(d, s.Roots) {
				for _, r := range d {
					set[r] = true
				}
			}
		}
	}
	return set
}

// corpusRoots lists what a corpus reads: the resolved roots of a files
// corpus (a glob's folder), a sessions corpus's source roots. A corpus
// whose paths cannot be resolved adds its error to bad.
func corpusRoots(co cairn.Corpus, bad *[]string) []string {
	if co.Kind == cairn.KindSessions {
		var out []string
		for _, s := range co.Sources {
			out = append(out, s.Roots...)
		}
		return out
	}
	srcs, err := ingest.Resolve(co)
	if err != nil {
		*bad = append(*bad, co.Name+": "+oneLine(err.Error()))
		return nil
	}
	out := make([]string, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, s.Root)
	}
	return out
}

// rootProblem says what is wrong with a root, or "".
func rootProblem(root string) string {
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case err != nil:
		return "cannot be read: " + oneLine(err.Error())
	case !fi.IsDir():
		f, err := os.Open(root)
		if err != nil {
			return "cannot be read: " + oneLine(err.Error())
		}
		f.Close()
		return ""
	}
	f, err := os.Open(root)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return "cannot be read: " + oneLine(err.Error())
	}
	return ""
}
