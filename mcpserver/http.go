package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions.
const (
	DefaultMaxBodyBytes   = 1 << 20 // 1 MiB
	DefaultRequestTimeout = 60 * time.Second
)

// AgentHeader selects the agent of a request to /mcp or /v1/...; the path
// form /agents/{agent}/mcp and /agents/{agent}/v1/... does the same.
const AgentHeader = "X-Cairn-Agent"

// HTTPOptions configure NewHandler.
type HTTPOptions struct {
	// Agents are the agents served; the first answers requests that name
	// none. Requests naming another agent are refused.
	Agents []*Agent
	// Token, when set, is required as "Authorization: Bearer <Token>" on
	// every request except /healthz.
	Token string
	// Access, when set, replaces Token: tokens from the access file, each
	// naming the agents it may use and whether it may write (access.go).
	Access *Access
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// besides the server's own (originAllowed); any other Origin header
	// is refused. A request without one (curl, an MCP client) is not
	// checked.
	AllowedOrigins []string
	// UI, when set, serves the web pages (package web) at / and under
	// /ui/, behind this guard like the API, except that the static files
	// under /ui/static/ need no token and a page asked for without it is
	// answered by UI.Login (the page that asks for the token).
	UI             UI
	MaxBodyBytes   int64         // default DefaultMaxBodyBytes
	RequestTimeout time.Duration // default DefaultRequestTimeout
	Logger         *slog.Logger  // nil: discard
}

// UI is the web interface NewHandler mounts (package web).
type UI interface {
	http.Handler
	// Login answers a GET of a page that came without the bearer token.
	Login(w http.ResponseWriter, r *http.Request)
}

// NewHandler returns the HTTP interface of a server:
//
//	/mcp, /agents/{agent}/mcp                  MCP over streamable HTTP (stateless)
//	POST /v1/search, /v1/get, /v1/sync         the tools' inputs as JSON bodies
//	POST /v1/memories, /v1/gather, /v1/explore memory_remember's, memory_gather's, memory_explore's inputs
//	POST /v1/memories/forget                   memory_forget's input (an unknown id: status 404)
//	POST /v1/whisper, /v1/whisper/observe     the prompt-time whisper API (C28): {appendContext} or {}
//	POST /v1/clusters, /v1/clusters/recluster, /v1/clusters/fetch, /v1/clusters/review,
//	     /v1/tasks, /v1/tasks/update, /v1/audit, /v1/claims/review
//	                                           the curation tools' inputs (curation_http.go)
//	GET  /v1/sync/status, /v1/diagnostics
//	GET  /healthz                              no authentication
//
// Every /v1 route also answers under /agents/{agent}. Outputs are the
// tools' outputs; a tool error is {"error": "..."} with status 400 (bad
// input) or 500.
func NewHandler(opts HTTPOptions) (http.Handler, error) {
	if len(opts.Agents) == 0 {
		return nil, cairn.Invalidf("no agent to serve: give at least one")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &httpServer{opts: opts, agents: map[string]*Agent{}, mcp: map[string]*mcp.Server{}, authFail: authFailures{now: time.Now}}
	for _, a := range opts.Agents {
		h.agents[a.name] = a
		h.mcp[a.name] = NewMCPServer(a, opts.Logger)
	}
	streamable := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		a, _ := r.Context().Value(agentKey{}).(*Agent)
		if a == nil {
			return nil
		}
		return h.mcp[a.name]
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger,
		MaxRequestBodyBytes: opts.MaxBodyBytes, PropagateRequestCancellation: true})

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	for _, prefix := range []string{"", "/agents/{agent}"} {
		mux.Handle(prefix+"/mcp", h.withAgent(checkRPC(streamable)))
		mux.Handle("POST "+prefix+"/v1/search", h.withAgent(searchAPI())) // local or judged (whisper.go)
		mux.Handle("POST "+prefix+"/v1/get", h.withAgent(api((*Agent).Get)))
		mux.Handle("POST "+prefix+"/v1/sync", h.withAgent(api((*Agent).SyncSessions)))
		mux.Handle("GET "+prefix+"/v1/sync/status", h.withAgent(api((*Agent).SyncStatus)))
		mux.Handle("GET "+prefix+"/v1/diagnostics", h.withAgent(api((*Agent).Diagnostics)))
		mux.Handle("POST "+prefix+"/v1/memories", h.withAgent(api((*Agent).Remember)))
		mux.Handle("POST "+prefix+"/v1/memories/forget", h.withAgent(api((*Agent).Forget)))
		mux.Handle("POST "+prefix+"/v1/gather", h.withAgent(api((*Agent).Gather)))
		mux.Handle("POST "+prefix+"/v1/explore", h.withAgent(api((*Agent).Explore)))
		mux.Handle("POST "+prefix+"/v1/whisper", h.withAgent(h.whisperAPI()))         // C28, whisper.go
		mux.Handle("POST "+prefix+"/v1/whisper/observe", h.withAgent(h.observeAPI())) // C28, whisper.go
		for _, c := range curationRoutes {                                            // curation_http.go
			mux.Handle("POST "+prefix+c.path, h.withAgent(toolChecked(c.tool, c.serve())))
		}
	}
	pages := ""
	if opts.UI != nil {
		mux.Handle("GET /{$}", opts.UI)
		mux.Handle("/ui/", opts.UI)
		pages = ", the web pages at / and /ui/"
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := otherMethods(mux, r); len(allow) > 0 {
			// The path is a route, of another method (ux U7: a GET of
			// /v1/search answered "no route" and listed /v1/search).
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use %s %s%s", r.Method, r.URL.Path, strings.Join(allow, " or "), r.URL.Path, bodyHint(allow)))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s: see /mcp, /v1/search, /v1/get, /v1/memories, /v1/memories/forget, /v1/gather, /v1/explore, /v1/whisper, /v1/whisper/observe, /v1/sync, /v1/sync/status, /v1/diagnostics, /v1/clusters, /v1/clusters/recluster, /v1/clusters/fetch, /v1/clusters/review, /v1/tasks, /v1/tasks/update, /v1/audit, /v1/claims/review, /healthz%s", r.Method, r.URL.Path, pages))
	})
	return h.guard(mux), nil
}

// otherMethods lists the methods (GET, POST) that have a route at r's
// path when r's own has none there.
func otherMethods(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
			out = append(out, m)
		}
	}
	return out
}

// bodyHint says what a POST route takes.
func bodyHint(allow []string) string {
	if slices.Contains(allow, http.MethodPost) {
		return " and a JSON object body (docs/mcp.md)"
	}
	return ""
}

type httpServer struct {
	opts     HTTPOptions
	agents   map[string]*Agent
	mcp      map[string]*mcp.Server
	authFail authFailures // authlog.go
}

type agentKey struct{}

// guard applies, in order: the Host check against DNS rebinding on a
// loopback listener, the Origin check (with CORS headers and preflight
// answers for allowed origins), the bearer token, the body size limit and
// the request time limit.
func (h *httpServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) && !isLoopback(r.Host) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("host %q refused: a server on a loopback address answers only loopback host names", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			if !h.originAllowed(o, r.Host) {
				writeError(w, http.StatusForbidden, fmt.Sprintf("origin %q refused: allow it with cairn serve --allow-origin", o))
				return
			}
			// CORS for an allowed origin: browsers send a preflight without
			// credentials before a JSON or authorized request, so it is
			// answered before the token check.
			w.Header().Set("Access-Control-Allow-Origin", o)
			w.Header().Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, X-Cairn-Agent")
				w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
				w.Header().Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		}
		if (h.opts.Token != "" || h.opts.Access != nil) && r.URL.Path != "/healthz" && !h.authorized(r) {
			if r.Header.Get("Authorization") != "" {
				h.authFail.note(h.opts.Logger, r.RemoteAddr, r.URL.Path) // a token sent and wrong: logged, rate-limited
			}
			switch h.uiRoute(r) {
			case "static":
				h.opts.UI.ServeHTTP(w, r)
				return
			case "page":
				h.opts.UI.Login(w, r)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token>")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// uiRoute says whether r asks for one of the UI's static files ("static":
// they hold no data) or one of its pages ("page": a GET the UI answers
// without the token by asking for it); "" for anything else.
func (h *httpServer) uiRoute(r *http.Request) string {
	p := r.URL.Path
	switch {
	case h.opts.UI == nil || r.Method != http.MethodGet && (r.Method != http.MethodPost || p != "/ui/login"): // the token form posted without script
		return ""
	case strings.HasPrefix(p, "/ui/static/"):
		return "static"
	case p == "/" || strings.HasPrefix(p, "/ui/") && !strings.HasPrefix(p, "/ui/sync"):
		return "page"
	}
	return ""
}

func (h *httpServer) authorized(r *http.Request) bool {
	if h.opts.Access != nil {
		_, ok := h.opts.Access.grant(r)
		return ok
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(h.opts.Token)) == 1
}

// originAllowed accepts the configured origins and the server's own: an
// Origin naming the Host the request was sent to, which is the page this
// server served (the web pages post with it). On a loopback host that
// holds without a token (the Host check refused every other name, so no
// page of another site reaches here by DNS rebinding); on a network
// address only with one, as a rebinding page's Origin names its Host too
// but it has no token. Other loopback origins are refused: a page served
// by another local port (a dev server, any local app) could otherwise
// call a tokenless server from the browser (review finding F11).
func (h *httpServer) originAllowed(origin, host string) bool {
	if slices.Contains(h.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || host == "" || !strings.EqualFold(u.Host, host) {
		return false
	}
	return isLoopback(host) || h.opts.Token != "" || h.opts.Access != nil
}

// isLoopback reports whether host[:port] names a loopback address or
// localhost.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// withAgent resolves the request's agent (path, then header, then the
// default) and refuses agents this server was not given.
func (h *httpServer) withAgent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("agent")
		if name == "" {
			name = r.Header.Get(AgentHeader)
		}
		a := h.opts.Agents[0]
		if name != "" {
			if a = h.agents[name]; a == nil {
				writeError(w, http.StatusForbidden, fmt.Sprintf("agent %q is not served here: allowed %s", name, strings.Join(h.names(), ", ")))
				return
			}
		}
		ctx := context.WithValue(r.Context(), agentKey{}, a)
		if h.opts.Access != nil {
			g, ok := h.opts.Access.allow(w, r, a.name)
			if !ok {
				return
			}
			// The grant's corpora go with the request into every engine
			// call, the MCP tools' included (the SDK runs them under the
			// request's context), and from there into the store queries.
			ctx = engine.WithScope(ctx, g.Scope())
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func (h *httpServer) names() []string {
	out := make([]string, len(h.opts.Agents))
	for i, a := range h.opts.Agents {
		out[i] = a.name
	}
	return out
}

// api serves one tool as a JSON endpoint: the body is the tool's input
// (empty for GET), the response its output.
func api[In, Out any](fn func(*Agent, context.Context, In) (*Out, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Context().Value(agentKey{}).(*Agent)
		body, err := io.ReadAll(r.Body)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit))
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "read request body: "+err.Error())
			return
		}
		in, err := decode[In](body)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		out, err := fn(a, r.Context(), in)
		switch {
		case err == nil:
			writeJSON(w, http.StatusOK, out)
		case errors.Is(err, cairn.ErrInvalid):
			writeError(w, http.StatusBadRequest, err.Error())
		case errors.Is(err, cairn.ErrForbidden):
			writeError(w, http.StatusForbidden, err.Error())
		case errors.Is(err, cairn.ErrNotFound):
			writeError(w, http.StatusNotFound, err.Error())
		case errors.Is(err, context.DeadlineExceeded):
			writeError(w, http.StatusGatewayTimeout, err.Error())
		case errors.Is(err, cairn.ErrBusy):
			writeError(w, http.StatusServiceUnavailable, err.Error())
		default:
			writeError(w, http.StatusInternalServerError, err.Error())
		}
	})
}

// checkRPC answers a POST whose body is not a JSON-RPC message (or a batch
// of them) with status 400 and a JSON-RPC error, the answer the stdio
// transport gives the same line; the SDK would answer with plain text, or
// not at all for an id without a method. Batches go on to the SDK, which
// takes them under protocol versions before 2025-06-18.
func checkRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeRPCError(w, http.StatusRequestEntityTooLarge, invalidRequest(nil, "the message is over %d bytes", tooBig.Limit))
			return
		case err != nil:
			writeRPCError(w, http.StatusBadRequest, parseError("read request body: %v", err))
			return
		}
		if bad := checkPayload(body, true); bad != nil {
			writeRPCError(w, http.StatusBadRequest, bad)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func writeRPCError(w http.ResponseWriter, status int, e *rpcError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(e.line())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
