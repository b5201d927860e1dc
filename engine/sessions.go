package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/ingest/openclawdb"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/transcript"
)

// SessionsDir is the folder, under the agent's data directory, that holds
// Cairn's own copy of every session: its projection.
const SessionsDir = "sessions"

func (e *Engine) sessionsRoot() string { return filepath.Join(e.opts.Dir, SessionsDir) }

// syncSessions reads the transcripts of a sessions corpus, projects changed
// sessions into Markdown under the sessions folder, then indexes that folder
// like a files corpus. Secrets are redacted before anything is written.
func (e *Engine) syncSessions(ctx context.Context, c cairn.Corpus, force bool, progress func(cairn.ProgressEvent), status *SyncStatus) (cairn.CorpusSyncResult, error) {
	started := time.Now()
	states, err := e.store.TranscriptStates(ctx, c.Name)
	if err != nil {
		return cairn.CorpusSyncResult{Name: c.Name}, err
	}
	ss := &cairn.SessionSyncResult{}
	seen := map[string]bool{}
	type job struct {
		reader ingest.SourceReader
		root   string
		file   string
		stats  int // index into ss.Sources
	}
	var jobs []job
	for _, src := range c.Sources {
		st := cairn.SourceSyncStats{Source: src.ID}
		reader, ok := ingest.Reader(src.ID)
		if src.ID == cairn.SourceOpenClaw {
			reader, ok = openclawdb.Reader(), true // both storage generations; cgo stays out of ingest
		}
		if !ok {
			return cairn.CorpusSyncResult{Name: c.Name}, cairn.Invalidf("unknown session source %q: allowed %v", src.ID, ingest.ReaderIDs())
		}
		for _, root := range src.Roots {
			files, err := reader.Find(root)
			if err != nil {
				st.Failures = append(st.Failures, cairn.FileFailure{Path: root, Reason: "unreadable root: " + err.Error()})
				continue
			}
			for _, f := range files {
				jobs = append(jobs, job{reader, root, f, len(ss.Sources)})
			}
			st.Files += len(files)
		}
		ss.Sources = append(ss.Sources, st)
	}
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
		if progress != nil {
			progress(cairn.ProgressEvent{Corpus: c.Name + " (transcripts)", Done: i, Total: len(jobs)})
		}
		seen[j.file] = true
		if err := e.syncTranscript(ctx, c, j.reader, j.root, j.file, states[j.file], force, &ss.Sources[j.stats]); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
	}
	for i := range ss.Sources {
		ss.Sources[i].Failed = len(ss.Sources[i].Failures)
	}
	if c.DropRemoved {
		if err := e.dropVanished(ctx, c, states, seen, ss); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
	}
	ss.LastCheckedAt = started.UTC().Format(time.RFC3339)
	status.Phase = "indexing"
	_ = e.saveStatus(status)
	r, err := e.syncCorpus(ctx, cairn.Corpus{Name: c.Name, Kind: cairn.KindFiles, Paths: []string{e.sessionsRoot()}, Glob: cairn.DefaultGlob}, progress)
	if err == nil {
		ss.LastIndexedAt = time.Now().UTC().Format(time.RFC3339)
	}
	r.Sessions = ss
	return r, err
}

// syncTranscript re-reads one transcript file when it changed and rewrites
// the projections of its sessions. A file that cannot be parsed is a
// failure that keeps its previous projections. The file is opened under its
// source root (ingest.OpenTranscript: regular files only, symbolic links
// only within the root) and read with bounded memory (ingest.ReadTranscript);
// what the read cut is counted in st.Truncated.
func (e *Engine) syncTranscript(ctx context.Context, c cairn.Corpus, reader ingest.SourceReader, root, path string, prev cairn.TranscriptState, force bool, st *cairn.SourceSyncStats) error {
	f, fi, err := ingest.OpenTranscript(root, path)
	if err != nil {
		st.Failures = append(st.Failures, cairn.FileFailure{Path: path, Reason: "not read: " + err.Error()})
		return nil
	}
	defer f.Close()
	state := cairn.TranscriptState{Corpus: c.Name, Source: reader.ID, Path: path, Size: fi.Size(),
		ModTime: fi.ModTime().UnixNano(), ProjectorVersion: transcript.Version, CheckedAt: time.Now().UnixMilli()}
	same := !force && prev.Path != "" && prev.ProjectorVersion == transcript.Version && prev.Error == ""
	if same && prev.Size == state.Size && prev.ModTime == state.ModTime {
		reportCuts(st, prev.Stats)
		return nil
	}
	opts := ingest.ParseOptions{Path: path, ModTime: fi.ModTime(), Location: e.opts.Location}
	var sessions []cairn.Session
	var cuts map[string]int
	if reader.ParseFile != nil && filepath.Base(path) == ingest.OpenClawDBName {
		f.Close() // SQLite opens the store by its path; it was checked above
		sessions, err = reader.ParseFile(path, opts)
	} else {
		var bd ingest.BoundedData
		if bd, err = ingest.ReadTranscript(f, path); err == nil {
			state.Hash, cuts = bd.Hash, maps.Clone(bd.Cut)
			if same && prev.Hash == state.Hash {
				reportCuts(st, prev.Stats)
				return e.store.PutTranscriptState(ctx, state)
			}
			sessions, err = reader.Parse(bd.Data, opts)
		}
	}
	st.FilesChanged++
	keep := map[string]bool{} // sessions that failed: their previous projections stay
	var partial *openclawdb.FailedSessions
	switch {
	case errors.As(err, &partial):
		for _, f := range partial.Sessions {
			keep[f.SessionID] = true
			st.Failures = append(st.Failures, cairn.FileFailure{Path: path + "#" + f.SessionID, Reason: f.Err.Error()})
		}
		state.Error = err.Error() // re-read next time
	case err != nil:
		st.Failures = append(st.Failures, cairn.FileFailure{Path: path, Reason: err.Error()})
		state.Error = err.Error()
		return e.store.PutTranscriptState(ctx, state)
	}
	addCounts(&st.Truncated, cuts)
	all := cairn.ParseStats{Truncated: cuts}
	if err := e.projectAll(ctx, c, path, sessions, keep, st, &all.Truncated); err != nil {
		return err
	}
	for _, s := range sessions {
		mergeStats(&all, s.Stats)
	}
	for k, v := range all.Skipped {
		if st.LinesSkipped == nil {
			st.LinesSkipped = map[string]int{}
		}
		st.LinesSkipped[k] += v
	}
	b, _ := json.Marshal(all)
	state.Stats = string(b)
	return e.store.PutTranscriptState(ctx, state)
}

// reportCuts repeats, for a transcript that did not change, what its last
// read cut (kept in its state's stats), so the sync status keeps saying so.
func reportCuts(st *cairn.SourceSyncStats, stats string) {
	var prev cairn.ParseStats
	if stats != "" && json.Unmarshal([]byte(stats), &prev) == nil {
		addCounts(&st.Truncated, prev.Truncated)
	}
}

func addCounts(dst *map[string]int, src map[string]int) {
	for k, v := range src {
		if *dst == nil {
			*dst = map[string]int{}
		}
		(*dst)[k] += v
	}
}

func mergeStats(dst *cairn.ParseStats, s cairn.ParseStats) {
	dst.Lines += s.Lines
	dst.Deduplicated += s.Deduplicated
	dst.PartialTail = dst.PartialTail || s.PartialTail
	dst.ConsumedBytes = max(dst.ConsumedBytes, s.ConsumedBytes)
	addCounts(&dst.Truncated, s.Truncated)
	for k, v := range s.Skipped {
		if dst.Skipped == nil {
			dst.Skipped = map[string]int{}
		}
		dst.Skipped[k] += v
	}
}

// projectAll writes the projections of one file's sessions and removes the
// projections the file no longer produces. A session whose projection is
// over transcript.DefaultMaxPartBytes is written in parts, each a document
// and a session record of its own. What projecting cut is added to
// st.Truncated and, when cuts is not nil, to *cuts (the transcript's stats).
func (e *Engine) projectAll(ctx context.Context, c cairn.Corpus, path string, sessions []cairn.Session, keep map[string]bool, st *cairn.SourceSyncStats, cuts *map[string]int) error {
	old, err := e.store.SessionsOf(ctx, c.Name, path)
	if err != nil {
		return err
	}
	stale := map[string]cairn.SessionRecord{}
	for _, r := range old {
		if !keep[r.Info.SessionID] {
			stale[r.Path] = r
		}
	}
	for i := range sessions {
		s := &sessions[i]
		st.Sessions++
		if s.ChatType != "" && !slices.Contains(chatTypes(c), s.ChatType) {
			st.Skipped++
			continue
		}
		boundSession(s)
		redactSession(s, st)
		p, ok := transcript.Project(s, transcript.Options{AgentName: e.opts.AgentName, Location: e.opts.Location})
		if !ok {
			st.Skipped++
			continue
		}
		addCounts(&st.Truncated, p.Cut)
		if cuts != nil {
			addCounts(cuts, p.Cut)
		}
		parts := p.Parts(transcript.DefaultMaxPartBytes)
		if len(parts) > 1 {
			st.Truncated = addOne(st.Truncated, CutParts)
			if cuts != nil {
				*cuts = addOne(*cuts, CutParts)
			}
		}
		changed := false
		for _, part := range parts {
			prev, had := stale[part.Path]
			delete(stale, part.Path)
			if had && prev.ProjectionHash == part.Hash && prev.ProjectorVersion == transcript.Version && e.projectionExists(part.Path) {
				continue
			}
			if err := e.writeProjection(part, s.StartedAt); err != nil {
				return err
			}
			if err := e.store.PutSession(ctx, record(c.Name, path, s, part)); err != nil {
				return err
			}
			changed = true
		}
		if changed {
			st.Projected++
		} else {
			st.Unchanged++
		}
	}
	for p := range stale {
		if err := e.removeProjection(ctx, c.Name, p); err != nil {
			return err
		}
		st.Removed++
	}
	return nil
}

// CutParts counts, in the sync status, sessions too long for one document
// and projected in parts (transcript.DefaultMaxPartBytes).
const CutParts = "sessions over 4 MiB projected in parts"

func addOne(m map[string]int, reason string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[reason]++
	return m
}

// maxToolText bounds a tool call's input and output before redaction: the
// projection shows 400 characters of output (transcript.DefaultToolOutputChars)
// and a short input summary, so the rest only costs memory and time.
const maxToolText = 16 << 10

// boundSession cuts tool call text to maxToolText.
func boundSession(s *cairn.Session) {
	for i := range s.Messages {
		for j := range s.Messages[i].Tools {
			t := &s.Messages[i].Tools[j]
			t.Input, t.Output = cutUTF8(t.Input, maxToolText), cutUTF8(t.Output, maxToolText)
		}
	}
}

// cutUTF8 shortens s to at most n bytes on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func chatTypes(c cairn.Corpus) []string {
	if len(c.ChatTypes) == 0 {
		return cairn.DefaultChatTypes
	}
	return c.ChatTypes
}

func record(corpus, transcriptPath string, s *cairn.Session, p transcript.Projection) cairn.SessionRecord {
	spans, _ := json.Marshal(p.Spans)
	started := ""
	if !s.StartedAt.IsZero() {
		started = s.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	return cairn.SessionRecord{
		Corpus: corpus, Path: p.Path, StartedAt: s.StartedAt, StartedAtRaw: s.StartedAtRaw, Transcript: transcriptPath, ParentID: s.ParentID,
		ProjectionHash: p.Hash, ProjectorVersion: transcript.Version, Spans: string(spans),
		Info: cairn.SessionInfo{SessionID: s.ID, Source: s.Source, Provider: s.Provider, ChatType: s.ChatType,
			AccountID: s.AccountID, ConversationID: s.ConversationID, Cwd: s.Cwd, Title: s.Title, StartedAt: started},
	}
}

// redactSession replaces secrets in everything a projection shows and
// everything the session record stores: title, label, working directory,
// conversation and account ids (a path or a channel id can hold a token;
// a changed id is hashed into the projection path like any unsafe one),
// git branch, agent id, and per message the text, speaker, model and each
// tool call's name, input and output. The session and parent ids are left:
// they are the source's own identifiers (UUIDs) that link records.
func redactSession(s *cairn.Session, st *cairn.SourceSyncStats) {
	clean := func(p *string) {
		if *p == "" {
			return
		}
		var c redact.Counts
		*p, c = redact.Redact(*p)
		addCounts(&st.Redactions, c)
	}
	for _, p := range []*string{&s.Title, &s.Label, &s.Cwd, &s.ConversationID, &s.AccountID, &s.GitBranch, &s.AgentID} {
		clean(p)
	}
	for i := range s.Messages {
		m := &s.Messages[i]
		clean(&m.Text)
		clean(&m.Speaker)
		clean(&m.Model)
		for j := range m.Tools {
			clean(&m.Tools[j].Name)
			clean(&m.Tools[j].Input)
			clean(&m.Tools[j].Output)
		}
	}
}

func (e *Engine) projectionFile(rel string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("projection path %q escapes the sessions folder", rel)
	}
	return filepath.Join(e.sessionsRoot(), filepath.FromSlash(rel)), nil
}

func (e *Engine) projectionExists(rel string) bool {
	p, err := e.projectionFile(rel)
	if err != nil {
		return false
	}
	_, err = os.Lstat(p)
	return err == nil
}

// writeProjection writes atomically (temp, fsync, rename; 0600 in 0700
// folders) and sets the file's mtime to the session start.
func (e *Engine) writeProjection(p transcript.Projection, started time.Time) error {
	path, err := e.projectionFile(p.Path)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, []byte(p.Text)); err != nil {
		return err
	}
	if !started.IsZero() {
		_ = os.Chtimes(path, started, started)
	}
	return nil
}

func (e *Engine) removeProjection(ctx context.Context, corpus, rel string) error {
	if p, err := e.projectionFile(rel); err == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove projection: %w", err)
		}
	}
	return e.store.DeleteSession(ctx, corpus, rel)
}

// dropVanished removes the sessions of transcript files that are gone.
func (e *Engine) dropVanished(ctx context.Context, c cairn.Corpus, states map[string]cairn.TranscriptState, seen map[string]bool, ss *cairn.SessionSyncResult) error {
	for path, t := range states {
		if seen[path] {
			continue
		}
		recs, err := e.store.SessionsOf(ctx, c.Name, path)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := e.removeProjection(ctx, c.Name, r.Path); err != nil {
				return err
			}
			for i := range ss.Sources {
				if ss.Sources[i].Source == t.Source {
					ss.Sources[i].Removed++
				}
			}
		}
		if err := e.store.DeleteTranscriptState(ctx, c.Name, path); err != nil {
			return err
		}
	}
	return nil
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ImportSessions projects and indexes sessions given directly (an import
// from another tool, an evaluation dataset) into the sessions corpus named
// corpus, as if read from the transcript named origin. Sessions origin
// produced before and not given now are removed. Secrets are redacted as
// for transcripts.
func (e *Engine) ImportSessions(ctx context.Context, corpus, origin string, sessions []cairn.Session) (*cairn.CorpusSyncResult, error) {
	c, ok := e.corpus(corpus)
	if !ok || c.Kind != cairn.KindSessions {
		return nil, cairn.Invalidf("import into %q: not a configured sessions corpus", corpus)
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	st := cairn.SourceSyncStats{Source: "import"}
	if err := e.projectAll(ctx, c, origin, sessions, nil, &st, nil); err != nil {
		return nil, err
	}
	r, err := e.syncCorpus(ctx, cairn.Corpus{Name: c.Name, Kind: cairn.KindFiles, Paths: []string{e.sessionsRoot()}, Glob: cairn.DefaultGlob}, nil)
	if err != nil {
		return nil, err
	}
	r.Sessions = &cairn.SessionSyncResult{Sources: []cairn.SourceSyncStats{st}, LastCheckedAt: now(), LastIndexedAt: now()}
	if _, err := e.store.GC(ctx); err != nil {
		return nil, err
	}
	if err := e.maybeOptimize(ctx, &cairn.SyncResult{Corpora: []cairn.CorpusSyncResult{r}}); err != nil {
		return nil, err
	}
	if e.opts.Embedder != nil {
		_, pending, err := e.embedPending(ctx, nil)
		e.afterSync(pending, true)
		if err != nil {
			return &r, err
		}
	}
	return &r, nil
}

// SessionSpans returns the message spans of a projected session: the
// message order of the session as given, with each message's lines.
func (e *Engine) SessionSpans(ctx context.Context, corpus, path string) ([]transcript.Span, error) {
	rec, err := e.store.Session(ctx, corpus, path)
	if err != nil {
		return nil, err
	}
	text, err := e.store.DocumentText(ctx, corpus, path)
	if err != nil {
		return nil, err
	}
	return spansOf(rec, text), nil
}
