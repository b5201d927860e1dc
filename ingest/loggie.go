package ingest

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Loggie meeting transcripts (issue 22 items 1 and 2). The formats spec
// names meeting transcripts but does not describe Loggie's files, so this
// file fixes the shapes Cairn reads and says so; anything else keeps its
// original text. A Loggie home (the root) keeps one file per meeting
// transcript under transcripts/ (any depth): versioned meeting Markdown
// (.md) or a legacy JSON envelope (.json, loggie_json.go). Its raw/ folder,
// the recorder's own archives, is never read, and the home's name .loggie
// is one of the folders files corpora skip by default, so the raw archives
// stay out of notes corpora.
//
// A Markdown file holds one or more revision blocks, each delivered whole
// and appended by the recorder:
//
//	<!-- loggie:transcript v=2 account=acme workspace=eng meeting=m-42 transcript=t-1 seq=2 complete=true -->
//	# Weekly standup
//	Started: 2026-05-07T09:00:00Z
//
//	## Summary (generated)
//	The team agreed to order the cedar boards.
//
//	## Transcript
//	[00:00:12] Dana: Morning. Let's start with the fence.
//	[00:00:30] Sam: The boards arrive Friday.
//	a line without a stamp continues the utterance before it
//	<!-- loggie:end -->
//
// v is the format version (1 and 2 are read; 1 has no summary section).
// The ids (account, workspace, meeting, transcript), seq and complete are
// optional. A stamp is an offset from Started ([HH:MM:SS]); without Started
// an utterance has no time, only its offset as written. A block without its
// end line (truncated), with an unknown version or with no utterance is
// kept as its original text, unattributed.
//
// Replays and revisions (item 2) are compared within one file (one session)
// and within one scope (the same account, workspace, meeting and
// transcript ids); sessions are never compared with each other:
//
//   - a block identical to an earlier one of its scope (same ids, seq,
//     completeness and content) is a replay: dropped, counted in
//     Stats.Deduplicated;
//   - when every remaining block of a scope is complete and has a seq, and
//     the seqs differ, they are revisions: all kept in seq order, each
//     older one marked superseded by the newest;
//   - otherwise (a missing or repeated seq, a partial or unrecognised
//     block) the scope's blocks are ambiguous: all kept, in file order,
//     none marked.
//
// Projection (item 1): the summary is a generated message, never speech;
// adjacent utterances are grouped into one message of up to
// loggieGroupBytes (so a meeting is not one chunk per speaker turn), each
// line naming its speaker; an utterance longer than loggieMonologueBytes is
// split at sentence ends and each later part starts "<speaker>
// (continued):", so an excerpt from the middle of a monologue still names
// who spoke. A missing speaker stays missing ("Speaker unknown").

func init() {
	register(SourceReader{ID: cairn.SourceLoggie, Find: loggieFind, Parse: loggieParse})
}

// Projection budgets.
const (
	loggieGroupBytes     = 1200
	loggieMonologueBytes = 1000
	loggieMaxBlocks      = 256 // revision blocks read per file; the rest stay as text of the last
)

const (
	loggieOpen = "<!-- loggie:transcript "
	loggieEnd  = "<!-- loggie:end -->"
)

// loggieFind lists root/transcripts/**/*.md and *.json, sorted.
func loggieFind(root string) ([]string, error) {
	dir := filepath.Join(root, "transcripts")
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".json")) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// loggieKey scopes revision comparison.
type loggieKey struct{ account, workspace, meeting, transcript string }

// loggieUtt is one utterance.
type loggieUtt struct {
	speaker, stamp, text string
	at                   time.Time
}

// loggieRev is one revision block (or one JSON envelope).
type loggieRev struct {
	key       loggieKey
	seq       int
	hasSeq    bool
	complete  bool
	title     string
	started   time.Time
	startRaw  string
	summary   string
	utts      []loggieUtt
	raw       string // the original text of an unrecognised block
	hash      [32]byte
	supersede int // > 0: superseded by this seq; -1: the current of several revisions
}

func (r *loggieRev) recognised() bool { return r.raw == "" }

func loggieParse(data []byte, o ParseOptions) ([]cairn.Session, error) {
	var revs []*loggieRev
	var stats cairn.ParseStats
	if strings.HasSuffix(o.Path, ".json") {
		revs = loggieJSON(data, &stats)
	} else {
		revs = loggieMarkdown(string(data), &stats)
	}
	if len(revs) == 0 {
		return nil, nil
	}
	kept := loggieRevisions(revs, &stats)
	s := cairn.Session{Source: cairn.SourceLoggie, Provider: cairn.SourceLoggie, Stats: stats}
	// The newest block of the file's first scope names the session; a file
	// holding several transcripts is named by its file name.
	var cur *loggieRev
	one := true
	for _, r := range kept {
		switch {
		case !r.recognised():
		case cur == nil || r.key == cur.key:
			cur = r
		default:
			one = false
		}
	}
	if cur == nil {
		cur = kept[len(kept)-1]
	}
	s.ID = loggieStem(o.Path)
	if one {
		s.ID = ccFirstNonEmpty(cur.key.transcript, cur.key.meeting, s.ID)
	}
	s.AccountID, s.ConversationID, s.Label, s.Title = cur.key.account, cur.key.meeting, cur.key.workspace, cur.title
	for _, r := range kept {
		if !r.started.IsZero() && (s.StartedAt.IsZero() || r.started.Before(s.StartedAt)) {
			s.StartedAt, s.StartedAtRaw = r.started, r.startRaw
		}
	}
	for i, r := range kept {
		loggieMessages(&s, r, i+1)
	}
	return []cairn.Session{s}, nil
}

func loggieStem(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimSuffix(b, ".md"), ".json")
}

// loggieMarkdown splits a Markdown file into revision blocks.
func loggieMarkdown(text string, stats *cairn.ParseStats) []*loggieRev {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var revs []*loggieRev
	rest := text
	if i := strings.Index(rest, loggieOpen); i != 0 {
		head := rest
		if i > 0 {
			head, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(head) != "" {
			stats.Skip("unrecognised payload")
			revs = append(revs, loggieRaw(head))
		}
	}
	for rest != "" {
		next := strings.Index(rest[len(loggieOpen):], "\n"+loggieOpen)
		block := rest
		if next >= 0 && len(revs) < loggieMaxBlocks {
			block, rest = rest[:len(loggieOpen)+next+1], rest[len(loggieOpen)+next+1:]
		} else {
			rest = ""
		}
		stats.Lines++
		revs = append(revs, loggieBlock(block, stats))
	}
	return revs
}

func loggieRaw(text string) *loggieRev {
	r := &loggieRev{raw: strings.TrimSpace(text)}
	r.hash = sha256.Sum256([]byte("raw\x00" + r.raw))
	return r
}

// loggieBlock reads one revision block, or keeps it as text.
func loggieBlock(block string, stats *cairn.ParseStats) *loggieRev {
	header, body, _ := strings.Cut(block, "\n")
	attrs, ok := loggieAttrs(header)
	body, closed := strings.CutSuffix(strings.TrimRight(body, "\n"), loggieEnd)
	switch {
	case !ok || (attrs["v"] != "1" && attrs["v"] != "2"):
		stats.Skip("unrecognised payload")
		return loggieRaw(block)
	case !closed:
		stats.Skip("truncated payload")
		return loggieRaw(block)
	}
	r := &loggieRev{key: loggieKey{attrs["account"], attrs["workspace"], attrs["meeting"], attrs["transcript"]},
		complete: attrs["complete"] == "true"}
	if n, err := strconv.Atoi(attrs["seq"]); err == nil && n >= 0 {
		r.seq, r.hasSeq = n, true
	}
	section := ""
	var summary []string
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "# ") && r.title == "" && section == "":
			r.title = strings.TrimSpace(t[2:])
		case strings.HasPrefix(t, "Started:") && section == "":
			raw := strings.TrimSpace(strings.TrimPrefix(t, "Started:"))
			if at, err := time.Parse(time.RFC3339Nano, raw); err == nil {
				r.started, r.startRaw = at.UTC(), raw
			}
		case t == "## Summary (generated)" && attrs["v"] == "2":
			section = "summary"
		case t == "## Transcript":
			section = "transcript"
		case section == "summary":
			summary = append(summary, line)
		case section == "transcript" && t != "":
			r.addLine(t)
		}
	}
	r.summary = strings.TrimSpace(strings.Join(summary, "\n"))
	if len(r.utts) == 0 {
		stats.Skip("no utterance")
		return loggieRaw(block)
	}
	r.hash = loggieHash(r)
	return r
}

// loggieAttrs reads the header comment's key=value pairs.
func loggieAttrs(header string) (map[string]string, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(header), strings.TrimSpace(loggieOpen))
	if !ok {
		return nil, false
	}
	inner, ok = strings.CutSuffix(strings.TrimSpace(inner), "-->")
	if !ok {
		return nil, false
	}
	attrs := map[string]string{}
	for _, f := range strings.Fields(inner) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, false
		}
		attrs[k] = v
	}
	return attrs, true
}

// addLine adds "[HH:MM:SS] Speaker: text", or continues the last utterance.
func (r *loggieRev) addLine(t string) {
	if stamp, rest, ok := loggieStamp(t); ok {
		u := loggieUtt{stamp: stamp, text: rest}
		if sp, text, ok := strings.Cut(rest, ": "); ok && len(sp) <= 80 && !strings.ContainsAny(sp, "[]") {
			u.speaker, u.text = strings.TrimSpace(sp), strings.TrimSpace(text)
		}
		if off, ok := loggieOffset(stamp); ok && !r.started.IsZero() {
			u.at = r.started.Add(off)
		}
		r.utts = append(r.utts, u)
		return
	}
	if n := len(r.utts); n > 0 {
		r.utts[n-1].text += " " + t
		return
	}
	r.utts = append(r.utts, loggieUtt{text: t}) // text before any stamp: no speaker, no time
}

// loggieStamp splits a leading "[HH:MM:SS]" off a line.
func loggieStamp(t string) (stamp, rest string, ok bool) {
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return "", "", false
	}
	if _, ok := loggieOffset(t[1:end]); !ok {
		return "", "", false
	}
	return t[1:end], strings.TrimSpace(t[end+1:]), true
}

// loggieOffset reads HH:MM:SS or MM:SS.
func loggieOffset(s string) (time.Duration, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var total int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || len(p) > 3 {
			return 0, false
		}
		total = total*60 + n
	}
	return time.Duration(total) * time.Second, true
}

// loggieHash is a block's identity for replay detection: ids, seq,
// completeness, title, start, summary and utterances.
func loggieHash(r *loggieRev) [32]byte {
	var b strings.Builder
	for _, s := range []string{r.key.account, r.key.workspace, r.key.meeting, r.key.transcript, strconv.Itoa(r.seq),
		strconv.FormatBool(r.hasSeq), strconv.FormatBool(r.complete), r.title, r.startRaw, r.summary} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	for _, u := range r.utts {
		b.WriteString(u.speaker + "\x00" + u.stamp + "\x00" + u.text + "\x00")
	}
	return sha256.Sum256([]byte(b.String()))
}

// loggieRevisions applies the replay and revision rules above and returns
// the blocks kept, in projection order.
func loggieRevisions(revs []*loggieRev, stats *cairn.ParseStats) []*loggieRev {
	seen := map[[32]byte]bool{}
	var kept []*loggieRev
	scopes := map[loggieKey][]*loggieRev{}
	var order []loggieKey
	for _, r := range revs {
		if seen[r.hash] {
			stats.Deduplicated++
			continue
		}
		seen[r.hash] = true
		kept = append(kept, r)
		if !r.recognised() {
			continue
		}
		if _, ok := scopes[r.key]; !ok {
			order = append(order, r.key)
		}
		scopes[r.key] = append(scopes[r.key], r)
	}
	for _, k := range order {
		loggieMarkRevisions(scopes[k])
	}
	// Each scope's ordered revisions take the place of its first block.
	var out []*loggieRev
	placed := map[loggieKey]bool{}
	for _, r := range kept {
		switch {
		case !r.recognised():
			out = append(out, r)
		case scopes[r.key][0].supersede != 0:
			if !placed[r.key] {
				placed[r.key] = true
				out = append(out, scopes[r.key]...)
			}
		default:
			out = append(out, r)
		}
	}
	return out
}

// loggieMarkRevisions orders and marks a scope's blocks when they are
// distinct complete revisions with distinct seqs; else leaves them.
func loggieMarkRevisions(rs []*loggieRev) {
	if len(rs) < 2 {
		return
	}
	seqs := map[int]bool{}
	for _, r := range rs {
		if !r.complete || !r.hasSeq || seqs[r.seq] {
			return // ambiguous or partial: kept as delivered
		}
		seqs[r.seq] = true
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].seq < rs[j].seq })
	newest := rs[len(rs)-1].seq
	for _, r := range rs[:len(rs)-1] {
		r.supersede = newest
	}
	rs[len(rs)-1].supersede = -1
}

// loggieMessages appends the messages of one kept block.
func loggieMessages(s *cairn.Session, r *loggieRev, n int) {
	id := func(k int) string { return "rev" + strconv.Itoa(n) + "-" + strconv.Itoa(k) }
	if !r.recognised() {
		s.Messages = append(s.Messages, cairn.Message{ID: id(1), Role: cairn.RoleUser, Kind: cairn.KindText, Text: r.raw})
		return
	}
	note := ""
	switch {
	case r.supersede > 0:
		note = "Revision " + strconv.Itoa(r.seq) + ", superseded by revision " + strconv.Itoa(r.supersede) + ".\n\n"
	case r.supersede < 0:
		note = "Revision " + strconv.Itoa(r.seq) + ", the current one.\n\n"
	}
	// The revision note is Cairn's, never speech: it goes with the
	// generated summary, or stands as a generated message of its own.
	if r.summary != "" || note != "" {
		text := strings.TrimSpace(note + r.summary)
		s.Messages = append(s.Messages, cairn.Message{ID: id(len(s.Messages) + 1), Role: cairn.RoleUser, Kind: cairn.KindSummary, Text: text})
	}
	for _, g := range loggieGroups(r.utts) {
		g.ID = id(len(s.Messages) + 1)
		s.Messages = append(s.Messages, g)
	}
}

// loggieGroups packs adjacent utterances into messages of up to
// loggieGroupBytes, splitting monologues (see the file comment).
func loggieGroups(utts []loggieUtt) []cairn.Message {
	var out []cairn.Message
	var cur *cairn.Message
	var speakers []string
	flush := func() {
		if cur != nil {
			cur.Speaker = strings.Join(speakers, ", ")
			out = append(out, *cur)
		}
		cur, speakers = nil, nil
	}
	for _, u := range utts {
		for i, part := range loggieSplit(u.text) {
			line := loggieLine(u, part, i > 0)
			if cur != nil && len(cur.Text)+len(line) > loggieGroupBytes {
				flush()
			}
			if cur == nil {
				cur = &cairn.Message{Role: cairn.RoleUser, Kind: cairn.KindText}
				if !u.at.IsZero() {
					cur.Time, cur.TimeRaw = u.at, u.stamp
				}
			} else {
				cur.Text += "\n\n"
			}
			cur.Text += line
			if u.speaker != "" && !containsString(speakers, u.speaker) {
				speakers = append(speakers, u.speaker)
			}
		}
	}
	flush()
	return out
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// loggieLine renders one utterance part: "Dana (00:00:12): text", later
// parts of a monologue "Dana (continued): text".
func loggieLine(u loggieUtt, text string, cont bool) string {
	who := u.speaker
	if who == "" {
		who = "Speaker unknown"
	}
	switch {
	case cont:
		who += " (continued)"
	case u.stamp != "":
		who += " (" + u.stamp + ")"
	}
	return who + ": " + text
}

// loggieSplit cuts a long utterance at sentence ends into parts of about
// loggieMonologueBytes (a sentence longer than that is one part).
func loggieSplit(text string) []string {
	if len(text) <= loggieMonologueBytes {
		return []string{text}
	}
	var parts []string
	start, last := 0, -1
	for i := 0; i < len(text); i++ {
		if (text[i] == '.' || text[i] == '?' || text[i] == '!') && (i+1 == len(text) || text[i+1] == ' ') {
			if i+1-start > loggieMonologueBytes && last > start {
				parts = append(parts, strings.TrimSpace(text[start:last]))
				start = last
			}
			last = i + 1
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		parts = append(parts, rest)
	}
	return parts
}
