// Package httpjson posts JSON to model endpoints and maps their failures to
// Cairn's sentinel errors, for the chat and embedding clients.
package httpjson

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/cairnmemory/cairn"
)

// Post sends body to url (bearer key when not empty) within timeout and
// returns at most limit bytes of a 200 answer. Failures wrap
// cairn.ErrUnavailable (connection refused, 401/403, other statuses) or
// cairn.ErrBusy (timeouts, 429, 5xx): busy is worth retrying, unavailable
// is not.
func Post(ctx context.Context, hc *http.Client, url, key string, body []byte, timeout time.Duration, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: build request: %v", cairn.ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %s timed out after %s", cairn.ErrBusy, url, timeout)
		}
		return nil, fmt.Errorf("%w: %v", cairn.ErrUnavailable, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("%w: read response: %v", cairn.ErrBusy, err)
	}
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w: %s answered %d (check the API key)", cairn.ErrUnavailable, url, res.StatusCode)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return nil, fmt.Errorf("%w: %s answered %d", cairn.ErrBusy, url, res.StatusCode)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: %s answered %d", cairn.ErrUnavailable, url, res.StatusCode)
	}
	return raw, nil
}

// Retry calls fn until it succeeds, fails with an error other than
// cairn.ErrBusy, or has been retried retries times, waiting backoff before
// the first retry and doubling it each time.
func Retry(ctx context.Context, retries int, backoff time.Duration, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !errors.Is(err, cairn.ErrBusy) || attempt >= retries {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}
