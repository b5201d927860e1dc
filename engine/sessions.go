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
//
// A transcript is read again when its size or mtime changed, when one of
// its projection files is missing (the projections are Cairn's own copy:
// a deleted one is rebuilt from the transcript), when force is set, and,
// for every transcript, when the projection settings changed
// (projectionKey: projector version, time zone, agent name, chat types,
// redaction rules). The result's SkipReason says when the sync indexed
// nothing (spec C9): "no_changes" when no transcript needed reading,
// "no_indexable_changes" when transcripts were read but no projection
// changed; LastIndexedAt moves only when something reached the index.
func (e *Engine) syncSessions(ctx context.Context, c cairn.Corpus, force bool, progress func(cairn.ProgressEvent), status *SyncStatus) (cairn.CorpusSyncResult, error) {
	started := time.Now()
	run, err := e.newSessionRun(ctx, c, force)
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
		reader, ok := e.sessionReader(src.ID)
		if !ok {
			return cairn.CorpusSyncResult{Name: c.Name}, cairn.Invalidf("unknown session source %q: allowed %v", src.ID, e.readerIDs())
		}
		for _, root := range src.Roots {
			files, err := reader.Find(root)
			if err != nil {
				key := TranscriptKey(root)
				st.Failures = append(st.Failures, cairn.FileFailure{Path: key, Reason: "unreadable root: " + cleanReason(err.Error(), root, key)})
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
		seen[TranscriptKey(j.file)] = true
		if err := e.syncTranscript(ctx, run, j.reader, j.root, j.file, &ss.Sources[j.stats]); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
	}
	for i := range ss.Sources {
		ss.Sources[i].Failed = len(ss.Sources[i].Failures)
	}
	if c.DropRemoved {
		if err := e.dropVanished(ctx, c, run.states, seen, ss); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
	}
	if run.rekey {
		if err := e.store.SetProjectionKey(ctx, c.Name, run.key); err != nil {
			return cairn.CorpusSyncResult{Name: c.Name}, err
		}
	}
	ss.LastCheckedAt = started.UTC().Format(time.RFC3339)
	status.Phase = "indexing"
	_ = e.saveStatus(status)
	r, err := e.indexSessions(ctx, c, progress)
	if err != nil {
		r.Sessions = ss
		return r, err
	}
	ss.LastIndexedAt = status.LastIndexedAt // the last sync that indexed something
	switch {
	case force || r.Added+r.Updated+r.Removed > 0:
		ss.LastIndexedAt = now()
	case run.read > 0 || slices.ContainsFunc(ss.Sources, func(s cairn.SourceSyncStats) bool { return s.Removed > 0 }):
		ss.SkipReason = SkipNoIndexableChanges
	default:
		ss.SkipReason = SkipNoChanges
	}
	r.Sessions = ss
	return r, nil
}

// Skip reasons of a session sync that indexed nothing (spec C9, C15).
const (
	SkipNoChanges          = "no_changes"           // no transcript needed reading
	SkipNoIndexableChanges = "no_indexable_changes" // transcripts were read, no projection changed
)

// indexSessions indexes the sessions folder like a files corpus. The
// folder is created first: with no session projected yet it would count
// as a missing corpus root, a failure.
func (e *Engine) indexSessions(ctx context.Context, c cairn.Corpus, progress func(cairn.ProgressEvent)) (cairn.CorpusSyncResult, error) {
	if err := os.MkdirAll(e.sessionsRoot(), 0o700); err != nil {
		return cairn.CorpusSyncResult{Name: c.Name}, fmt.Errorf("create sessions folder: %w", err)
	}
	return e.syncCorpus(ctx, cairn.Corpus{Name: c.Name, Kind: cairn.KindFiles, Paths: []string{e.sessionsRoot()}, Glob: cairn.DefaultGlob}, false, progress)
}

// sessionRun is what one sync of a sessions corpus knows before reading
// its transcripts.
type sessionRun struct {
	c           cairn.Corpus
	force       bool // re-read every transcript, rewrite every projection
	states      map[string]cairn.TranscriptState
	projections map[string][]string // transcript path → its projection paths
	key         string              // projection settings now
	rekey       bool                // they differ from those recorded
	read        int                 // transcripts read (changed fingerprint, missing projection, forced)
}

func (e *Engine) newSessionRun(ctx context.Context, c cairn.Corpus, force bool) (*sessionRun, error) {
	run := &sessionRun{c: c, force: force, key: e.projectionKey(c), projections: map[string][]string{}}
	var err error
	if run.states, err = e.store.TranscriptStates(ctx, c.Name); err != nil {
		return nil, err
	}
	prev, err := e.store.ProjectionKey(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	// An index from before the key was recorded holds projections made with
	// settings nobody wrote down: project them again once.
	run.rekey = prev != run.key
	recs, err := e.store.SessionsOf(ctx, c.Name, "")
	if err != nil {
		return nil, err
	}
	// States and records are kept by transcript key; an older version
	// stored raw paths, secrets included: rename those first.
	paths := slices.Collect(maps.Keys(run.states))
	for _, r := range recs {
		paths = append(paths, r.Transcript)
	}
	if renamed, err := e.rekeyTranscripts(ctx, c.Name, paths); err != nil {
		return nil, err
	} else if renamed {
		if run.states, err = e.store.TranscriptStates(ctx, c.Name); err != nil {
			return nil, err
		}
		if recs, err = e.store.SessionsOf(ctx, c.Name, ""); err != nil {
			return nil, err
		}
	}
	for _, r := range recs {
		run.projections[r.Transcript] = append(run.projections[r.Transcript], r.Path)
	}
	return run, nil
}

// projectionKey is what shapes a corpus's projections besides the
// transcripts themselves; a change re-projects every session.
func (e *Engine) projectionKey(c cairn.Corpus) string {
	loc := "UTC"
	if e.opts.Location != nil {
		loc = e.opts.Location.String()
	}
	types := slices.Clone(chatTypes(c))
	slices.Sort(types)
	b, _ := json.Marshal([]any{transcript.Version, e.opts.AgentName, loc, types, redactVersion})
	return string(b)
}

// unchanged reports whether a transcript can be skipped without reading:
// not forced, settings as recorded, read without a fatal error by this
// projector, and every projection it produced still on disk.
func (run *sessionRun) unchanged(prev cairn.TranscriptState, e *Engine) bool {
	if run.force || run.rekey || prev.Path == "" || prev.ProjectorVersion != transcript.Version || prev.Error != "" {
		return false
	}
	for _, p := range run.projections[prev.Path] {
		if !e.projectionExists(p) {
			return false
		}
	}
	return true
}

// syncTranscript re-reads one transcript file when it changed and rewrites
// the projections of its sessions. A file that cannot be parsed is a
// failure that keeps its previous projections. The file is opened under its
// source root (ingest.OpenTranscript: regular files only, symbolic links
// only within the root) and read with bounded memory (ingest.ReadTranscript);
// what the read cut is counted in st.Truncated. The file is read by its
// path; everything stored or reported names it by its key (TranscriptKey).
func (e *Engine) syncTranscript(ctx context.Context, run *sessionRun, reader ingest.SourceReader, root, path string, st *cairn.SourceSyncStats) error {
	key := TranscriptKey(path)
	c, prev := run.c, run.states[key]
	fail := func(p, reason string) {
		st.Failures = append(st.Failures, cairn.FileFailure{Path: p, Reason: cleanReason(reason, path, key)})
	}
	f, fi, err := ingest.OpenTranscript(root, path)
	if err != nil {
		fail(key, "not read: "+err.Error())
		if run.rekey && prev.Path != "" {
			// The new settings are recorded at the end of this sync: make
			// sure this transcript is still re-projected once it opens.
			prev.ProjectorVersion = 0
			return e.store.PutTranscriptState(ctx, prev)
		}
		return nil
	}
	defer f.Close()
	state := cairn.TranscriptState{Corpus: c.Name, Source: reader.ID, Path: key, Size: fi.Size(),
		ModTime: fi.ModTime().UnixNano(), ProjectorVersion: transcript.Version, CheckedAt: time.Now().UnixMilli()}
	same := run.unchanged(prev, e)
	if same && prev.Size == state.Size && prev.ModTime == state.ModTime {
		reportCuts(st, prev.Stats)
		return nil
	}
	run.read++
	opts := ingest.ParseOptions{Path: path, Location: e.opts.Location}
	var sessions []cairn.Session
	var cuts map[string]int
	if reader.ParseFile != nil && ingest.IsStore(path) { // an OpenClaw or Cursor SQLite store
		f.Close() // SQLite opens the store by its path; it was checked above
		sessions, err = reader.ParseFile(path, opts)
	} else {
		var bd ingest.BoundedData
		if bd, err = ingest.ReadTranscript(f, path); err == nil {
			state.Hash, cuts = bd.Hash, maps.Clone(bd.Cut)
			if same && prev.Hash == state.Hash {
				state.Stats = prev.Stats
				reportCuts(st, prev.Stats)
				return e.store.PutTranscriptState(ctx, state)
			}
			sessions, err = reader.Parse(bd.Data, opts)
		}
	}
	st.FilesChanged++
	keep := map[string]bool{} // sessions that failed: their previous projections stay
	var partial *ingest.FailedSessions
	switch {
	case errors.As(err, &partial):
		for _, f := range partial.Sessions {
			id := TranscriptKey(f.SessionID) // as redactSession stores it
			keep[id] = true
			fail(key+"#"+id, f.Err.Error())
		}
		state.Error = cleanReason(err.Error(), path, key) // re-read next time
	case err != nil:
		fail(key, err.Error())
		state.Error = cleanReason(err.Error(), path, key)
		return e.store.PutTranscriptState(ctx, state)
	}
	addCounts(&st.Truncated, cuts)
	all := transcriptStats{ParseStats: cairn.ParseStats{Truncated: cuts}}
	if err := e.projectAll(ctx, c, key, sessions, keep, run.force, st, &all); err != nil {
		return err
	}
	for _, s := range sessions {
		mergeStats(&all.ParseStats, s.Stats)
	}
	for k, v := range all.Skipped {
		if st.LinesSkipped == nil {
			st.LinesSkipped = map[string]int{}
		}
		st.LinesSkipped[k] += v
	}
	st.AddDiagnostics(all.Envelopes)
	b, _ := json.Marshal(all)
	state.Stats = string(b)
	return e.store.PutTranscriptState(ctx, state)
}

// transcriptStats is what a transcript's state keeps of its last read: the
// parse stats (with what reading and projecting cut) and the sessions left
// out by reason.
type transcriptStats struct {
	cairn.ParseStats
	SessionsSkipped map[string]int `json:",omitempty"`
}

// reportCuts repeats, for a transcript that did not change, what its last
// read cut and which sessions it left out (kept in its state's stats), so
// the sync status keeps saying so. The sessions left out count in Skipped
// too, so that Skipped is the sum of SkipReasons (ux F11: "skipped 0"
// beside a reason counting 1 on a sync that read nothing again).
func reportCuts(st *cairn.SourceSyncStats, stats string) {
	var prev transcriptStats
	if stats != "" && json.Unmarshal([]byte(stats), &prev) == nil {
		addCounts(&st.Truncated, prev.Truncated)
		addCounts(&st.SkipReasons, prev.SessionsSkipped)
		for _, n := range prev.SessionsSkipped {
			st.Skipped += n
		}
		st.AddDiagnostics(prev.Envelopes)
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
	dst.Envelopes.Add(s.Envelopes)
	for k, v := range s.Skipped {
		if dst.Skipped == nil {
			dst.Skipped = map[string]int{}
		}
		dst.Skipped[k] += v
	}
}

// projectAll writes the projections of one file's sessions (the file named
// by its transcript key) and removes the
// projections the file no longer produces. A session whose projection is
// over transcript.DefaultMaxPartBytes is written in parts, each a document
// and a session record of its own. A projection is written when its text,
// path or projector version changed, when its file is missing, or always
// with force. What projecting cut and which sessions it left out are added
// to st and, when all is not nil, to *all (the transcript's stats).
func (e *Engine) projectAll(ctx context.Context, c cairn.Corpus, path string, sessions []cairn.Session, keep map[string]bool, force bool, st *cairn.SourceSyncStats, all *transcriptStats) error {
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
	if all == nil {
		all = &transcriptStats{}
	}
	skip := func(reason string) {
		st.Skipped++
		st.SkipReasons = addOne(st.SkipReasons, reason)
		all.SessionsSkipped = addOne(all.SessionsSkipped, reason)
	}
	for i := range sessions {
		s := &sessions[i]
		st.Sessions++
		if s.ChatType != "" && !slices.Contains(chatTypes(c), s.ChatType) {
			skip(SkipChatType(s.ChatType))
			continue
		}
		boundSession(s)
		redactSession(s, st)
		p, ok := transcript.Project(s, transcript.Options{AgentName: e.opts.AgentName, Location: e.opts.Location})
		if !ok {
			skip(SkipEmpty)
			continue
		}
		addCounts(&st.Truncated, p.Cut)
		addCounts(&all.Truncated, p.Cut)
		parts := p.Parts(transcript.DefaultMaxPartBytes)
		if len(parts) > 1 {
			st.Truncated = addOne(st.Truncated, CutParts)
			all.Truncated = addOne(all.Truncated, CutParts)
		}
		changed := false
		for _, part := range parts {
			prev, had := stale[part.Path]
			delete(stale, part.Path)
			if !force && had && prev.ProjectionHash == part.Hash && prev.ProjectorVersion == transcript.Version && e.projectionExists(part.Path) {
				continue
			}
			if err := e.putProjection(ctx, c.Name, path, s, part); err != nil {
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

// putProjection writes one projection file and its session record. The
// indexed document is marked stale first: the file keeps the session start
// as its mtime and often its length, so the files pass would otherwise
// trust size and mtime and keep serving the old text. Marked before the
// write, a sync killed in between still reads the file next time.
func (e *Engine) putProjection(ctx context.Context, corpus, transcriptPath string, s *cairn.Session, part transcript.Projection) error {
	if err := e.store.MarkStale(ctx, corpus, part.Path); err != nil {
		return err
	}
	if err := e.writeProjection(part, s.StartedAt); err != nil {
		return err
	}
	return e.store.PutSession(ctx, record(corpus, transcriptPath, s, part))
}

// Reasons a session is left out of the index, counted in
// SourceSyncStats.SkipReasons, and the count of sessions too long for one
// document and projected in parts (transcript.DefaultMaxPartBytes), in
// SourceSyncStats.Truncated: codes of the root package (cairn.ReasonText).
const (
	SkipEmpty = cairn.SkipEmptySession
	CutParts  = cairn.CutParts
)

// SkipChatType is the reason code for a session whose chat type the
// corpus's chatTypes do not select: "direct_chats_not_selected".
func SkipChatType(chatType string) string { return cairn.SkipChatType(chatType) }

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
// tool call's name, input and output. The session and parent ids link
// records, so they are only changed when they hold a secret (an id taken
// from a file name): then, like a transcript path, they become the
// redacted id, "#" and a hash of the id (TranscriptKey), the same for the
// session and for the parent that names it. The session is one document
// for redaction (redact.RedactParts): a value a rule replaced in one field
// (the user's "the password is hunter2") is replaced where any field
// repeats it bare (the assistant's "I will not repeat hunter2").
func redactSession(s *cairn.Session, st *cairn.SourceSyncStats) {
	s.ID, s.ParentID = TranscriptKey(s.ID), TranscriptKey(s.ParentID)
	parts := []*string{&s.Title, &s.Label, &s.Cwd, &s.ConversationID, &s.AccountID, &s.GitBranch, &s.AgentID}
	for i := range s.Messages {
		m := &s.Messages[i]
		parts = append(parts, &m.Text, &m.Speaker, &m.Model)
		for j := range m.Tools {
			parts = append(parts, &m.Tools[j].Name, &m.Tools[j].Input, &m.Tools[j].Output)
		}
	}
	addCounts(&st.Redactions, redact.RedactParts(parts))
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
	if err := CanWrite(ctx, corpus); err != nil { // scope.go
		return nil, err
	}
	c, ok := e.corpus(corpus)
	if !ok || c.Kind != cairn.KindSessions {
		return nil, cairn.Invalidf("import into %q: not a configured sessions corpus", corpus)
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	st := cairn.SourceSyncStats{Source: "import"}
	if err := e.projectAll(ctx, c, TranscriptKey(origin), sessions, nil, false, &st, nil); err != nil {
		return nil, err
	}
	r, err := e.indexSessions(ctx, c, nil)
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
	if err := CanRead(ctx, corpus); err != nil { // scope.go
		return nil, err
	}
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
