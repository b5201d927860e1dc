package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/mcpserver"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// UIHeader must be on the POSTs that change state (a sync, a task
// action): a form on another site cannot send it, and a script there
// cannot without a CORS preflight the server's Origin check refuses.
const UIHeader = "X-Cairn-UI"

// CSP is the Content Security Policy of every page: scripts, styles and
// images only from this server's own files, no inline script or style, no
// framing, forms posting only here.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Options configure New.
type Options struct {
	// Agent is the agent whose index the pages show (cairn serve passes
	// its default agent).
	Agent *mcpserver.Agent
	// TokenRequired says the server asks for a bearer token: the pages
	// then ask for it once and load through script with the header.
	TokenRequired bool
	Logger        *slog.Logger // nil: discard
}

// Handler serves the pages. It implements mcpserver.UI. Close waits for a
// sync it started.
type Handler struct {
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	syncs syncRunner
}

var _ mcpserver.UI = (*Handler)(nil)

// pageNames are the templates under templates/, each rendered inside
// layout.html.
var pageNames = []string{"search", "doc", "corpora", "sessions", "memories", "memory", "clusters", "inbox", "diagnostics", "login", "error"}

// New returns the pages of opts.Agent.
func New(opts Options) (*Handler, error) {
	if opts.Agent == nil {
		return nil, cairn.Invalidf("no agent for the web pages: give one")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{opts: opts, pages: map[string]*template.Template{}}
	h.syncs.init()
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", name, err)
		}
		h.pages[name] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("open static files: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", staticFiles(http.FileServerFS(static))))
	mux.HandleFunc("GET /{$}", h.search)
	mux.HandleFunc("GET /ui/{$}", h.search) // the README's address of the pages
	mux.HandleFunc("GET /ui/doc", h.doc)
	mux.HandleFunc("GET /ui/corpora", h.corpora)
	mux.HandleFunc("POST /ui/sync", h.startSync)
	mux.HandleFunc("GET /ui/sync/progress", h.progress)
	mux.HandleFunc("GET /ui/sync/server", h.serverProgress)
	mux.HandleFunc("GET /ui/sessions", h.sessions)
	mux.HandleFunc("GET /ui/memories", h.memories)
	mux.HandleFunc("GET /ui/memory", h.memory)
	mux.HandleFunc("GET /ui/clusters", h.clusters)
	mux.HandleFunc("GET /ui/inbox", h.inbox)
	mux.HandleFunc("POST /ui/tasks", h.updateTask)
	mux.HandleFunc("POST /ui/recluster", h.recluster)
	mux.HandleFunc("GET /ui/diagnostics", h.diagnostics)
	mux.HandleFunc("POST /ui/login", h.postLogin)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("no page %s %s: see the links above", r.Method, r.URL.Path))
	})
	h.mux = mux
	return h, nil
}

// ServeHTTP serves a page, a static file or a sync call.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	h.mux.ServeHTTP(w, r)
}

// Login answers a page request that came without the bearer token: the
// page that asks for it (status 401). The server's guard calls it.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	p := &page{Title: "Token needed"}
	if r.Method == http.MethodPost {
		p.Message = noScriptLogin
	}
	h.render(w, r, http.StatusUnauthorized, "login", p)
}

// noScriptLogin answers the token form submitted without script.
const noScriptLogin = "the token was not used: a form cannot send it as the header these pages need, so they need script: turn script on for this site and enter the token again"

// postLogin serves POST /ui/login when it reaches the pages: the token
// form submitted without script to a server that asks for no token (the
// server's guard answers with Login when it asks for one).
func (h *Handler) postLogin(w http.ResponseWriter, r *http.Request) {
	p := h.pageOf("Token", "")
	p.Message = "this server asks for no token: the pages work as they are, see the links above"
	if h.opts.TokenRequired {
		p.Message = noScriptLogin
	}
	h.render(w, r, http.StatusOK, "login", &p)
}

// Close waits for a sync the pages started, or for ctx to end (then the
// sync is cancelled and awaited).
func (h *Handler) Close(ctx context.Context) error { return h.syncs.close(ctx) }

// eng returns the agent's engine, or why there is none.
func (h *Handler) eng() (*engine.Engine, error) {
	if e := h.opts.Agent.Engine(); e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("index unavailable for agent %s: see the diagnostics page: %w", h.opts.Agent.Name(), cairn.ErrUnavailable)
}

// secure sets the headers every response carries.
func secure(hd http.Header) {
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
}

// staticFiles lets the browser cache the embedded files for an hour.
func staticFiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// page is what every template's layout reads.
type page struct {
	Title   string
	Nav     string // the current section
	Agent   string
	Token   bool   // the server wants a bearer token
	Timing  string // server time, shown in the footer
	Message string // an error or notice at the top of the page
}

// pageOf fills the common fields.
func (h *Handler) pageOf(title, nav string) page {
	return page{Title: title, Nav: nav, Agent: h.opts.Agent.Name(), Token: h.opts.TokenRequired}
}

// bufPool holds render buffers: a page is rendered whole before its
// status is written, so a template error becomes a 500, not half a page.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes the named page with data.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if err := h.pages[name].Execute(buf, data); err != nil {
		h.opts.Logger.Warn("render page", "page", name, "err", err)
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// errorPage is the error template's data.
type errorPage struct {
	page
	Status int
}

// fail renders an error page: 400 for bad input, 503 for an unavailable
// index, else the status given.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	switch {
	case errors.Is(err, cairn.ErrInvalid):
		status = http.StatusBadRequest
	case errors.Is(err, cairn.ErrUnavailable):
		status = http.StatusServiceUnavailable
	}
	p := errorPage{page: h.pageOf(http.StatusText(status), ""), Status: status}
	p.Message = err.Error()
	h.render(w, r, status, "error", &p)
}

// funcs are the template helpers.
var funcs = template.FuncMap{
	"join":   strings.Join,
	"pct":    func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"f2":     func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"size":   humanSize,
	"add":    func(a, b int) int { return a + b },
	"reason": cairn.ReasonText,
}

// humanSize prints a byte count in B, KB, MB or GB (powers of 1024).
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 2; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMG"[exp])
}
