package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/explore"
)

// Retrieval keys of a memory (spec §7): its document
// (consolidate.Document) is chunked by memoryChunker, not by the
// structural chunker, so that each key is a chunk of its own:
//
//   - the content key: the title, the line of kind and dates, "About:"
//     and the summary;
//   - the body (with "Applies when:"), cut by the structural chunker when
//     it is long;
//   - one chunk per cue.
//
// Every key is searched lexically and has its own vector; a memory is one
// unit in both lanes (bestPerUnit, docKey), so it scores by its best key.
// The body has a vector too, which §7 does not ask for: a procedure's or
// a snippet's substance is in its body. The concepts and the sources are
// noise: stored for exact reads, never searched (explore reads concepts
// from the memories table; embedding concepts did not help retrieval,
// §7).
//
// Documents indexed before these keys keep their chunks until their
// memory changes or the index is rebuilt.
type memoryChunker struct{ body cairn.Chunker }

// chunkerFor is the chunker of a corpus's documents.
func (e *Engine) chunkerFor(corpus string) cairn.Chunker {
	if corpus == cairn.MemoriesCorpus {
		return memoryChunker{body: e.opts.Chunker}
	}
	return e.opts.Chunker
}

// para is one paragraph of a document: text[pos:end] (its last line's
// newline excluded), starting on line (1-based).
type para struct{ pos, end, line int }

// paragraphs splits text at blank lines.
func paragraphs(text string) []para {
	var out []para
	open := false
	line := 1
	for pos := 0; pos < len(text); line++ {
		next := strings.IndexByte(text[pos:], '\n')
		if next < 0 {
			next = len(text)
		} else {
			next += pos
		}
		if strings.TrimSpace(text[pos:next]) == "" {
			open = false
		} else if !open {
			out = append(out, para{pos: pos, end: next, line: line})
			open = true
		} else {
			out[len(out)-1].end = next
		}
		pos = next + 1
	}
	return out
}

// Chunk cuts a memory document into its keys; a text not in the shape
// consolidate.Document writes goes to the body chunker whole.
func (mc memoryChunker) Chunk(text string) []cairn.Chunk {
	ps := paragraphs(text)
	if len(ps) < 2 || !strings.HasPrefix(text, "# ") {
		return mc.body.Chunk(text)
	}
	var out []cairn.Chunk
	add := func(pos, end, line int, noise bool) {
		s := text[pos:end]
		out = append(out, cairn.Chunk{Seq: len(out), Pos: pos, Len: len(s), StartLine: line,
			EndLine: line + strings.Count(s, "\n"), Tokens: chunk.EstimateTokens(s), Noise: noise})
	}
	marker := func(p para, m string) bool { return strings.HasPrefix(text[p.pos:p.end], m) }
	// The content key: title, kind line, About when present, summary.
	i := 2
	if i < len(ps) && marker(ps[i], "About: ") {
		i++
	}
	if i < len(ps) && !marker(ps[i], "Cues:\n") && !marker(ps[i], "Concepts: ") && !marker(ps[i], "Sources:\n") {
		i++
	}
	add(ps[0].pos, ps[i-1].end, 1, false)
	// The body: paragraphs up to the cues, concepts or sources.
	j := i
	for j < len(ps) && !marker(ps[j], "Cues:\n") && !marker(ps[j], "Concepts: ") && !marker(ps[j], "Sources:\n") {
		j++
	}
	if j > i {
		from, to := ps[i].pos, ps[j-1].end
		lines := ps[i].line - 1
		for _, c := range mc.body.Chunk(text[from:to]) {
			c.Seq, c.Pos = len(out), c.Pos+from
			c.StartLine += lines
			c.EndLine += lines
			out = append(out, c)
		}
	}
	// One chunk per cue line; the "Cues:" line goes with the first.
	if j < len(ps) && marker(ps[j], "Cues:\n") {
		p := ps[j]
		type span struct{ pos, end int }
		var lines []span
		for pos := p.pos; pos <= p.end; {
			end := pos + strings.IndexByte(text[pos:p.end]+"\n", '\n')
			lines = append(lines, span{pos, end})
			pos = end + 1
		}
		for k := 1; k < len(lines); k++ {
			pos, line := lines[k].pos, p.line+k
			if k == 1 {
				pos, line = p.pos, p.line
			}
			// A cue that was a secret is a placeholder, the same in every
			// memory that had one: as a key it would match a search for
			// "redacted" and give those memories one vector, nearest
			// neighbours of each other in explore (ux F14). Stored, not
			// searched.
			add(pos, lines[k].end, line, explore.OnlyRedacted(strings.TrimPrefix(text[lines[k].pos:lines[k].end], "- ")))
		}
		j++
	}
	// Concepts and sources: stored, not searched.
	if j < len(ps) {
		add(ps[j].pos, ps[len(ps)-1].end, ps[j].line, true)
	}
	return out
}

// embedMemories embeds the chunks of the given memory documents that have
// no vector yet, so that memories a consolidation or a sleep run wrote are
// found by the vector lane at once, not after the next sync. An embedder
// that fails leaves them pending (the next sync embeds them; searches say
// so meanwhile) and is told to Logf: the memories are stored either way.
func (e *Engine) embedMemories(ctx context.Context, hashes []string) {
	if e.opts.Embedder == nil || len(hashes) == 0 {
		return
	}
	if err := e.embedChunksOf(ctx, hashes); err != nil && e.opts.Logf != nil {
		e.opts.Logf("embed memories (the next sync embeds them): %v", err)
	}
}

func (e *Engine) embedChunksOf(ctx context.Context, hashes []string) error {
	id := e.identity()
	pending, err := e.store.PendingChunksOf(ctx, id, hashes)
	if err != nil {
		return err
	}
	for len(pending) > 0 {
		batch := pending[:min(len(pending), embedBatch)]
		pending = pending[len(batch):]
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for i, c := range batch {
			texts[i], ids[i] = c.Text, c.ID
		}
		vecs, err := e.opts.Embedder.Embed(ctx, cairn.EmbedDocument, texts)
		if err != nil {
			return fmt.Errorf("embed memory chunks: %w", err)
		}
		if err := e.store.PutVectors(ctx, id, ids, vecs); err != nil {
			return err
		}
	}
	return nil
}
