// Package web serves Cairn's pages: search with the reasons of each hit,
// the corpora and their sync state, sessions on a timeline, memories with
// their sources and concept graph, the clusters of the latest clustering
// run on a scatter plot, the maintenance inbox with its actions, and
// diagnostics. cairn serve mounts it
// beside the JSON API (mcpserver.HTTPOptions.UI); cairn ui starts that
// server on loopback and opens a browser.
//
// The pages show one agent's memory: the server's default agent (the
// first --agent of cairn serve).
//
// # Why server-rendered templates
//
// The pages are Go html/template files rendered on the server, styled by
// one CSS file and helped by one small vanilla JavaScript file, all
// embedded in the binary with go:embed. There is no build step, no
// bundler, no framework, no CDN and no runtime download, so the pages work
// offline and a change is an edit to a template or a handler followed by
// go build. Server rendering gives three things the issue asks for at no
// cost: a search is a URL (/?q=WORDS plus its filters) that answers on
// first load without script; html/template escapes every value by its
// context (text, attribute, URL), so a note holding <script> is shown as
// text; and the Content Security Policy can forbid inline script and
// inline style altogether (script-src 'self'; style-src 'self'). Bars are
// <meter> elements and the concept graph is inline SVG drawn from
// attributes, so no inline style is needed.
//
// The script does only what HTML cannot: with a bearer token configured
// it asks for the token once, keeps it in sessionStorage for the tab and
// loads every page with an Authorization header (links and GET forms are
// fetched and swapped in, history kept); it sends the three state changes
// (start a sync and follow its progress by long polling, run a clustering,
// act on an inbox task) as POSTs with a header. With no token (the
// loopback default) every page works with script off; only those three
// buttons need it.
//
// # Security
//
// The pages sit behind the same guard as the API (mcpserver): the Host
// check against DNS rebinding on loopback, the Origin check, the bearer
// token, the body and time limits. No cookie is set or read, so a
// cross-site request carries no credential; every state change (a sync, a
// clustering run, a task action) is a POST that must carry the X-Cairn-UI
// header, which a form on another site cannot send and a script there
// cannot send without a CORS preflight the guard refuses. (Opening a
// cluster records the exact-duplicate tasks its members show, as the
// memory_fetch_cluster tool does: derived from the index, the same
// whoever asks.) Every response has a strict CSP,
// X-Content-Type-Options nosniff, no referrer and no framing.
package web
