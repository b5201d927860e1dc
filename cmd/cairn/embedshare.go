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
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
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
// not answer, each does everything itself, as before
// (embedshare_client.go).
//
// A record is trusted only when it is a regular file owned by this user
// and readable by no one else, names this data directory, a loopback
// address and a process that is alive, and holds the same [embedder]
// table and the same configuration file content as this command's. Each
// request names the data directory and agent it is for, and a server
// refuses one that is not its own (a record copied or left in another
// directory).
//
// None of that proves who listens on the port: a server killed by
// SIGKILL leaves its record, a later process of ours can get its pid, and
// any local user can bind the port. So before each request the client
// asks the listener to answer a fresh nonce with an HMAC under the
// record's token (POST /hello), and sends the token and the request only
// on that connection once the answer checks (ux F17). We chose this over
// a Unix socket in the data directory: the record's addr and the TCP
// wire stay as they were (older clients still reach a newer server), a
// socket path in a deep data directory can pass the 108-byte limit of
// sun_path, and a socket is only as private as its directory, which a
// user may have left writable by others.
//
// One record per data directory: a second server of the same directory
// leaves the record of a first that is alive and answers, and takes it
// over once the first's is stale (stopped, dead or silent: checked every
// shareRetry); a server that stops removes the record only while it is
// still its own. A request that names no directory comes from a cairn
// older than this check: it is refused too, and the server says once on
// stderr that the binary should be updated.
const embedShareFile = "server.json"

// embedShareRecord is the content of embedShareFile.
type embedShareRecord struct {
	Dir      string                 `json:"dir"`   // the agent's data directory, absolute
	Agent    string                 `json:"agent"` // the agent the server serves there
	Addr     string                 `json:"addr"`  // loopback host:port
	Token    string                 `json:"token"`
	PID      int                    `json:"pid"`
	Command  string                 `json:"command"` // serve or mcp, for messages
	Config   string                 `json:"config"`  // sha256 of the configuration file the server read
	Embedder config.Embedder        `json:"embedder"`
	Identity cairn.EmbedderIdentity `json:"identity"` // the served embedder's
}

// shareFor names what a request is for; the server answers only its own
// data directory and agent.
type shareFor struct {
	Dir   string `json:"dir"`
	Agent string `json:"agent"`
}

// embedShareRequest and embedShareResponse are the wire format of
// POST /embed. Error is the embedder's failure (the status is sent
// before the embedder runs).
type embedShareRequest struct {
	shareFor
	Kind  string   `json:"kind"`
	Texts []string `json:"texts"`
}

type embedShareResponse struct {
	Vectors [][]float32 `json:"vectors"`
	Error   string      `json:"error,omitempty"`
}

// shareSearchRequest and shareSearchReply are the gob body of POST
// /search: gob carries every exported field of a hit (session messages,
// memory provenance), which the JSON form of cairn.Hit does not read back.
type shareSearchRequest struct {
	For   shareFor
	Query string
	Opts  cairn.SearchOptions
}

type shareSearchReply struct {
	Hits    []cairn.Hit
	Pending int    // chunks waiting for vectors (the lexical lane answered alone)
	Err     string // the engine's error: the caller searches in process and says it in its words
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
	dir    string
	agent  string
	token  string
	srv    *http.Server
	served chan error
	// hint hears, once, that an older cairn asked (oldClient).
	hint     func(format string, args ...any)
	hintOnce sync.Once
}

// shareTaken is why a server does not offer its engine: another server
// of the same data directory, alive and answering, already does.
type shareTaken struct{ rec embedShareRecord }

func (t *shareTaken) Error() string {
	return fmt.Sprintf("cairn %s (pid %d) at %s already answers them", orServe(t.rec.Command), t.rec.PID, t.rec.Addr)
}

// shareEmbedder starts offering eng to one-shot commands of dir (agent's
// data directory); command names the server (serve, mcp). A failure only
// costs those commands time, so it is reported by the caller and the
// server goes on.
func shareEmbedder(ctx context.Context, dir, agent, command, configHash string, ec *config.Embedder, eng shareTarget,
	hint func(format string, args ...any)) (*embedShare, error) {
	emb := eng.Embedder()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	path := filepath.Join(abs, embedShareFile)
	// A live record of another server stays: overwriting it would hide a
	// server that works, and the last of the two to stop would remove the
	// record while the other still runs. A record whose server is gone,
	// or alive but not answering (stopped with SIGSTOP, hung), is replaced.
	if rec, err := readShareRecord(path); err == nil && rec.Token != "" && pidAlive(rec.PID) &&
		pingShare(ctx, rec, shareFor{Dir: abs, Agent: agent}) == nil {
		return nil, &shareTaken{rec}
	}
	if err := ctx.Err(); err != nil { // a ping cut short says nothing of the other server
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
	s := &embedShare{path: path, dir: abs, agent: agent, token: hex.EncodeToString(tok), served: make(chan error, 1), hint: hint}
	s.srv = &http.Server{Handler: s.handler(eng), ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	rec := embedShareRecord{Dir: abs, Agent: agent, Addr: ln.Addr().String(), Token: s.token, PID: os.Getpid(),
		Command: command, Config: configHash, Embedder: *ec, Identity: emb.Identity()}
	if err := writePrivateJSON(s.path, rec); err != nil {
		ln.Close()
		return nil, fmt.Errorf("share embedder: %w", err)
	}
	go func() { s.served <- s.srv.Serve(ln) }() // awaited by stop
	return s, nil
}

// pidAlive reports whether a process with this pid exists.
func pidAlive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// stop removes the record while it is still this server's (another
// server may have replaced a record it found not answering) and closes
// the listener, waiting for a request in flight. Reading and removing are
// two steps: a record written between them is lost, and its server's
// one-shot commands search in process until it restarts.
func (s *embedShare) stop(ctx context.Context) {
	if rec, err := readShareRecord(s.path); err == nil && rec.Token == s.token && rec.PID == os.Getpid() {
		os.Remove(s.path)
	}
	s.srv.Shutdown(ctx)
	<-s.served
}

// handler answers POST /embed, POST /search and POST /ping for a caller
// with the token; browsers are turned away (a page cannot set the header
// without a preflight, and an Origin means one tried). A request for
// another data directory or agent is refused with 403.
//
// /embed and /search send their status as soon as the request is read and
// checked, before the embedder or the engine runs: the caller waits only a
// short time for that first byte (a live process on loopback sends it in
// milliseconds; a stopped one never does), then as long as the work takes.
func (s *embedShare) handler(eng shareTarget) http.Handler {
	mux := http.NewServeMux()
	// hello proves to a client that this server holds the record's token
	// before the client sends it anything secret (embedshare_client.go
	// helloShare): it needs no token and signs only the client's nonce, so
	// it tells a caller nothing it could use to pass as this server later
	// (a client's nonce is fresh and 32 random bytes).
	mux.HandleFunc("POST /hello", func(w http.ResponseWriter, r *http.Request) {
		var req shareHello
		nonce, err := []byte(nil), json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10)).Decode(&req)
		if err == nil {
			nonce, err = hex.DecodeString(req.Nonce)
		}
		if err != nil || len(nonce) != shareNonceBytes || r.Header.Get("Origin") != "" {
			http.Error(w, fmt.Sprintf("want {\"nonce\"}: %d bytes in hex", shareNonceBytes), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(shareHelloReply{MAC: hex.EncodeToString(shareHelloMAC(s.token, nonce))})
	})
	mux.HandleFunc("POST /ping", s.guard(func(w http.ResponseWriter, r *http.Request) {
		var req shareFor
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
			http.Error(w, "want {\"dir\", \"agent\"}", http.StatusBadRequest)
			return
		}
		if s.refuse(w, req) {
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("POST /embed", s.guard(func(w http.ResponseWriter, r *http.Request) {
		var req embedShareRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || len(req.Texts) > embedShareMaxTexts {
			http.Error(w, fmt.Sprintf("want {\"dir\", \"agent\", \"kind\", \"texts\"} with at most %d texts", embedShareMaxTexts), http.StatusBadRequest)
			return
		}
		if s.refuse(w, req.shareFor) {
			return
		}
		sendStatus(w, "application/json")
		var out embedShareResponse
		vecs, err := eng.Embedder().Embed(r.Context(), req.Kind, req.Texts)
		if err != nil {
			out.Error = err.Error()
		} else {
			out.Vectors = vecs
			sharedEmbeds.Add(1)
		}
		json.NewEncoder(w).Encode(out)
	}))
	mux.HandleFunc("POST /search", s.guard(func(w http.ResponseWriter, r *http.Request) {
		var req shareSearchRequest
		if err := gob.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, "want a gob search request", http.StatusBadRequest)
			return
		}
		if s.refuse(w, req.For) {
			return
		}
		sendStatus(w, "application/x-gob")
		var rep shareSearchReply
		// Any error (a query the engine refuses, a closing index) sends
		// the caller to search in process, which reports it in its words.
		hits, err := eng.Search(r.Context(), req.Query, &req.Opts)
		if err != nil {
			rep.Err = err.Error()
		} else {
			rep.Hits = hits
			if req.Opts.Mode != cairn.ModeLexical {
				rep.Pending, _ = eng.PendingEmbeddings(r.Context())
			}
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(rep); err != nil {
			buf.Reset()
			gob.NewEncoder(&buf).Encode(shareSearchReply{Err: err.Error()})
		}
		if rep.Err == "" {
			sharedSearches.Add(1)
		}
		w.Write(buf.Bytes())
	}))
	return mux
}

// refuse answers 403 to a request for a data directory or agent that is
// not this server's; a record copied into another directory, or left
// there by a server that now serves another, points there.
func (s *embedShare) refuse(w http.ResponseWriter, req shareFor) bool {
	if req.Dir == s.dir && req.Agent == s.agent {
		return false
	}
	if req == (shareFor{}) && s.hint != nil {
		s.hintOnce.Do(func() { s.hint(oldClientHint, s.dir) })
	}
	http.Error(w, fmt.Sprintf("this server serves agent %s in %s, not agent %s in %s", s.agent, s.dir, req.Agent, req.Dir), http.StatusForbidden)
	return true
}

// oldClientHint is what a server says the first time a request names no
// data directory: a cairn from before requests named theirs (it searches
// in process after the 403, silently, since it knows no better).
const oldClientHint = "cairn: a one-shot search from an older cairn binary was refused (its request names no data directory) and ran in process at model-load speed; update that binary so its searches of %s come to this server"

// sendStatus sends 200 and the headers now, so the caller knows the
// server is alive before the work starts.
func sendStatus(w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
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

// agentShare is a server's offer for one agent: its share while it holds
// the record, or its wait for another server's record to go stale.
type agentShare struct {
	mu     sync.Mutex
	share  *embedShare        // nil while another server holds the record
	cancel context.CancelFunc // ends the wait; nil when there is none
	done   chan struct{}      // closed when the wait has ended
}

// stop ends the wait, then stops the share if there is one.
func (a *agentShare) stop(ctx context.Context) {
	if a.cancel != nil {
		a.cancel()
		<-a.done
	}
	a.mu.Lock()
	s := a.share
	a.share = nil
	a.mu.Unlock()
	if s != nil {
		s.stop(ctx)
	}
}

// shareRetry is how often a server that left the record to another checks
// it: the other server stopping (it removes its record), dying (a dead
// pid) or no longer answering (a ping of 0.5 s at most) lets this one
// write its own, so one-shot searches keep a server while either runs.
const shareRetry = 2 * time.Second

// shareAgent offers the agent's engine to one-shot commands of its data
// directory; a failure, or another server already offering one, is said
// on stderr in one line and changes nothing else. While another server
// holds the record this one waits in the background (shareRetry) and
// takes the record over once that server's is stale, saying so.
func (e *env) shareAgent(ctx context.Context, agent string, cfg *config.Config, eng shareTarget) {
	if eng.Embedder() == nil || cfg.Embedder == nil {
		return
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, agent)
	if err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: one-shot searches will load the model themselves: %v\n", agent, err)
		return
	}
	start := func(ctx context.Context) (*embedShare, error) {
		return shareEmbedder(ctx, dir, agent, e.serverCommand, configHash(cfg), cfg.Embedder, eng, e.logf)
	}
	a := &agentShare{}
	if e.shares == nil {
		e.shares = map[string]*agentShare{}
	}
	s, err := start(ctx)
	var taken *shareTaken
	switch {
	case err == nil:
		a.share = s
	case errors.As(err, &taken):
		fmt.Fprintf(e.stderr, "cairn: agent %s: one-shot searches of %s stay with another server: %v; its %s is kept\n", agent, dir, err, embedShareFile)
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		a.cancel, a.done = cancel, make(chan struct{})
		go e.waitShare(wctx, a, agent, dir, start) // awaited by stop
	default:
		fmt.Fprintf(e.stderr, "cairn: agent %s: one-shot searches will load the model themselves: %v\n", agent, err)
		return
	}
	e.shares[agent] = a
}

// waitShare checks every shareRetry whether the record another server
// holds has gone stale and, when it has, offers this server's engine.
func (e *env) waitShare(ctx context.Context, a *agentShare, agent, dir string, start func(context.Context) (*embedShare, error)) {
	defer close(a.done)
	t := time.NewTicker(shareRetry)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s, err := start(ctx)
		var taken *shareTaken
		switch {
		case err == nil: // even when ctx ended just now: stop stops it
			a.mu.Lock()
			a.share = s
			a.mu.Unlock()
			fmt.Fprintf(e.stderr, "cairn: agent %s: the other server's %s was stale; one-shot searches of %s now come to this one\n", agent, embedShareFile, dir)
			return
		case errors.As(err, &taken):
			continue
		case ctx.Err() == nil:
			fmt.Fprintf(e.stderr, "cairn: agent %s: one-shot searches will load the model themselves: %v\n", agent, err)
		}
		return
	}
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

// stopShare stops the agent's offer, before its embedder closes.
func (e *env) stopShare(ctx context.Context, agent string) {
	if a := e.shares[agent]; a != nil {
		a.stop(ctx)
		delete(e.shares, agent)
	}
}

// orServe names the server command of a record ("serve" when unknown).
func orServe(command string) string {
	if command == "" {
		return "serve"
	}
	return command
}
