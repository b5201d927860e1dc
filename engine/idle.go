package engine

import (
	"context"
	"log/slog"
	"time"
)

// IdleOptions configures Engine.MaintainIdle.
type IdleOptions struct {
	// Quiet is how long the index must go without a lexical search or a
	// write before a step runs (default DefaultIdleQuiet).
	Quiet time.Duration
	// Poll is how often the loop looks for use of the index (default a
	// tenth of Quiet, at least 50 ms).
	Poll time.Duration
	// Pause is the wait between two steps of a merge, when the loop also
	// looks for use (default DefaultIdlePause).
	Pause time.Duration
	// Pages bounds a step: about this many leaf pages written (default
	// DefaultIdlePages).
	Pages int
	// Logger, when set, is told when a merge starts, finishes or fails.
	Logger *slog.Logger

	// Tests drive the loop: ticks replaces the poll timer, now the clock,
	// and report hears each tick's decision ("busy", "quiet", "not due",
	// "step", "done", "error").
	ticks  <-chan time.Time
	now    func() time.Time
	report func(string)
}

// DefaultIdleQuiet is how long an index goes unused before idle-time
// merging starts: long enough that a user in a session is not sharing the
// cores with it, short enough that a server left alone gets to it.
const DefaultIdleQuiet = 2 * time.Minute

// DefaultIdlePages bounds one idle merge step. At 1M chunks (a 1.4 GB
// index) FTS5 took 0.4 to 1.6 s for 500 pages at a load of 19 on two
// cores (bench/RESULTS.md), so a step of 256 is a fraction of a second: the
// longest a sync waits for the writer, and the longest a search shares
// the cores with a step.
const DefaultIdlePages = 256

// DefaultIdlePause is the wait between two idle merge steps: a search or
// sync that arrives meanwhile stops the merge before the next step.
const DefaultIdlePause = 100 * time.Millisecond

// idleMerger is a store whose full-text index can be merged in bounded
// steps (the SQLite store; others have nothing to merge).
type idleMerger interface {
	Generation() int64
	Reads() int64
	IdleMergeDue(ctx context.Context) (bool, error)
	MergeStep(ctx context.Context, pages int) (more bool, err error)
}

// MaintainIdle merges the lexical index's segments in bounded steps while
// nobody uses the index, until ctx ends; it returns nil then, after the
// step in progress (cancelled: it rolls back). A lexical search or a write
// (a sync, a remember) since the last look stops the merging until the
// index has been quiet for Quiet again; the merge then goes on where it
// stopped (FTS5 keeps an incremental merge's state in the index). It
// starts only when the store says a merge pays (sqlite
// Store.IdleMergeDue: tombstones of deleted rows at 0.5% of the rows, or
// 16 segments): at 1M chunks after a 1% edit sync, merging into one
// segment cut lexical CPU p99 by 28%, which no bounded merge of the small
// segments does. The SQLite store also starts there a rebuild of its
// full-text table when the index's own most frequent words drifted from
// the table's pair list (sqlite pairs.go), and its steps then build the
// new table beside the old one, swap it in and empty the old one, bounded
// like merge steps (a step deletes at most 16 pages of the old table for
// each page of Pages).
// A store without such an index returns at once. Run it on
// a goroutine the caller owns and awaits before Close (cmd/cairn serve).
func (e *Engine) MaintainIdle(ctx context.Context, o IdleOptions) error {
	m, ok := e.store.(idleMerger)
	if !ok {
		return nil
	}
	if o.Quiet <= 0 {
		o.Quiet = DefaultIdleQuiet
	}
	if o.Poll <= 0 {
		o.Poll = max(o.Quiet/10, 50*time.Millisecond)
	}
	if o.Pause <= 0 {
		o.Pause = DefaultIdlePause
	}
	if o.Pages <= 0 {
		o.Pages = DefaultIdlePages
	}
	if o.now == nil {
		o.now = time.Now
	}
	var timer *time.Timer
	if o.ticks == nil {
		timer = time.NewTimer(o.Poll) // Reset before each wait (Go 1.23 timers: no stale tick)
		defer timer.Stop()
	}
	// wait returns the channel of the next look: Pause after a step of a
	// merge, else Poll.
	wait := func(merging bool) <-chan time.Time {
		if o.ticks != nil {
			return o.ticks
		}
		d := o.Poll
		if merging {
			d = o.Pause
		}
		timer.Reset(d)
		return timer.C
	}
	say := func(what string) {
		if o.report != nil {
			o.report(what)
		}
	}
	gen, reads := m.Generation(), m.Reads()
	quietSince := o.now()
	// asleep: looked at and found nothing due (or finished); not again
	// until the index has been used and gone quiet once more.
	merging, asleep, steps := false, false, 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wait(merging):
		}
		if g, r := m.Generation(), m.Reads(); g != gen || r != reads {
			gen, reads, quietSince, asleep = g, r, o.now(), false
			say("busy")
			continue
		}
		if asleep || o.now().Sub(quietSince) < o.Quiet {
			say("quiet")
			continue
		}
		if !merging {
			due, err := m.IdleMergeDue(ctx)
			if err != nil || !due {
				asleep = true
				if err != nil && ctx.Err() == nil && o.Logger != nil {
					o.Logger.Warn("idle index merge: check failed", "err", err)
				}
				say("not due")
				continue
			}
			merging, steps = true, 0
			if o.Logger != nil {
				o.Logger.Info("idle index merge started", "pages_a_step", o.Pages)
			}
		}
		more, err := m.MergeStep(ctx, o.Pages)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			merging, asleep = false, true
			if o.Logger != nil {
				o.Logger.Warn("idle index merge: step failed", "err", err)
			}
			say("error")
			continue
		}
		steps++
		if !more {
			merging, asleep = false, true
			if o.Logger != nil {
				o.Logger.Info("idle index merge done", "steps", steps)
			}
			say("done")
			continue
		}
		say("step")
	}
}
