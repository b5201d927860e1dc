package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
)

// Defaults of a Worker (spec: consolidation-and-recall.md sections 2 to 5).
const (
	DefaultWindowChars            = 60000
	DefaultPartChars              = 58000
	DefaultMaxTokens              = 32000
	DefaultObservationWindowChars = 12000
	DefaultObservationPartChars   = 11000
	DefaultObservationMaxTokens   = 16000
	DefaultCallTimeout            = 300 * time.Second
	DefaultKnownNames             = 20
	// DefaultIdleAfter is how long a thread must have been quiet before
	// its last record is read: until then the session may still add to it.
	DefaultIdleAfter = 30 * time.Minute
	// DefaultMaxFailures is how many runs in a row may find a window's
	// answer unusable (each asking twice) before later runs give the
	// window up and skip it, until a run is asked to retry failed windows
	// or one of its records changes.
	DefaultMaxFailures = 3
)

// Sessions is where the worker reads threads: the store's session records
// and the indexed text of their projections.
type Sessions interface {
	SessionsOf(ctx context.Context, corpus, transcript string) ([]cairn.SessionRecord, error)
	DocumentText(ctx context.Context, corpus, path string) (string, error)
}

// Worker consolidates the threads of one sessions corpus.
type Worker struct {
	LLM      cairn.LLM
	Sessions Sessions
	Store    cairn.MemoryStore
	Corpus   string         // the sessions corpus
	Location *time.Location // the zone projections show times in (default UTC)
	// Index, when set, is given each committed window's memories and what
	// else the commit changed (the engine renders and indexes them as the
	// memories corpus).
	Index func(ctx context.Context, stored []cairn.Memory, other cairn.Committed) error

	WindowChars int // a window's records, as rendered
	PartChars   int // a part of a longer record
	MaxTokens   int // answer budget of a main window
	// ObservationWindowChars > 0 reads observations apart, in windows of
	// this size with half as much context; negative asks for them in the
	// main windows instead.
	ObservationWindowChars int
	ObservationPartChars   int
	ObservationMaxTokens   int
	CallTimeout            time.Duration // per model call
	KnownNames             int           // entries of names known from other threads in the header (names.go)
	// IdleAfter holds a thread's last record back until the thread's
	// latest message is this old (0: read it at once). A record read
	// earlier and changed since is read again either way; holding back
	// saves reading a growing record several times.
	IdleAfter time.Duration
	// Now is the clock IdleAfter is measured with (nil: time.Now).
	Now func() time.Time
	// MaxFailures gives a window up after this many failed runs (0 or
	// less: never).
	MaxFailures int

	dir *nameDirectory // the known names of the current run (names.go)
}

// New returns a worker with the defaults filled.
func New(llm cairn.LLM, sessions Sessions, store cairn.MemoryStore, corpus string) *Worker {
	return &Worker{LLM: llm, Sessions: sessions, Store: store, Corpus: corpus,
		WindowChars: DefaultWindowChars, PartChars: DefaultPartChars, MaxTokens: DefaultMaxTokens,
		ObservationWindowChars: DefaultObservationWindowChars, ObservationPartChars: DefaultObservationPartChars,
		ObservationMaxTokens: DefaultObservationMaxTokens, CallTimeout: DefaultCallTimeout, KnownNames: DefaultKnownNames,
		IdleAfter: DefaultIdleAfter, MaxFailures: DefaultMaxFailures}
}

func (w *Worker) apart() bool { return w.ObservationWindowChars > 0 }

func (w *Worker) passes() []string {
	if w.apart() {
		return []string{PassMain, PassObservations}
	}
	return []string{PassMain}
}

// errPause stops a run: the model is unavailable or busy.
type errPause struct {
	status string
	err    error
}

func (e *errPause) Error() string { return e.err.Error() }

// Run consolidates the pending records of every thread (or of the one
// opts.Thread names), window by window in thread order. A window counts
// as done only once its memories are committed. When the model is
// unavailable or busy the run stops (the next thread would meet the same
// endpoint), keeps every remaining record pending and reports a paused
// status; that is not an error.
//
// A window whose answer is unusable twice (cut at the output limit, not
// JSON, off the schema, a rejected request) keeps its records pending and
// is recorded as failed with the reason (durably, per record); the run goes
// on and ends completed_with_failures (failed when no window succeeded),
// listing it in Failures. After MaxFailures such runs the window is given
// up: later runs skip it, listed as skipped, until opts.RetryFailed or a
// change to one of its records. The error is for the store or a cancelled
// context.
func (w *Worker) Run(ctx context.Context, opts *cairn.ConsolidateOptions) (*cairn.ConsolidateResult, error) {
	o := cairn.ConsolidateOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return nil, cairn.Invalidf("limit %d: allowed 0 (no limit) or more", o.Limit)
	}
	threads, err := w.threads(ctx, o.Thread)
	if err != nil {
		return nil, err
	}
	res := &cairn.ConsolidateResult{Dropped: map[string]int{}, Status: cairn.ConsolidateCompleted}
	w.dir = nil // names are read afresh by each run
	if o.DryRun {
		res.Plan = []cairn.WindowPlan{}
	}
	stop, failedNow := false, 0
	for _, th := range threads {
		plans, skipped, err := w.plans(ctx, th, o.RetryFailed)
		if err != nil {
			return res, err
		}
		res.Failures = append(res.Failures, skipped...)
		if len(plans) == 0 {
			continue
		}
		res.Threads++
		for i := range plans {
			if stop || o.Limit > 0 && res.Windows >= o.Limit {
				break
			}
			win := &plans[i]
			if o.DryRun || o.Progress != nil {
				wp := w.describe(ctx, th, win)
				if o.Progress != nil {
					o.Progress(wp)
				}
				if o.DryRun {
					res.Plan = append(res.Plan, wp)
					res.Windows++
					continue
				}
			}
			err := w.consolidate(ctx, th, win, res)
			var p *errPause
			var u *unusable
			switch {
			case errors.As(err, &p):
				res.Status, res.Error, stop = p.status, p.err.Error(), true
			case errors.As(err, &u):
				res.Dropped[DropInvalidAnswer]++
				res.Error = err.Error()
				f, ferr := w.fail(ctx, th, win, u.reason)
				if ferr != nil {
					return res, ferr
				}
				res.Failures = append(res.Failures, f)
				failedNow++
			case err != nil:
				res.Pending, res.Held, _ = w.pending(context.WithoutCancel(ctx), threads)
				return res, err
			default:
				res.Windows++
			}
		}
	}
	res.Failed = len(res.Failures)
	switch {
	case stop:
	case failedNow > 0 && res.Windows == 0:
		res.Status = cairn.ConsolidateFailed
	case res.Failed > 0:
		res.Status = cairn.ConsolidateCompletedWithFailures
	}
	res.Pending, res.Held, err = w.pending(ctx, threads)
	return res, err
}

// fail records that a window's answer was unusable in this run.
func (w *Worker) fail(ctx context.Context, th *Thread, win *window, reason string) (cairn.WindowFailure, error) {
	uids, hashes := recordKeys(win)
	tries, err := w.Store.RecordFailure(ctx, cairn.FailureCommit{Corpus: th.Corpus, Thread: th.Path, Pass: win.pass,
		Records: uids, Hashes: hashes, Reason: reason})
	return cairn.WindowFailure{Thread: th.Key(), Pass: win.pass, Records: len(uids), Tries: tries, Reason: reason,
		GivenUp: w.givenUp(tries)}, err
}

func (w *Worker) givenUp(tries int) bool { return w.MaxFailures > 0 && tries >= w.MaxFailures }

func recordKeys(win *window) (uids, hashes []string) {
	for _, r := range win.records {
		uids, hashes = append(uids, r.UID), append(hashes, r.Hash)
	}
	return uids, hashes
}

// threads reads the corpus's sessions (one when thread names a session id
// or projection path) in start order.
func (w *Worker) threads(ctx context.Context, thread string) ([]*Thread, error) {
	recs, err := w.Sessions.SessionsOf(ctx, w.Corpus, "")
	if err != nil {
		return nil, err
	}
	thread = strings.TrimPrefix(strings.TrimPrefix(thread, "cairn://"+w.Corpus+"/"), w.Corpus+"/")
	if thread != "" {
		recs = slices.DeleteFunc(recs, func(r cairn.SessionRecord) bool {
			return r.Path != thread && r.Info.SessionID != thread
		})
		if len(recs) == 0 {
			return nil, cairn.Invalidf("thread %q: no session of corpus %s has this id or path (see cairn search --json for session ids)", thread, w.Corpus)
		}
	}
	slices.SortStableFunc(recs, func(a, b cairn.SessionRecord) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	var out []*Thread
	for _, r := range recs {
		text, err := w.Sessions.DocumentText(ctx, w.Corpus, r.Path)
		if errors.Is(err, cairn.ErrNotFound) {
			continue // recorded but not indexed yet: the next sync indexes it
		}
		if err != nil {
			return nil, err
		}
		if th := threadOf(r, text, w.Location); len(th.Records) > 0 {
			out = append(out, th)
		}
	}
	return out, nil
}

// plans lists a thread's pending windows: the main pass's, then the
// observations pass's. A held-back last record is left out, and so are
// given-up records (unless retry), which are returned as one skipped
// failure per pass. Earlier windows whose records are all gone are
// replaced by the pass's first window, or by a window without records when
// there is none.
func (w *Worker) plans(ctx context.Context, th *Thread, retry bool) ([]window, []cairn.WindowFailure, error) {
	var out []window
	var skipped []cairn.WindowFailure
	for _, pass := range w.passes() {
		cp, err := w.checkpoint(ctx, th, pass)
		if err != nil {
			return nil, nil, err
		}
		if w.held(th) {
			cp.done[th.Records[len(th.Records)-1].UID] = true
		}
		if !retry {
			f, err := w.skipGivenUp(ctx, th, pass, cp.done)
			if err != nil {
				return nil, nil, err
			}
			if f != nil {
				skipped = append(skipped, *f)
			}
		}
		var wins []window
		if pass == PassMain {
			wins = plan(th, cp.done, pass, w.WindowChars, w.PartChars, 0)
		} else {
			wins = plan(th, cp.done, pass, w.ObservationWindowChars, w.ObservationPartChars, w.ObservationWindowChars/2)
		}
		if len(cp.gone) > 0 {
			if len(wins) == 0 {
				wins = []window{{pass: pass}}
			}
			wins[0].replaces = cp.gone
		}
		out = append(out, wins...)
	}
	return out, skipped, nil
}

// skipGivenUp marks the pending records of a pass that are given up (as
// failed in MaxFailures runs, with the text they have now) as done for
// planning, and describes them as one skipped failure.
func (w *Worker) skipGivenUp(ctx context.Context, th *Thread, pass string, done map[string]bool) (*cairn.WindowFailure, error) {
	if w.MaxFailures <= 0 {
		return nil, nil
	}
	fs, err := w.Store.FailedRecords(ctx, th.Corpus, th.Path, pass)
	if err != nil || len(fs) == 0 {
		return nil, err
	}
	var out *cairn.WindowFailure
	for _, r := range th.Records {
		f, ok := fs[r.UID]
		if !ok || done[r.UID] || f.Hash != r.Hash || !w.givenUp(f.Tries) {
			continue
		}
		done[r.UID] = true
		if out == nil {
			out = &cairn.WindowFailure{Thread: th.Key(), Pass: pass, Reason: f.Reason, GivenUp: true, Skipped: true}
		}
		out.Records++
		out.Tries = max(out.Tries, f.Tries)
	}
	return out, nil
}

// progress is a thread's checkpoint in one pass as the worker reads it.
type progress struct {
	done map[string]bool // records done for good
	gone []int64         // windows all of whose records are gone from the thread
}

// checkpoint reads which records of a thread a pass has done for good:
// read, with the text they have now, in a window none of whose records
// changed or went away since. A changed record makes its whole window
// pending again, so the window's memories are replaced as a whole.
func (w *Worker) checkpoint(ctx context.Context, th *Thread, pass string) (*progress, error) {
	cp, err := w.Store.DoneRecords(ctx, th.Corpus, th.Path, pass)
	if err != nil {
		return nil, err
	}
	stale, present := map[int64]bool{}, map[int64]bool{}
	inThread := map[string]bool{}
	for i := range th.Records {
		r := &th.Records[i]
		inThread[r.UID] = true
		if d, ok := cp[r.UID]; ok {
			present[d.Window] = true
			if changed(d.Hash, r.Hash, i == len(th.Records)-1) {
				stale[d.Window] = true
			}
		}
	}
	p := &progress{done: map[string]bool{}}
	for uid, d := range cp {
		if !inThread[uid] {
			stale[d.Window] = true
			if !present[d.Window] && !slices.Contains(p.gone, d.Window) {
				p.gone = append(p.gone, d.Window)
			}
		}
	}
	slices.Sort(p.gone)
	for _, r := range th.Records {
		if d, ok := cp[r.UID]; ok && !stale[d.Window] {
			p.done[r.UID] = true
		}
	}
	return p, nil
}

// changed compares a record's hash with the one its checkpoint kept. A
// checkpoint from before hashes were kept is trusted, except for a
// thread's last record: it may have grown since, so it is read once more.
func changed(kept, now string, last bool) bool {
	if kept == "" {
		return last
	}
	return kept != now
}

// held reports whether a thread's last record is held back: the thread's
// latest message is younger than IdleAfter. A record without a readable
// time is not held.
func (w *Worker) held(th *Thread) bool {
	if w.IdleAfter <= 0 || len(th.Records) == 0 {
		return false
	}
	last := th.Records[len(th.Records)-1].Last
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	return !last.IsZero() && now().Sub(last) < w.IdleAfter
}

// pending counts the records some pass has not consolidated, and among
// them the held-back ones.
func (w *Worker) pending(ctx context.Context, threads []*Thread) (pending, held int, err error) {
	for _, th := range threads {
		var done []map[string]bool
		for _, pass := range w.passes() {
			cp, err := w.checkpoint(ctx, th, pass)
			if err != nil {
				return 0, 0, err
			}
			done = append(done, cp.done)
		}
		for i, r := range th.Records {
			if slices.ContainsFunc(done, func(d map[string]bool) bool { return !d[r.UID] }) {
				pending++
				if i == len(th.Records)-1 && w.held(th) {
					held++
				}
			}
		}
	}
	return pending, held, nil
}

// describe renders a window as it would be sent and measures it.
func (w *Worker) describe(ctx context.Context, th *Thread, win *window) cairn.WindowPlan {
	wp := cairn.WindowPlan{Thread: th.Key(), Pass: win.pass, Records: len(win.records), Parts: max(1, len(win.parts))}
	if len(win.records) == 0 {
		wp.Parts = 0 // only replaces windows whose records are gone: no model call
		return wp
	}
	names := w.names(ctx, th, win)
	sys := system(win.pass, !w.apart())
	for i := 0; i < wp.Parts; i++ {
		prompt := w.prompt(th, win, names, i, nil)
		wp.Chars += chars(sys) + chars(prompt)
		wp.Tokens += chunk.EstimateTokens(sys) + chunk.EstimateTokens(prompt)
	}
	return wp
}

// names picks the known names of a window (names.go). The run's name
// directory is read on first use; names are optional context, so a store
// that cannot list them leaves the header without any.
func (w *Worker) names(ctx context.Context, th *Thread, win *window) []knownName {
	if w.KnownNames <= 0 {
		return nil
	}
	if w.dir == nil {
		d, err := loadNames(ctx, w.Store, DefaultNameSources)
		if err != nil {
			return nil
		}
		w.dir = d
	}
	return w.dir.pick(th.Key(), windowText(win), w.KnownNames)
}

// prompt renders part i of a window (0 for a window of whole records),
// with the episode written so far for a later part.
func (w *Worker) prompt(th *Thread, win *window, names []knownName, i int, running *episode) string {
	d := header(th, win.records, names)
	d.Context = win.context
	if len(win.parts) == 0 {
		for k, r := range win.records {
			d.Records = append(d.Records, recordBlock(win.nums[k], r, 0, 0)+r.Text+"\n")
		}
		return renderWindow(d)
	}
	num, r := win.nums[0], win.records[0]
	d.Records = []string{recordBlock(num, r, i+1, len(win.parts)) + strings.TrimRight(win.parts[i], "\n") + "\n"}
	if win.pass == PassMain {
		d.Part = &partInfo{Num: num, N: i + 1, Of: len(win.parts)}
		if running != nil {
			d.Part.Title, d.Part.Summary = oneLine(running.Title), oneLine(running.Summary)
		}
	} else if i > 0 {
		d.Context = contextTail(win.parts[i-1], w.ObservationWindowChars/2)
	}
	return renderWindow(d)
}

// contextTail is the end of the previous part.
func contextTail(s string, max int) string { return tail(strings.TrimRight(s, "\n"), max) }

// consolidate asks the model for one window (every part of a long record),
// gates the answers and commits the memories with the checkpoint. What
// the calls cost is counted in res whether or not the window commits.
func (w *Worker) consolidate(ctx context.Context, th *Thread, win *window, res *cairn.ConsolidateResult) error {
	names := w.names(ctx, th, win)
	var answers []*answer
	var running *episode
	var t tally
	defer func() {
		res.TokensIn, res.TokensOut, res.InvalidAnswers = res.TokensIn+t.in, res.TokensOut+t.out, res.InvalidAnswers+t.invalid
	}()
	for i := 0; i < max(1, len(win.parts)) && len(win.records) > 0; i++ {
		a, err := w.ask(ctx, win.pass, w.prompt(th, win, names, i, running), &t)
		if err != nil {
			return err // the whole record stays pending
		}
		answers = append(answers, a)
		running = runningEpisode(running, a, win.nums[0])
	}
	g := &gate{th: th, win: win, dropped: res.Dropped}
	mems, err := dropForgotten(ctx, w.Store, th.Corpus, th.Path, g.run(answers), res.Dropped) // forget.go
	if err != nil {
		return err
	}
	uids, hashes := recordKeys(win)
	summary := ""
	for _, a := range answers {
		summary = clean(a.SegmentSummary)
	}
	done, err := w.Store.CommitWindow(ctx, cairn.WindowCommit{Corpus: th.Corpus, Thread: th.Path, Pass: win.pass,
		Records: uids, Hashes: hashes, Replaces: win.replaces, Memories: mems, Summary: summary, TokensIn: t.in, TokensOut: t.out})
	if err != nil {
		return err
	}
	res.Replaced += len(done.Removed)
	if w.dir != nil {
		for i := range mems { // later threads of this run may name them
			w.dir.add(&mems[i])
		}
	}
	for _, m := range mems {
		switch m.Kind {
		case cairn.MemoryEpisode:
			res.Episodes++
		case cairn.MemoryObservation:
			res.Observations++
		default:
			res.Items++
		}
	}
	if w.Index != nil && len(mems)+len(done.Removed)+len(done.Touched) > 0 {
		return w.Index(ctx, mems, done)
	}
	return nil
}

// runningEpisode carries a long record's episode from part to part: the
// title and the summary each from the last part that gave one, so a part
// that answers keep: false with empty fields does not blank what the
// earlier parts wrote.
func runningEpisode(running *episode, a *answer, num int) *episode {
	for _, raw := range a.Episodes {
		var e episode
		if json.Unmarshal(raw, &e) != nil || e.Request.Int() != num {
			continue
		}
		if running == nil {
			running = &episode{}
		}
		if strings.TrimSpace(e.Title) != "" {
			running.Title = e.Title
		}
		if strings.TrimSpace(e.Summary) != "" {
			running.Summary = e.Summary
		}
	}
	if running != nil && running.Title == "" && running.Summary == "" {
		return nil
	}
	return running
}
