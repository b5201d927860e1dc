package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the longest message StdioTransport reads, the same
// as the HTTP body limit.
const DefaultMaxLineBytes = DefaultMaxBodyBytes

// StdioTransport serves MCP over newline-delimited JSON (the MCP stdio
// transport) and, unlike the SDK's, survives bad input: each line is
// checked before the SDK sees it, and a line that is not JSON, not a
// JSON-RPC message, a batch, or longer than MaxLineBytes is answered with a
// JSON-RPC error (-32700 or -32600, id null unless the line had a usable
// id) while the session goes on with the next line. Blank lines are
// skipped. A line over the limit is read on and thrown away, never held.
//
// At the end of the input (a last line without a newline is still a line)
// the session does not end at once: the calls already read are answered
// first, waiting up to DrainTimeout for them (the SDK would cancel them
// and write no reply), so `printf '...' | cairn mcp` gets every reply.
// A call made before initialize gets -32600 (see inflight.answered).
type StdioTransport struct {
	Reader       io.Reader     // nil: os.Stdin
	Writer       io.Writer     // nil: os.Stdout
	MaxLineBytes int           // default DefaultMaxLineBytes
	DrainTimeout time.Duration // default DefaultDrainTimeout
}

// Connect implements mcp.Transport. Closing the connection closes Reader
// and Writer when they are io.Closers (os.Stdout never).
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	r, w := t.Reader, t.Writer
	if r == nil {
		r = os.Stdin
	}
	if w == nil {
		w = nopWriteCloser{os.Stdout}
	}
	limit := t.MaxLineBytes
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	drain := t.DrainTimeout
	if drain <= 0 {
		drain = DefaultDrainTimeout
	}
	calls := newInflight()
	out := &lineWriter{w: w, calls: calls}
	in := &lineReader{src: r, r: bufio.NewReaderSize(r, 64<<10), max: limit, out: out,
		calls: calls, drain: drain, closed: make(chan struct{})}
	// Every line the SDK gets is one checked message, at most limit bytes:
	// its own cap is not needed.
	return (&mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter writes whole lines under a lock, so the errors lineReader
// writes never interleave with the SDK's messages (the SDK writes each
// message with one Write call). Each of the SDK's messages is noted in
// calls (and its error code mended) before it is written.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inflight
}

func (w *lineWriter) Write(p []byte) (int, error) {
	line := w.calls.answered(p)
	if _, err := w.writeOwn(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeOwn writes a line of the transport's own, bypassing calls.
func (w *lineWriter) writeOwn(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *lineWriter) Close() error {
	if c, ok := w.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// lineReader hands the SDK only lines that pass checkPayload, one at a
// time, and answers the others on out.
type lineReader struct {
	src     io.Reader
	r       *bufio.Reader
	max     int
	out     *lineWriter
	calls   *inflight
	drain   time.Duration // the longest wait for replies at the end
	closed  chan struct{} // closed by Close
	once    sync.Once
	line    []byte // the current line, up to max bytes
	pending []byte // the part of a checked line not yet read
	err     error  // the read error that ends the input
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			if errors.Is(l.err, io.EOF) {
				// Answer what was read before the SDK hears of the end.
				l.calls.wait(l.drain, l.closed)
			}
			return 0, l.err
		}
		line, tooLong, err := l.next()
		l.err = err
		line = bytes.TrimSpace(line)
		var bad *rpcError
		switch {
		case tooLong:
			bad = invalidRequest(nil, "the message is over %d bytes", l.max)
		case len(line) == 0:
			continue
		default:
			bad = checkPayload(line, false)
		}
		if bad != nil {
			if _, err := l.out.writeOwn(bad.line()); err != nil {
				return 0, fmt.Errorf("write error response: %w", err)
			}
			continue
		}
		l.calls.sent(line)
		l.pending = append(line, '\n')
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads one line without its newline. A line longer than max is read
// to its end and dropped (tooLong), so memory stays at max whatever comes.
// At the end of the input the last line (if any) comes with io.EOF.
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	l.line = l.line[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.line)+len(frag) > l.max+1 { // +1: the newline
				tooLong, l.line = true, l.line[:0]
			} else {
				l.line = append(l.line, frag...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return l.line, tooLong, err
		}
		return l.line, tooLong, nil
	}
}

func (l *lineReader) Close() error {
	l.once.Do(func() { close(l.closed) })
	if c, ok := l.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
