package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/web"
)

// DefaultAddr is where cairn serve listens unless told: loopback only.
const DefaultAddr = "127.0.0.1:7777"

// serveFlags are the flags of cairn serve.
type serveFlags struct {
	addr, tokenFile string
	agents, origins stringList
	watch, ui       bool
	requestTimeout  time.Duration
	shutdownTimeout time.Duration
	maxBody         int64
}

// cmdServe serves the tools over streamable HTTP at /mcp and as a JSON API
// at /v1/, with a periodic session sync and a file watcher per agent.
func cmdServe(ctx context.Context, e *env, args []string) error {
	var f serveFlags
	e.serverCommand = "serve"
	fs := flag.NewFlagSet("cairn serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.addr, "addr", DefaultAddr, "listen address")
	fs.Var(&f.agents, "agent", "agent to serve (repeatable; the first is the default)")
	fs.StringVar(&e.configPath, "config", "", "configuration file")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token clients must send")
	fs.Var(&f.origins, "allow-origin", "browser origin allowed besides the server's own (repeatable; others, loopback ones too, are refused)")
	fs.BoolVar(&f.watch, "watch", true, "watch the files corpora and sync on change")
	fs.DurationVar(&f.requestTimeout, "request-timeout", mcpserver.DefaultRequestTimeout, "time limit of one request")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", closeTimeout, "how long stopping waits for requests and a running sync")
	fs.Int64Var(&f.maxBody, "max-body", mcpserver.DefaultMaxBodyBytes, "request body limit in bytes")
	fs.BoolVar(&f.ui, "ui", true, "serve the web pages at / and /ui/ (same guard as the API)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("serve", pos); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	return serve(ctx, e, f, nil)
}

// Bounds of cairn serve's limit flags.
const (
	maxRequestTimeout = 24 * time.Hour
	maxBodyLimit      = 1 << 30 // 1 GiB
)

// check refuses flag values serve cannot honour, naming the flag and what
// it allows: an address that is not HOST:PORT (it would otherwise be
// refused as non-loopback, or fail at listen), a zero or negative request
// timeout (http.Server would read without a deadline and cut every
// response after 10 s) or body limit, and a negative shutdown wait.
func (f serveFlags) check() error {
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usagef("--addr %q: allowed HOST:PORT, e.g. 127.0.0.1:7777 (loopback) or 0.0.0.0:7777 with --token-file", f.addr)
	}
	if f.requestTimeout <= 0 || f.requestTimeout > maxRequestTimeout {
		return usagef("--request-timeout %s: allowed 1ms to %s, e.g. 60s", f.requestTimeout, maxRequestTimeout)
	}
	if f.shutdownTimeout < 0 || f.shutdownTimeout > maxRequestTimeout {
		return usagef("--shutdown-timeout %s: allowed 0 to %s", f.shutdownTimeout, maxRequestTimeout)
	}
	if f.maxBody < 1 || f.maxBody > maxBodyLimit {
		return usagef("--max-body %d: allowed 1 to %d bytes", f.maxBody, maxBodyLimit)
	}
	for _, o := range f.origins {
		if err := checkOrigin(o); err != nil {
			return err
		}
	}
	return nil
}

// checkOrigin refuses an --allow-origin value that no browser's Origin
// header can equal, or that lets in every site: the header is compared as
// written, so "app.example" (no scheme) or "https://app.example/" (a path)
// matched nothing and nothing said why; "null" is what sandboxed iframes,
// data: URLs and redirects of any site send, and "*" is no origin.
func checkOrigin(o string) error {
	const allowed = "allowed scheme://host[:port] with scheme http or https and nothing after the port, e.g. https://app.example or http://192.168.1.5:3000"
	if o == "null" || o == "*" {
		return usagef("--allow-origin %q refused: it would let in pages of every site (%q is not one origin); %s", o, o, allowed)
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
		return usagef("--allow-origin %q: %s", o, allowed)
	}
	if strings.Contains(u.Host, "*") { // a user who types *.example expects a wildcard; the header is compared as written
		return usagef("--allow-origin %q refused: a wildcard in the host matches no browser's Origin (each origin is compared whole); give each origin its own --allow-origin; %s", o, allowed)
	}
	if canon := u.Scheme + "://" + u.Host; canon != o {
		return usagef("--allow-origin %q: browsers send %q: %s", o, strings.ToLower(canon), allowed)
	}
	if u.Port() != "" {
		if p, err := strconv.Atoi(u.Port()); err != nil || p < 1 || p > 65535 {
			return usagef("--allow-origin %q: port %q: %s", o, u.Port(), allowed)
		}
	}
	return nil
}

// serve runs the server of cmdServe and cmdUI; listening, when set, is
// told the address once the listener is open.
func serve(ctx context.Context, e *env, f serveFlags, listening func(net.Addr)) error {
	if len(f.agents) == 0 {
		f.agents = stringList{e.agent}
	}
	cfg, cfgErr := e.loadConfig()
	// An access file ([store] access) replaces the one token: each of its
	// tokens names the agents it may use (store.go).
	access, err := serveAccess(cfg)
	if err != nil {
		return err
	}
	var token string
	if access == nil {
		var warn string
		if token, warn, err = serveToken(f.addr, f.tokenFile, os.Getenv("CAIRN_TOKEN")); err != nil {
			return err
		}
		if warn != "" {
			fmt.Fprintln(e.stderr, "cairn: warning: "+warn)
		}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	agents, err := e.openAgents(ctx, cfg, cfgErr, f, logger)
	if err != nil {
		return err
	}
	defer func() {
		for _, a := range agents {
			closeAgent(e, a)
		}
	}()
	stopIdle := startIdle(ctx, agents, logger) // serve_idle.go; stopped and awaited before the agents close
	defer stopIdle()
	opts := mcpserver.HTTPOptions{Agents: agents, Token: token, Access: access, AllowedOrigins: f.origins,
		MaxBodyBytes: f.maxBody, RequestTimeout: f.requestTimeout, Logger: logger}
	if f.ui && access == nil { // the pages show the first agent to any token: not with per-agent grants
		pages, err := web.New(web.Options{Agent: agents[0], TokenRequired: token != "", Logger: logger})
		if err != nil {
			return err
		}
		defer closePages(e, pages)
		opts.UI = pages
	}
	h, err := mcpserver.NewHandler(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen(listenNetwork(f.addr), f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: f.requestTimeout,
		WriteTimeout: f.requestTimeout + 10*time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	fmt.Fprintf(e.stderr, "cairn: serving agents %s on http://%s (MCP at /mcp, JSON API at /v1/, auth %s)\n",
		strings.Join(f.agents, ", "), shownAddr(f.addr, ln.Addr()), map[bool]string{true: "bearer token", false: map[bool]string{true: "access file tokens", false: "none (loopback)"}[access != nil]}[token != ""])
	if listening != nil {
		listening(ln.Addr())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(e.stderr, "cairn: stopping: finishing requests and running syncs")
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	// Shutdown closes the listener first, so Serve has returned or returns
	// now; its goroutine is awaited, not left to end on its own.
	<-served
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stop server: %w", err)
	}
	return nil
}

// openAgents opens each agent and starts its background work. An agent
// whose index or configuration cannot be opened is served unavailable (its
// tools say why); only a watcher that cannot start stops the server.
func (e *env) openAgents(ctx context.Context, cfg *config.Config, cfgErr error, f serveFlags, logger *slog.Logger) ([]*mcpserver.Agent, error) {
	interval := time.Duration(syncInterval(cfg)) * time.Minute
	var agents []*mcpserver.Agent
	for _, name := range f.agents {
		a := e.serveAgent(ctx, cfg, cfgErr, name)
		agents = append(agents, a)
		err := a.StartBackground(mcpserver.BackgroundOptions{SyncInterval: interval, Watch: f.watch, FirstSync: true, Logger: logger})
		if err != nil {
			for _, a := range agents {
				closeAgent(e, a)
			}
			return nil, err
		}
	}
	return agents, nil
}

// syncInterval is the sessions corpus's syncIntervalMinutes (0 without one).
func syncInterval(cfg *config.Config) int {
	if cfg == nil {
		return 0
	}
	for _, c := range cfg.Corpora {
		if c.Kind == cairn.KindSessions {
			return c.SyncIntervalMinutes
		}
	}
	return 0
}

// MinNetworkTokenBytes is the shortest bearer token serve takes on a
// non-loopback address: a token of a few characters is guessed in minutes
// by anyone who can reach the port (openssl rand -hex 32 makes 64).
const MinNetworkTokenBytes = 16

// serveToken reads the bearer token from the file or the environment, and
// refuses a non-loopback address without one or with one shorter than
// MinNetworkTokenBytes. warn, when set, says the token file can be read by
// other users (group or world bits in its mode).
func serveToken(addr, file, env string) (token, warn string, err error) {
	token, from := strings.TrimSpace(env), "CAIRN_TOKEN"
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("read token file: %w", err)
		}
		if token = strings.TrimSpace(string(data)); token == "" {
			return "", "", usagef("token file %s is empty: put a long random token in it (e.g. openssl rand -hex 32 > %s)", file, file)
		}
		from = "--token-file " + file
		if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warn = fmt.Sprintf("token file %s can be read by other users (mode %04o): chmod 600 %s", file, fi.Mode().Perm(), file)
		}
	}
	loopback := loopbackAddr(addr)
	if token == "" && !loopback {
		return "", "", usagef("serve on %s refused: a non-loopback address needs a token; put one in a file and pass --token-file FILE, or set CAIRN_TOKEN (e.g. openssl rand -hex 32 > ~/.config/cairn/token)", addr)
	}
	if !loopback && len(token) < MinNetworkTokenBytes {
		return "", "", usagef("serve on %s refused: the token of %s has %d bytes, a non-loopback address needs at least %d (e.g. openssl rand -hex 32 > ~/.config/cairn/token)", addr, from, len(token), MinNetworkTokenBytes)
	}
	return token, warn, nil
}

// listenNetwork is "tcp4" for an IPv4 literal host (0.0.0.0:7777 asks
// for IPv4 only; "tcp" made it a dual-stack socket that took IPv6 too),
// "tcp" otherwise.
func listenNetwork(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err == nil && ip != nil && ip.To4() != nil && !strings.Contains(host, ":") {
		return "tcp4"
	}
	return "tcp"
}

// shownAddr is the listen address as given, with the port the listener
// got (--addr 127.0.0.1:0 picks one): 0.0.0.0:7777 printed as [::]:7777.
func shownAddr(addr string, got net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	_, port, perr := net.SplitHostPort(got.String())
	if err != nil || perr != nil {
		return got.String()
	}
	return net.JoinHostPort(host, port)
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
