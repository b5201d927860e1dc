package httpjson

import (
	"net/url"
	"strings"
)

// Endpoint is the URL a model client posts to: elem joined to base's path
// before its query, so that a base_url which needs one (Azure OpenAI's
// "…/deployments/NAME?api-version=…") keeps it after the path; trim, when
// not empty, is first cut from the end of the path ("/v1" for a client that
// adds its own). ok is false when base is not an http:// or https:// URL
// with a host; the caller names the field, never base's text (it may hold a
// key). The embedder and the chat clients (llm/internal/wire) share it.
func Endpoint(base, trim string, elem ...string) (u *url.URL, ok bool) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, false
	}
	if p := strings.TrimRight(u.Path, "/"); trim != "" && strings.HasSuffix(p, trim) {
		u.Path, u.RawPath = strings.TrimSuffix(p, trim), ""
	}
	return u.JoinPath(elem...), true
}
