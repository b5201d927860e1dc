package engine

import (
	"context"
	"os"
	"slices"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/transcript"
)

// sessionReader returns the reader of a session source: one of
// Options.SessionReaders (the OpenClaw store reader cmd/cairn passes, which
// reads both of its storage generations) before package ingest's own.
func (e *Engine) sessionReader(id string) (ingest.SourceReader, bool) {
	for _, r := range e.opts.SessionReaders {
		if r.ID == id {
			return r, true
		}
	}
	return ingest.Reader(id)
}

// readerIDs lists the session sources this engine reads, sorted.
func (e *Engine) readerIDs() []string {
	ids := ingest.ReaderIDs()
	for _, r := range e.opts.SessionReaders {
		if !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TranscriptsChanged counts the transcript files of the sessions corpus
// whose size or modification time differ from what the last session sync
// read, new files included: what the next sync will project. Roots that
// cannot be read count nothing, and so does an index that cannot be read.
func (e *Engine) TranscriptsChanged(ctx context.Context) int {
	var corpus *cairn.Corpus
	for i, c := range e.opts.Corpora {
		if c.Kind == cairn.KindSessions {
			corpus = &e.opts.Corpora[i]
			break
		}
	}
	if corpus == nil {
		return 0
	}
	states, err := e.store.TranscriptStates(ctx, corpus.Name)
	if err != nil {
		return 0
	}
	n := 0
	for _, src := range corpus.Sources {
		reader, ok := e.sessionReader(src.ID)
		if !ok {
			continue
		}
		for _, root := range src.Roots {
			files, _ := reader.Find(root)
			for _, f := range files {
				fi, err := os.Stat(f)
				st, seen := states[TranscriptKey(f)] // states are kept by key
				if err == nil && (!seen || st.Size != fi.Size() || st.ModTime != fi.ModTime().UnixNano() ||
					st.ProjectorVersion != transcript.Version) {
					n++
				}
			}
		}
	}
	return n
}
