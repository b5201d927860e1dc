package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/cairnmemory/cairn"
)

// curationRoutes are the curation tools on the JSON API: each POST body
// is the tool's input, the answer its output, as over MCP. The write ones
// (writeRoutes in access.go) need a token that writes.
var curationRoutes = []struct {
	path, tool string
	serve      func() http.Handler
}{
	{"/v1/clusters/recluster", ToolRecluster, func() http.Handler { return api((*Agent).Recluster) }},
	{"/v1/clusters", ToolListClusters, func() http.Handler { return api((*Agent).ListClusters) }},
	{"/v1/clusters/fetch", ToolFetchCluster, func() http.Handler { return api((*Agent).FetchCluster) }},
	{"/v1/clusters/review", ToolReviewCluster, func() http.Handler { return api((*Agent).ReviewCluster) }},
	{"/v1/tasks", ToolListTasks, func() http.Handler { return api((*Agent).ListTasks) }},
	{"/v1/tasks/update", ToolUpdateTask, func() http.Handler { return api((*Agent).UpdateTask) }},
	{"/v1/audit", ToolAuditQuality, func() http.Handler { return api((*Agent).AuditQuality) }},
	{"/v1/claims/review", ToolReviewClaim, func() http.Handler { return api((*Agent).ReviewClaim) }},
}

// toolChecked runs, before next, the checks an MCP call of tool gets
// (checkArguments): a corpus outside the request's grant is 403, then the
// tool's own argument check (fields named, allowed values listed) is 400;
// the body goes on to next unread.
func toolChecked(tool string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Context().Value(agentKey{}).(*Agent)
		body, err := io.ReadAll(r.Body)
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit))
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, "read request body: "+err.Error())
			return
		}
		raw := bytes.TrimSpace(body)
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		if err := checkTool(r.Context(), a, tool, raw); err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, cairn.ErrForbidden) {
				status = http.StatusForbidden
			}
			writeError(w, status, err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func checkTool(ctx context.Context, a *Agent, tool string, raw []byte) error {
	if err := scopeArguments(ctx, raw); err != nil {
		return err
	}
	return a.check(tool, raw)
}
