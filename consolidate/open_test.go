package consolidate_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/google/go-cmp/cmp"
)

// The backup thread: three records on Monday 2026-05-11, and the ways it
// changes after it was consolidated.
var (
	bk1      = msg("user", at(11, 9, 0), "Set up a backup of the photo archive with restic.")
	bk1r     = msg("assistant", at(11, 9, 2), "Initialised a restic repository at /mnt/backup/photos.")
	bk1edit  = msg("assistant", at(11, 9, 2), "Initialised a restic repository at /mnt/nas/photos.")
	bk2      = msg("user", at(11, 9, 10), "Run it every night.")
	bk2edit  = msg("user", at(11, 9, 10), "Run it every night at two.")
	bk2r     = msg("assistant", at(11, 9, 12), "Added a cron entry that runs restic backup at 02:00.")
	bk2more  = msg("assistant", at(11, 9, 40), "Replaced the cron entry with the systemd timer restic-backup.timer.")
	bk3      = msg("user", at(11, 9, 50), "How big is the repository?")
	bk3r     = msg("assistant", at(11, 9, 51), "The repository holds 212 GB.")
	backupAt = at(11, 9, 0)
)

func backupSession(msgs ...cairn.Message) cairn.Session {
	return cairn.Session{Source: cairn.SourceClaudeCode, ID: "s-backup", Title: "Back up the photo archive", Cwd: "/home/dana/photos",
		ConversationID: "backup", StartedAt: backupAt, Messages: msgs}
}

var recordHead = regexp.MustCompile(`(?m)^=== Record (\d+) · [^\n]*===\n`)

// lastLines maps each record of a prompt (after its context) to its last
// non-empty line: the agent's latest reply.
func lastLines(prompt string) map[int]string {
	if _, after, ok := strings.Cut(prompt, "--- End of context ---"); ok {
		prompt = after
	}
	out := map[int]string{}
	heads := recordHead.FindAllStringSubmatchIndex(prompt, -1)
	for i, h := range heads {
		end := len(prompt)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		n, _ := strconv.Atoi(prompt[h[2]:h[3]])
		lines := strings.Split(strings.TrimSpace(prompt[h[1]:end]), "\n")
		out[n] = strings.TrimSpace(lines[len(lines)-1])
	}
	return out
}

// echoAnswer answers like a model reporting each record's latest reply:
// per record an episode ("Record N of the backup thread"), a fact and an
// observation whose text is that reply.
func echoAnswer(system, prompt string) string {
	last := lastLines(prompt)
	nums := slices.Sorted(func(yield func(int) bool) {
		for n := range last {
			if !yield(n) {
				return
			}
		}
	})
	if strings.HasPrefix(system, "You read one small window") {
		var obs []any
		for _, n := range nums {
			obs = append(obs, obsJSON(last[n], "Dana", "", "done", []int{n}, nil, nil))
		}
		return mustJSON(map[string]any{"observations": orAny(obs)})
	}
	var eps, items []any
	for _, n := range nums {
		eps = append(eps, map[string]any{"request": n, "outcome": "success", "keep": true, "title": "Record " + strconv.Itoa(n) + " of the backup thread",
			"summary": last[n], "cues": []string{}, "concepts": []string{}})
		items = append(items, map[string]any{"kind": "fact", "title": last[n], "summary": last[n], "body": "", "applies_when": "",
			"scope": "project", "requests": []int{n}, "confidence": "stated", "importance": 3, "contested": false, "ambiguous": false,
			"cues": []string{}, "concepts": []string{}})
	}
	return mustJSON(map[string]any{"segment_summary": "Backups.", "episodes": orAny(eps), "items": orAny(items)})
}

func orAny(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// consolidateAt runs the worker over the OpenAI wire fake with the clock at
// now; idle < 0 keeps the default hold-back, tune adjusts the rest.
func (f *fixture) consolidateAt(url string, now time.Time, idle time.Duration, tune func(*consolidate.Worker)) *cairn.ConsolidateResult {
	f.t.Helper()
	opts := &engine.ConsolidateOptions{Tune: func(w *consolidate.Worker) {
		w.Now = func() time.Time { return now }
		if idle >= 0 {
			w.IdleAfter = idle
		}
		if tune != nil {
			tune(w)
		}
	}}
	res, err := f.eng.Consolidate(context.Background(), client("openai", url, 10*time.Second), nil, opts)
	if err != nil {
		f.t.Fatalf("consolidate: %v", err)
	}
	return res
}

func (f *fixture) importSessions(sessions ...cairn.Session) {
	f.t.Helper()
	if _, err := f.eng.ImportSessions(context.Background(), "sessions", "fixture", sessions); err != nil {
		f.t.Fatal(err)
	}
}

// titles lists the stored memories as "kind: title", sorted.
func (f *fixture) titles() []string {
	var out []string
	for _, m := range f.memories() {
		out = append(out, m.Kind+": "+m.Title)
	}
	slices.Sort(out)
	return out
}

// checkSources: no memory is stored twice, each is indexed once, and each
// one's source lines hold the reply it reports (no memory outlives the
// text it came from).
func checkSources(t *testing.T, f *fixture) {
	t.Helper()
	ms := f.memories()
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.ID] {
			t.Errorf("memory %s stored twice", m.ID)
		}
		seen[m.ID] = true
		if len(m.Provenance) == 0 {
			t.Errorf("memory %q has no source", m.Title)
			continue
		}
		p := m.Provenance[0]
		got, err := f.eng.Get(context.Background(), p.Path, &cairn.GetOptions{From: p.StartLine, Lines: p.EndLine - p.StartLine + 1})
		if err != nil || !strings.Contains(got.Text, m.Summary) {
			t.Errorf("memory %s %q: its source lines %d-%d do not hold %q (%v):\n%s", m.Kind, m.Title, p.StartLine, p.EndLine, m.Summary, err, got.Text)
		}
	}
	docs, err := f.eng.Store().DocStates(context.Background(), "memories")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(ms) {
		t.Errorf("%d memory documents indexed for %d memories", len(docs), len(ms))
	}
}

func backupTitles(replies ...string) []string {
	var out []string
	for i, r := range replies {
		out = append(out, "episode: Record "+strconv.Itoa(i+1)+" of the backup thread", "fact: "+r, "observation: Dana: "+r)
	}
	slices.Sort(out)
	return out
}

// TestOpenRecordHeldBack: a session still going has its last record held
// back (counted in pending and held) until the session has been quiet for
// IdleAfter; the replies added meanwhile are read with it.
func TestOpenRecordHeldBack(t *testing.T) {
	f := newFixture(t, backupSession(bk1, bk1r, bk2, bk2r))
	srv := newWireServer(t, "openai", nil)
	srv.answer = echoAnswer
	steps := []struct {
		name     string
		session  []cairn.Message // imported before the run when set
		now      time.Time
		want     cairn.ConsolidateResult
		requests int
		titles   []string
	}{
		{name: "8 minutes after the last reply", now: at(11, 9, 20),
			want:     cairn.ConsolidateResult{Threads: 1, Windows: 2, Episodes: 1, Items: 1, Observations: 1, Pending: 1, Held: 1},
			requests: 2, titles: backupTitles(bk1r.Text)},
		{name: "the session grows; 20 minutes after its new reply", session: []cairn.Message{bk1, bk1r, bk2, bk2r, bk2more}, now: at(11, 10, 0),
			want: cairn.ConsolidateResult{Pending: 1, Held: 1}, requests: 2, titles: backupTitles(bk1r.Text)},
		{name: "quiet for 30 minutes", now: at(11, 10, 10),
			want:     cairn.ConsolidateResult{Threads: 1, Windows: 2, Episodes: 1, Items: 1, Observations: 1},
			requests: 4, titles: backupTitles(bk1r.Text, bk2more.Text)},
		{name: "nothing left", now: at(12, 9, 0), requests: 4, titles: backupTitles(bk1r.Text, bk2more.Text)},
	}
	for _, st := range steps {
		if st.session != nil {
			f.importSessions(backupSession(st.session...))
		}
		res := f.consolidateAt(srv.URL, st.now, -1, nil)
		st.want.Dropped, st.want.Status = map[string]int{}, cairn.ConsolidateCompleted
		if d := cmp.Diff(st.want, counts(res)); d != "" {
			t.Errorf("%s: result (-want +got):\n%s", st.name, d)
		}
		if n := len(srv.requests()); n != st.requests {
			t.Errorf("%s: %d requests in all, want %d", st.name, n, st.requests)
		}
		if d := cmp.Diff(st.titles, f.titles()); d != "" {
			t.Errorf("%s: memories (-want +got):\n%s", st.name, d)
		}
	}
	reqs := srv.requests()
	for i, b := range reqs {
		if i < 2 && strings.Contains(b, bk2.Text) {
			t.Errorf("request %d reads the open record", i+1)
		}
		if i >= 2 && (!strings.Contains(b, bk2r.Text) || !strings.Contains(b, bk2more.Text)) {
			t.Errorf("request %d does not read both replies of the record that grew", i+1)
		}
	}
	checkSources(t, f)
}

// TestChangedRecordReadAgain: a record that changed after it was
// consolidated (grew, was edited, went away) has its window read again and
// that window's old memories replaced: nothing twice, nothing orphaned,
// and a second run has nothing to do.
func TestChangedRecordReadAgain(t *testing.T) {
	oneEach := func(w *consolidate.Worker) { // one record a window
		w.WindowChars, w.ObservationWindowChars, w.ObservationPartChars = 400, 400, 380
	}
	full := []cairn.Message{bk1, bk1r, bk2, bk2r, bk3, bk3r}
	tests := []struct {
		name          string
		before, after []cairn.Message
		tune          func(*consolidate.Worker)
		windows       int // first run
		want          cairn.ConsolidateResult
		requests      int // second run
		titles        []string
	}{
		{name: "open record grows", before: []cairn.Message{bk1, bk1r, bk2, bk2r}, after: []cairn.Message{bk1, bk1r, bk2, bk2r, bk2more},
			windows: 2, want: cairn.ConsolidateResult{Threads: 1, Windows: 2, Episodes: 2, Items: 2, Observations: 2, Replaced: 2},
			requests: 2, titles: backupTitles(bk1r.Text, bk2more.Text)},
		{name: "a reply edited", before: full, after: []cairn.Message{bk1, bk1edit, bk2, bk2r, bk3, bk3r},
			windows: 2, want: cairn.ConsolidateResult{Threads: 1, Windows: 2, Episodes: 3, Items: 3, Observations: 3, Replaced: 2},
			requests: 2, titles: backupTitles(bk1edit.Text, bk2r.Text, bk3r.Text)},
		{name: "a request edited, one record a window", before: full, after: []cairn.Message{bk1, bk1r, bk2edit, bk2r, bk3, bk3r}, tune: oneEach,
			windows: 6, want: cairn.ConsolidateResult{Threads: 1, Windows: 2, Episodes: 1, Items: 1, Observations: 1, Replaced: 3},
			requests: 2, titles: backupTitles(bk1r.Text, bk2r.Text, bk3r.Text)},
		{name: "the last record removed, one record a window", before: full, after: []cairn.Message{bk1, bk1r, bk2, bk2r}, tune: oneEach,
			windows: 6, want: cairn.ConsolidateResult{Threads: 1, Windows: 2, Replaced: 3},
			requests: 0, titles: backupTitles(bk1r.Text, bk2r.Text)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, backupSession(tt.before...))
			srv := newWireServer(t, "openai", nil)
			srv.answer = echoAnswer
			now := at(12, 9, 0)
			if res := f.consolidateAt(srv.URL, now, 0, tt.tune); res.Windows != tt.windows || res.Pending != 0 {
				t.Fatalf("first run: %+v, want %d windows and nothing pending", counts(res), tt.windows)
			}
			first := len(srv.requests())
			f.importSessions(backupSession(tt.after...))
			res := f.consolidateAt(srv.URL, now, 0, tt.tune)
			tt.want.Dropped, tt.want.Status = map[string]int{}, cairn.ConsolidateCompleted
			if d := cmp.Diff(tt.want, counts(res)); d != "" {
				t.Errorf("after the change (-want +got):\n%s", d)
			}
			if n := len(srv.requests()) - first; n != tt.requests {
				t.Errorf("%d requests after the change, want %d", n, tt.requests)
			}
			if d := cmp.Diff(tt.titles, f.titles()); d != "" {
				t.Errorf("memories (-want +got):\n%s", d)
			}
			checkSources(t, f)
			if again := f.consolidateAt(srv.URL, now, 0, tt.tune); again.Windows != 0 || again.Pending != 0 || again.Replaced != 0 {
				t.Errorf("a third run: %+v, want nothing to do", counts(again))
			}
		})
	}
}
