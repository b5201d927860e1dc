package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

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
				jobs = append(jobs, job{reader, f, len(ss.Sources)})
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
		if err := e.syncTranscript(ctx, c, j.reader, j.file, states[j.file], force, &ss.Sources[j.stats]); err != nil {
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
// failure that keeps its previous projections.
func (e *Engine) syncTranscript(ctx context.Context, c cairn.Corpus, reader ingest.SourceReader, path string, prev cairn.TranscriptState, force bool, st *cairn.SourceSyncStats) error {
	fi, err := os.Stat(path)
	if err != nil {
		st.Failures = append(st.Failures, cairn.FileFailure{Path: path, Reason: "unreadable: " + err.Error()})
		return nil
	}
	state := cairn.TranscriptState{Corpus: c.Name, Source: reader.ID, Path: path, Size: fi.Size(),
		ModTime: fi.ModTime().UnixNano(), ProjectorVersion: transcript.Version, CheckedAt: time.Now().UnixMilli()}
	same := !force && prev.Path != "" && prev.ProjectorVersion == transcript.Version && prev.Error == ""
	if same && prev.Size == state.Size && prev.ModTime == state.ModTime {
		return nil
	}
	opts := ingest.ParseOptions{Path: path, ModTime: fi.ModTime(), Location: e.opts.Location}
	var sessions []cairn.Session
	if reader.ParseFile != nil {
		sessions, err = reader.ParseFile(path, opts)
	} else {
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			sum := sha256.Sum256(data)
			state.Hash = hex.EncodeToString(sum[:])
			if same && prev.Hash == state.Hash {
				return e.store.PutTranscriptState(ctx, state)
			}
			sessions, err = reader.Parse(data, opts)
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
	if err := e.projectAll(ctx, c, path, sessions, keep, st); err != nil {
		return err
	}
	var all cairn.ParseStats
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

func mergeStats(dst *cairn.ParseStats, s cairn.ParseStats) {
	dst.Lines += s.Lines
	dst.Deduplicated += s.Deduplicated
	dst.PartialTail = dst.PartialTail || s.PartialTail
	dst.ConsumedBytes = max(dst.ConsumedBytes, s.ConsumedBytes)
	for k, v := range s.Skipped {
		if dst.Skipped == nil {
			dst.Skipped = map[string]int{}
		}
		dst.Skipped[k] += v
	}
}

// projectAll writes the projections of one file's sessions and removes the
// projections the file no longer produces.
func (e *Engine) projectAll(ctx context.Context, c cairn.Corpus, path string, sessions []cairn.Session, keep map[string]bool, st *cairn.SourceSyncStats) error {
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
		redactSession(s, st)
		p, ok := transcript.Project(s, transcript.Options{AgentName: e.opts.AgentName, Location: e.opts.Location})
		if !ok {
			st.Skipped++
			continue
		}
		prev, had := stale[p.Path]
		delete(stale, p.Path)
		if had && prev.ProjectionHash == p.Hash && prev.ProjectorVersion == transcript.Version && e.projectionExists(p.Path) {
			st.Unchanged++
			continue
		}
		if err := e.writeProjection(p, s.StartedAt); err != nil {
			return err
		}
		if err := e.store.PutSession(ctx, record(c.Name, path, s, p)); err != nil {
			return err
		}
		st.Projected++
	}
	for p := range stale {
		if err := e.removeProjection(ctx, c.Name, p); err != nil {
			return err
		}
		st.Removed++
	}
	return nil
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

// redactSession replaces secrets in everything a projection shows.
func redactSession(s *cairn.Session, st *cairn.SourceSyncStats) {
	count := func(c redact.Counts) {
		for k, v := range c {
			if st.Redactions == nil {
				st.Redactions = map[string]int{}
			}
			st.Redactions[k] += v
		}
	}
	clean := func(p *string) {
		var c redact.Counts
		*p, c = redact.Redact(*p)
		count(c)
	}
	clean(&s.Title)
	clean(&s.Label)
	for i := range s.Messages {
		m := &s.Messages[i]
		clean(&m.Text)
		clean(&m.Speaker)
		for j := range m.Tools {
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
	if err := e.projectAll(ctx, c, origin, sessions, nil, &st); err != nil {
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
