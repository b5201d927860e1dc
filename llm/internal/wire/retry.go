package wire

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cairnmemory/cairn"
)

// Defaults for a Policy.
const (
	DefaultRetries = 2
	DefaultBackoff = 500 * time.Millisecond
	DefaultMaxWait = 60 * time.Second
)

// Policy bounds the retries of one call.
type Policy struct {
	Retries int           // extra attempts after a busy answer
	Backoff time.Duration // first wait, doubled each time, ±20% jitter; 0: DefaultBackoff
	MaxWait time.Duration // the longest Retry-After honored; 0: DefaultMaxWait
}

// Retry calls fn until it succeeds, fails with an error that is not busy,
// times out (see TimeoutError), or has been retried p.Retries times. Before
// each retry it waits the backoff or the server's Retry-After, whichever is
// longer; a Retry-After over p.MaxWait ends the call at once with the busy
// error, so the caller can pause instead of holding a worker.
func Retry(ctx context.Context, p Policy, fn func() error) error {
	backoff := p.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	maxWait := p.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	for attempt := 0; ; attempt++ {
		err := fn()
		var te *TimeoutError
		if err == nil || !errors.Is(err, cairn.ErrBusy) || errors.As(err, &te) || attempt >= p.Retries {
			return err
		}
		wait := jitter(backoff)
		var he *HTTPError
		if errors.As(err, &he) && he.RetryAfter > 0 {
			if he.RetryAfter > maxWait {
				return fmt.Errorf("%w (retry after %s)", err, he.RetryAfter.Round(time.Second))
			}
			wait = max(wait, he.RetryAfter)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait to retry: %w", context.Cause(ctx))
		case <-t.C:
		}
		backoff *= 2
	}
}

func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}
