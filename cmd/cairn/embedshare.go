package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// A running cairn serve or cairn mcp has its embedder loaded and its
// vector index in memory; a one-shot cairn search in hybrid or vector
// mode would spend 0.4 to 1.5 s starting ONNX Runtime and loading the
// model to embed one query, and 0.2 to 0.5 s more mapping and checking
// vectors.bin. So each server offers its agent's engine to the one-shot
// commands of the same data directory: it listens on a loopback port of
// its own and records the address, a random token, its configuration's
// hash and its embedder table in the agent's data directory
// (embedShareFile, mode 0600). cairn search, finding a record it can
// trust, sends the query and options there (POST /search: the server's
// engine runs the search it would have run, and the hits come back whole,
// in gob) and prints them as if it had searched itself. Other one-shot
// commands that embed a query (recall, gather) get the vector from POST
// /embed and search in process. Without a server, or when the server does
// not answer, each does everything itself, as before.
//
// A record is trusted only when it is a regular file owned by this user
// and readable by no one else, names this data directory, a loopback
// address and a process that is alive, and holds the same [embedder]
// table and the same configuration file content as this command's.
const embedShareFile = "server.json"

// embedShareRecord is the content of embedShareFile.
type embedShareRecord struct {
	Dir      string                 `json:"dir"`  // the agent's data directory, absolute
	Addr     string                 `json:"addr"` // loopback host:port
	Token    string                 `json:"token"`
	PID      int                    `json:"pid"`
	Config   string                 `json:"config"` // sha256 of the configuration file the server read
	Embedder config.Embedder        `json:"embedder"`
	Identity cairn.EmbedderIdentity `json:"identity"` // the served embedder's
}

// embedShareRequest and embedShareResponse are the wire format of
// POST /embed.
type embedShareRequest struct {
	Kind  string   `json:"kind"`
	Texts []string `json:"texts"`
}

type embedShareResponse struct {
	Vectors [][]float32 `json:"vectors"`
}

// shareSearchRequest and shareSearchReply are the gob body of POST
// /search: gob carries every exported field of a hit (session messages,
// memory provenance), which the JSON form of cairn.Hit does not read back.
type shareSearchRequest struct {
	Query string
	Opts  cairn.SearchOptions
}

type shareSearchReply struct {
	Hits    []cairn.Hit
	Pending int // chunks waiting for vectors (the lexical lane answered alone)
}

// shareTarget is what a server offers: its agent's engine.
type shareTarget interface {
	Embedder() cairn.Embedder
	Search(ctx context.Context, query string, opts *cairn.SearchOptions) ([]cairn.Hit, error)
	PendingEmbeddings(ctx context.Context) (int, error)
}

// embedShareMaxTexts bounds one request: the endpoint is for queries.
const embedShareMaxTexts = 16

// sharedEmbeds and sharedSearches count the requests servers in this
// process answered (tests read them to tell the paths apart).
var sharedEmbeds, sharedSearches atomic.Int64

// embedShare is one server's offer: its listener, its HTTP server and
// the record it wrote.
type embedShare struct {
	path   string
	token  string
	srv    *http.Server
	served chan error
}

// shareEmbedder starts offering emb to one-shot commands of dir. A failure
// only costs those commands time, so it is reported by the caller and the
// server goes on.
func shareEmbedder(dir, configHash string, ec *config.Embedder, eng shareTarget) (*embedShare, error) {
	emb := eng.Embedder()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	s := &embedShare{path: filepath.Join(abs, embedShareFile), token: hex.EncodeToString(tok), served: make(chan error, 1)}
	s.srv = &http.Server{Handler: s.handler(eng), ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	rec := embedShareRecord{Dir: abs, Addr: ln.Addr().String(), Token: s.token, PID: os.Getpid(),
		Config: configHash, Embedder: *ec, Identity: emb.Identity()}
	if err := writePrivateJSON(s.path, rec); err != nil {
		ln.Close()
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	go func() { s.served <- s.srv.Serve(ln) }() // awaited by stop
	return s, nil
}

// stop removes the record (unless another server has replaced it) and
// closes the listener, waiting for a request in flight.
func (s *embedShare) stop(ctx context.Context) {
	if rec, err := readShareRecord(s.path); err == nil && rec.Token == s.token {
		os.Remove(s.path)
	}
	s.srv.Shutdown(ctx)
	<-s.served
}

// handler answers POST /embed and POST /search for a caller with the
// token; browsers are turned away (a page cannot set the header without a
// preflight, and an Origin means one tried).
func (s *embedShare) handler(eng shareTarget) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /embed", s.guard(func(w http.ResponseWriter, r *http.Request) {
		var req embedShareRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || len(req.Texts) > embedShareMaxTexts {
			http.Error(w, fmt.Sprintf("want {\"kind\", \"texts\"} with at most %d texts", embedShareMaxTexts), http.StatusBadRequest)
			return
		}
		vecs, err := eng.Embedder().Embed(r.Context(), req.Kind, req.Texts)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		sharedEmbeds.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(embedShareResponse{Vectors: vecs})
	}))
	mux.HandleFunc("POST /search", s.guard(func(w http.ResponseWriter, r *http.Request) {
		var req shareSearchRequest
		if err := gob.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, "want a gob search request", http.StatusBadRequest)
			return
		}
		// Any error (a query the engine refuses, a closing index) sends
		// the caller to search in process, which reports it in its words.
		hits, err := eng.Search(r.Context(), req.Query, &req.Opts)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		var rep shareSearchReply
		rep.Hits = hits
		if req.Opts.Mode != cairn.ModeLexical {
			rep.Pending, _ = eng.PendingEmbeddings(r.Context())
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(rep); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sharedSearches.Add(1)
		w.Header().Set("Content-Type", "application/x-gob")
		w.Write(buf.Bytes())
	}))
	return mux
}

func (s *embedShare) guard(h http.HandlerFunc) http.HandlerFunc {
	want := []byte("Bearer " + s.token)
	return func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 || r.Header.Get("Origin") != "" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h(w, r)
	}
}

// writePrivateJSON writes v to path atomically (temp, fsync, rename),
// readable by the owner only.
func writePrivateJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".embedder-server-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename: nothing
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func readShareRecord(path string) (embedShareRecord, error) {
	var rec embedShareRecord
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal(b, &rec)
}

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
	if rec.PID <= 0 || syscall.Kill(rec.PID, 0) != nil {
		return embedShareRecord{}, false // a record left by a server that died
	}
	return rec, true
}

// shareConn posts to a server's share listener.
type shareConn struct {
	rec    embedShareRecord
	client *http.Client
}

func shareClient(rec embedShareRecord) *shareConn {
	return &shareConn{rec: rec, client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}}
}

func (c *shareConn) post(ctx context.Context, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.rec.Addr+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.rec.Token)
	req.Header.Set("Content-Type", contentType)
	return c.client.Do(req)
}

// remoteEmbedder embeds through a running server's shared embedder and
// falls back to its own (lazily built) one when the server does not
// answer. Its identity is the server's: the fallback is used only when it
// names the same vectors.
type remoteEmbedder struct {
	conn     *shareConn
	fallback cairn.Embedder
}

func newRemoteEmbedder(rec embedShareRecord, fallback cairn.Embedder) *remoteEmbedder {
	return &remoteEmbedder{conn: shareClient(rec), fallback: fallback}
}

func (r *remoteEmbedder) Identity() cairn.EmbedderIdentity { return r.conn.rec.Identity }

func (r *remoteEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if len(texts) <= embedShareMaxTexts {
		vecs, err := r.remote(ctx, kind, texts)
		if err == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
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
	body, err := json.Marshal(embedShareRequest{Kind: kind, Texts: texts})
	if err != nil {
		return nil, err
	}
	resp, err := r.conn.post(ctx, "/embed", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embed through server: status %s", resp.Status)
	}
	var out embedShareResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("embed through server: %w", err)
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

// shareAgent offers the agent's engine to one-shot commands of its data
// directory; a failure is said on stderr and changes nothing else.
func (e *env) shareAgent(agent string, cfg *config.Config, eng shareTarget) {
	if eng.Embedder() == nil || cfg.Embedder == nil {
		return
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, agent)
	if err == nil {
		var s *embedShare
		if s, err = shareEmbedder(dir, configHash(cfg), cfg.Embedder, eng); err == nil {
			if e.shares == nil {
				e.shares = map[string]*embedShare{}
			}
			e.shares[agent] = s
			return
		}
	}
	fmt.Fprintf(e.stderr, "cairn: agent %s: one-shot searches will load the model themselves: %v\n", agent, err)
}

// configHash names the configuration file's content ("" when it has none):
// a server and a command that read different files may search differently.
func configHash(cfg *config.Config) string {
	b, err := os.ReadFile(cfg.Path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// searchThroughServer runs the search on a trusted running server of the
// agent's data directory; ok is false when there is none or it did not
// answer, and the caller searches in process.
func (e *env) searchThroughServer(ctx context.Context, cfg *config.Config, query string, opts *cairn.SearchOptions) (rep shareSearchReply, ok bool) {
	if cfg.Embedder == nil || opts.Mode == cairn.ModeLexical {
		return rep, false // lexical one-shot searches take 20 ms in process
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return rep, false
	}
	rec, found := findShare(dir, configHash(cfg), cfg.Embedder)
	if !found {
		return rep, false
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(shareSearchRequest{Query: query, Opts: *opts}); err != nil {
		return rep, false
	}
	resp, err := shareClient(rec).post(ctx, "/search", "application/x-gob", &body)
	if err != nil {
		return rep, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || gob.NewDecoder(resp.Body).Decode(&rep) != nil {
		return shareSearchReply{}, false
	}
	return rep, true
}

// stopShare stops the agent's offer, before its embedder closes.
func (e *env) stopShare(ctx context.Context, agent string) {
	if s := e.shares[agent]; s != nil {
		s.stop(ctx)
		delete(e.shares, agent)
	}
}
