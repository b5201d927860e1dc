package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
)

// shareFirstByte is how long a one-shot command waits for a server to
// connect and send its status line. A live server on loopback accepts in
// microseconds and sends the status as soon as it has read the request,
// before it searches or embeds (embedshare.go), so this bounds no real
// work: on this project's loaded 2-core machine that takes a few
// milliseconds, and 500 ms leaves room for a garbage collection or a
// scheduling stall. A stopped server (kill -STOP) or a hung one still has
// its port open, so the kernel accepts the connection and nothing ever
// answers: this is what the command loses then, once.
const shareFirstByte = 500 * time.Millisecond

// shareTotal bounds a whole exchange once the server has answered: a
// search of a large index on a busy machine can take seconds.
const shareTotal = 60 * time.Second

// findShare returns the record of a server offering the embedder ec for
// dir, or false when there is none this command can trust.
func findShare(dir, configHash string, ec *config.Embedder) (embedShareRecord, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return embedShareRecord{}, false
	}
	path := filepath.Join(abs, embedShareFile)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return embedShareRecord{}, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return embedShareRecord{}, false
	}
	rec, err := readShareRecord(path)
	if err != nil || rec.Dir != abs || rec.Config != configHash || rec.Embedder != *ec || rec.Token == "" || rec.Identity.Key() == "" {
		return embedShareRecord{}, false
	}
	host, _, err := net.SplitHostPort(rec.Addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return embedShareRecord{}, false
	}
	if !pidAlive(rec.PID) {
		return embedShareRecord{}, false // a record left by a server that died
	}
	return rec, true
}

// shareFailures are the servers that failed this process (by token): one
// that did not answer or refused is not asked again, so a stopped server
// costs a command one short wait, not one per request.
type shareFailures struct {
	mu  sync.Mutex
	bad map[string]bool
}

// add marks rec failed and reports whether it was the first time.
func (f *shareFailures) add(rec embedShareRecord) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bad[rec.Token] {
		return false
	}
	if f.bad == nil {
		f.bad = map[string]bool{}
	}
	f.bad[rec.Token] = true
	return true
}

func (f *shareFailures) has(rec embedShareRecord) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bad[rec.Token]
}

// server returns a trusted server record for the agent's data directory
// that has not failed this process.
func (e *env) server(dir string, cfg *config.Config) (embedShareRecord, bool) {
	rec, ok := findShare(dir, configHash(cfg), cfg.Embedder)
	if !ok || e.shareBad.has(rec) {
		return embedShareRecord{}, false
	}
	return rec, true
}

// serverFailed marks rec failed and says so once on stderr, with what
// this command does instead.
func (e *env) serverFailed(rec embedShareRecord, err error, instead string) {
	if !e.shareBad.add(rec) {
		return
	}
	var ref *shareRefusal
	if errors.As(err, &ref) {
		fmt.Fprintf(e.stderr, "cairn: the server at %s (pid %d) refused: %s; %s\n", rec.Addr, rec.PID, ref.msg, instead)
		return
	}
	var unproven *shareUnproven
	if errors.As(err, &unproven) {
		fmt.Fprintf(e.stderr, "cairn: the server at %s (pid %d) %s, so it was sent nothing (its %s may be left from a server that died, or it is a cairn older than this one); %s\n",
			rec.Addr, rec.PID, unproven.Error(), embedShareFile, instead)
		return
	}
	fmt.Fprintf(e.stderr, "cairn: the server at %s (pid %d) did not answer; %s\n", rec.Addr, rec.PID, instead)
}

// shareRefusal is a server's answer other than 200: the wrong token, a
// request for another data directory.
type shareRefusal struct {
	status int
	msg    string
}

func (r *shareRefusal) Error() string { return fmt.Sprintf("status %d: %s", r.status, r.msg) }

// shareConn posts to a server's share listener.
type shareConn struct {
	rec embedShareRecord
}

func shareClient(rec embedShareRecord) *shareConn { return &shareConn{rec: rec} }

// post sends body and returns the response of a server that answered
// 200; any other status is a *shareRefusal, a server that did not prove
// it holds the record's token a *shareUnproven, and no answer a transport
// error.
//
// Nothing secret goes out before the proof (ux F17): a server killed with
// SIGKILL leaves its record behind, a later process of ours may get its
// pid (so pidAlive says yes), and any local user may then listen on the
// recorded port. So each request first dials the port and asks the
// listener to prove it holds the token (hello: a fresh nonce, answered
// with HMAC-SHA256 under the token); only on that same connection, to
// the peer that proved it, does the request with the token, the query,
// the data directory or a memory's text follow. The transport below is
// handed that one connection and can dial no other.
func (c *shareConn) post(ctx context.Context, path, contentType string, body io.Reader) (*http.Response, error) {
	conn, err := helloShare(ctx, c.rec)
	if err != nil {
		return nil, err
	}
	var handed atomic.Bool
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, ResponseHeaderTimeout: shareFirstByte,
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			if handed.Swap(true) {
				return nil, errors.New("share: a request gets one proven connection")
			}
			return conn, nil
		}}
	client := &http.Client{Timeout: shareTotal, Transport: tr}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.rec.Addr+path, body)
	if err != nil {
		conn.Close()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.rec.Token)
	req.Header.Set("Content-Type", contentType)
	resp, err := client.Do(req)
	if !handed.Load() {
		conn.Close() // the transport failed before it took the connection
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		return nil, &shareRefusal{status: resp.StatusCode, msg: refusalText(resp.StatusCode, msg)}
	}
	return resp, nil
}

// refusalText is a refusal's reason: the server's body, or the status
// when the body is empty (before, "refused: ;").
func refusalText(status int, body []byte) string {
	if msg := strings.TrimSpace(string(body)); msg != "" {
		return msg
	}
	return fmt.Sprintf("status %d %s", status, http.StatusText(status))
}

// shareUnproven is a listener on the recorded port that did not prove it
// holds the record's token: another program on a stale record's port, or
// a cairn server older than hello (it answers 404).
type shareUnproven struct{ why string }

func (u *shareUnproven) Error() string { return "did not prove it holds the token: " + u.why }

// shareHelloLabel starts the message a server signs; hello's MAC is
// good for nothing else.
const shareHelloLabel = "cairn share hello v1\n"

// shareHelloMAC is the server's answer to nonce under token.
func shareHelloMAC(token string, nonce []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(shareHelloLabel))
	m.Write(nonce)
	return m.Sum(nil)
}

// shareHello and shareHelloReply are the JSON of POST /hello.
type shareHello struct {
	Nonce string `json:"nonce"` // hex, shareNonceBytes
}

type shareHelloReply struct {
	MAC string `json:"mac"` // hex HMAC-SHA256(token, shareHelloLabel + nonce)
}

const shareNonceBytes = 32

// helloShare dials rec's address and returns the connection once the
// listener there has answered a fresh nonce with its HMAC under
// rec.Token. The hello carries no token, no data directory and no query;
// it gets shareFirstByte in all, like the first byte of any request.
func helloShare(ctx context.Context, rec embedShareRecord) (net.Conn, error) {
	nonce := make([]byte, shareNonceBytes)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: shareFirstByte}
	conn, err := d.DialContext(ctx, "tcp", rec.Addr)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			conn.Close()
		}
	}()
	conn.SetDeadline(time.Now().Add(shareFirstByte))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	body, _ := json.Marshal(shareHello{Nonce: hex.EncodeToString(nonce)})
	req, err := http.NewRequest(http.MethodPost, "http://"+rec.Addr+"/hello", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if err := req.Write(conn); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &shareUnproven{refusalText(resp.StatusCode, b)}
	}
	var rep shareHelloReply
	if json.Unmarshal(b, &rep) != nil {
		return nil, &shareUnproven{"wrong proof (not a hello reply)"}
	}
	if mac, err := hex.DecodeString(rep.MAC); err != nil || !hmac.Equal(mac, shareHelloMAC(rec.Token, nonce)) {
		return nil, &shareUnproven{"wrong proof"}
	}
	if br.Buffered() != 0 { // bytes the next request's reader would never see
		return nil, &shareUnproven{"wrong proof (more than the reply)"}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	conn.SetDeadline(time.Time{})
	ok = true
	return conn, nil
}

// pingShare asks rec's server whether it answers for, as a server does
// before it would replace the record.
func pingShare(ctx context.Context, rec embedShareRecord, f shareFor) error {
	b, _ := json.Marshal(f)
	resp, err := shareClient(rec).post(ctx, "/ping", "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// shareWorkError is the error of the work a server ran (its embedder's,
// its engine's): the server answered, so it is asked again.
type shareWorkError struct{ msg string }

func (w *shareWorkError) Error() string { return w.msg }

// isServerFailure tells a server that did not answer, refused or broke off
// (it is not asked again) from one whose work failed.
func isServerFailure(err error) bool {
	var w *shareWorkError
	return !errors.As(err, &w)
}

// remoteEmbedder embeds through a running server's shared embedder and
// falls back to its own (lazily built) one when the server does not
// answer. Its identity is the server's: the fallback is used only when it
// names the same vectors. After the server fails once it is not asked
// again (failed marks it for the whole command and says so).
type remoteEmbedder struct {
	conn     *shareConn
	target   shareFor
	fallback cairn.Embedder
	failed   func(error)
	down     atomic.Bool
}

func newRemoteEmbedder(rec embedShareRecord, f shareFor, fallback cairn.Embedder, failed func(error)) *remoteEmbedder {
	return &remoteEmbedder{conn: shareClient(rec), target: f, fallback: fallback, failed: failed}
}

func (r *remoteEmbedder) Identity() cairn.EmbedderIdentity { return r.conn.rec.Identity }

func (r *remoteEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if len(texts) <= embedShareMaxTexts && !r.down.Load() {
		vecs, err := r.remote(ctx, kind, texts)
		if err == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if isServerFailure(err) && !r.down.Swap(true) && r.failed != nil {
			r.failed(err)
		}
	}
	rec := r.conn.rec
	if r.fallback.Identity().Key() != rec.Identity.Key() {
		return nil, fmt.Errorf("embed: the server (pid %d) that holds %s did not answer, and the configured model now loads as %s: %w",
			rec.PID, rec.Identity.Key(), r.fallback.Identity().Key(), cairn.ErrUnavailable)
	}
	return r.fallback.Embed(ctx, kind, texts)
}

func (r *remoteEmbedder) remote(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embedShareRequest{shareFor: r.target, Kind: kind, Texts: texts})
	if err != nil {
		return nil, err
	}
	resp, err := r.conn.post(ctx, "/embed", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out embedShareResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("embed through server: %w", err)
	}
	if out.Error != "" {
		return nil, &shareWorkError{"embed through server: " + out.Error}
	}
	if len(out.Vectors) != len(texts) {
		return nil, errors.New("embed through server: wrong number of vectors")
	}
	return out.Vectors, nil
}

// Close closes the fallback if it was built.
func (r *remoteEmbedder) Close() error {
	if c, ok := r.fallback.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// remoteEmbedder wraps emb with the embedder of a running server of dir
// for this command's agent, when there is one it trusts (embedshare.go).
func (e *env) remoteEmbedder(dir string, cfg *config.Config, emb cairn.Embedder) cairn.Embedder {
	rec, ok := e.server(dir, cfg)
	if !ok {
		return emb
	}
	abs, _ := filepath.Abs(dir)
	return newRemoteEmbedder(rec, shareFor{Dir: abs, Agent: e.agent}, emb, func(err error) {
		e.serverFailed(rec, err, "embedding in process") // a query, or a memory's text (remember)
	})
}

// searchThroughServer runs the search on a trusted running server of the
// agent's data directory; ok is false when there is none or it did not
// answer, and the caller searches in process. rec is the server's record
// when one answered.
func (e *env) searchThroughServer(ctx context.Context, cfg *config.Config, dir, query string, opts *cairn.SearchOptions) (rep shareSearchReply, rec embedShareRecord, ok bool) {
	if cfg.Embedder == nil || opts.Mode == cairn.ModeLexical {
		return rep, rec, false // lexical one-shot searches take 20 ms in process
	}
	rec, found := e.server(dir, cfg)
	if !found {
		return rep, rec, false
	}
	abs, _ := filepath.Abs(dir)
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(shareSearchRequest{For: shareFor{Dir: abs, Agent: e.agent}, Query: query, Opts: *opts}); err != nil {
		return rep, rec, false
	}
	resp, err := shareClient(rec).post(ctx, "/search", "application/x-gob", &body)
	if err == nil {
		defer resp.Body.Close()
		err = gob.NewDecoder(resp.Body).Decode(&rep)
	}
	if err != nil {
		if ctx.Err() == nil {
			e.serverFailed(rec, err, "searching in process")
		}
		return shareSearchReply{}, rec, false
	}
	if rep.Err != "" { // the engine's own error: in process says it
		return shareSearchReply{}, rec, false
	}
	return rep, rec, true
}

// pendingWho says who will embed the chunks waiting for vectors: the
// running server whose record is rec when it holds the sync lock of dir
// (its first sync, or a later one), another process that holds it, or
// nobody yet (run cairn sync, which would otherwise wait for that lock).
func pendingWho(dir string, rec embedShareRecord) string {
	b, _ := os.ReadFile(filepath.Join(dir, engine.LockFile))
	// The holder writes "PID syncing" and empties the file when done; a
	// holder killed during a sync leaves the line and a dead pid.
	f := strings.Fields(string(b))
	var pid int
	if len(f) == 2 && f[1] == "syncing" {
		fmt.Sscan(f[0], &pid)
	}
	switch {
	case !pidAlive(pid):
		return "run cairn sync"
	case pid == rec.PID:
		return fmt.Sprintf("a running cairn %s (pid %d) is embedding them", orServe(rec.Command), pid)
	default:
		return fmt.Sprintf("a running cairn (pid %d) holds the sync lock and is embedding them", pid)
	}
}
