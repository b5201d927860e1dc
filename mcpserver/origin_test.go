package mcpserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHTTPLoopbackOrigins: a tokenless server on loopback takes browser
// requests from its own origin (by address or as localhost) and from an
// --allow-origin one, and refuses pages of other loopback ports, a
// preflight included (review finding F11: any loopback origin was let
// in, so a page served by another local port could read memory through
// the browser); a request without an Origin (curl, an MCP client) is not
// checked. Real requests over TCP.
func TestHTTPLoopbackOrigins(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}, AllowedOrigins: []string{"http://127.0.0.1:5173"}})
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	for _, tc := range []struct {
		name, host, origin string
		preflight          bool
		status             int
	}{
		{"no origin", "", "", false, 200},
		{"own origin", "", srv.URL, false, 200},
		{"own origin as localhost", "localhost:" + port, "http://localhost:" + port, false, 200},
		{"own origin, preflight", "", srv.URL, true, 204},
		{"allowed origin", "", "http://127.0.0.1:5173", false, 200},
		{"another loopback port", "", "http://127.0.0.1:5174", false, 403},
		{"localhost, another port", "", "http://localhost:8080", false, 403},
		{"ipv6 loopback", "", "http://[::1]:" + port, false, 403},
		{"own port as localhost, sent to the address", "", "http://localhost:" + port, false, 403},
		{"another loopback port, preflight", "", "http://localhost:8080", true, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if tc.preflight {
				method = http.MethodOptions
			}
			req, _ := http.NewRequest(method, srv.URL+"/v1/search", strings.NewReader(`{"query":"busy"}`))
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.preflight {
				req.Header.Set("Access-Control-Request-Method", "POST")
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			acao := resp.Header.Get("Access-Control-Allow-Origin")
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if wantACAO := map[bool]string{true: tc.origin}[tc.status < 300]; acao != wantACAO {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", acao, wantACAO)
			}
		})
	}
}
