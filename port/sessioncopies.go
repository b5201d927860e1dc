package port

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/atomicfile"
)

// sessionRef names an imported session: its corpus and the path of its
// projection, which is also its document's path.
type sessionRef struct{ corpus, path string }

// documentTexter reads a document's stored text (cairn.Store).
type documentTexter interface {
	DocumentText(ctx context.Context, corpus, path string) (string, error)
}

// writeSessionCopies writes the stored text of each imported session's
// document to dir/<path>, the copy a sync keeps of each session
// (ux U26: without them the first sync after an import found every copy
// missing and removed the sessions whose transcripts were gone). Each
// file is written atomically, mode 0600 in 0700 folders; its path was
// checked when the row was read (checkDocPath). A session whose document
// did not come in (left out by Partial) is skipped; the first error stops
// the writing. It returns how many copies it wrote. The next sync finds
// the copy's text equal to the stored one and only records its size and
// time.
func writeSessionCopies(ctx context.Context, p cairn.Porter, dir string, sessions []sessionRef) (int, error) {
	st, ok := p.(documentTexter)
	if !ok || len(sessions) == 0 {
		return 0, nil
	}
	n := 0
	for _, s := range sessions {
		text, err := st.DocumentText(ctx, s.corpus, s.path)
		if errors.Is(err, cairn.ErrNotFound) || err == nil && text == "" {
			continue
		}
		if err == nil {
			err = writeCopy(filepath.Join(dir, filepath.FromSlash(s.path)), text)
		}
		if err != nil {
			return n, fmt.Errorf("write session copy %s: %w", s.path, err)
		}
		n++
	}
	return n, nil
}

// writeCopy writes text to path atomically, as the engine writes session
// copies (atomicfile.Write).
func writeCopy(path, text string) error { return atomicfile.Write(path, []byte(text)) }
