package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// maxSessionRows is how many sessions the timeline lists.
const maxSessionRows = 500

// sessionsPage is the sessions template's data.
type sessionsPage struct {
	page
	From, To, Source, Cwd string
	Corpus                string
	Groups                []sessionGroup
	Shown, Matched        int
	First, Last           string // the strips' ends (UTC days)
	StripW                int
}

// sessionGroup is the sessions of one source in one working folder,
// newest first.
type sessionGroup struct {
	Source, Cwd string
	Sessions    []sessionRow
	Strip       []stripMark // the sessions with a start, on the page's time axis
}

type sessionRow struct {
	Started, Title, ID, Open, Chat string
	Parent                         bool
	at                             time.Time
}

// stripMark is one session on a group's time strip.
type stripMark struct {
	X           float64
	Open, Title string
}

// The time strip drawn above each group: every group on the same axis,
// from the earliest shown start to the latest.
const (
	stripW   = 600
	stripPad = 8
)

// sessions serves /ui/sessions?from=DATE&to=DATE&source=ID&cwd=DIR: the
// projected sessions grouped by source and working folder, each group a
// timeline, newest first.
func (h *Handler) sessions(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	q := r.URL.Query()
	d := &sessionsPage{page: h.pageOf("Sessions", "sessions"), StripW: stripW, From: q.Get("from"), To: q.Get("to"), Source: q.Get("source"), Cwd: q.Get("cwd")}
	f, err := sessionFilterOf("", d.From, d.To, d.Source, d.Cwd)
	if err != nil {
		d.Message = err.Error()
		h.render(w, r, http.StatusBadRequest, "sessions", d)
		return
	}
	for _, c := range eng.Corpora() {
		if c.Kind == cairn.KindSessions {
			d.Corpus = c.Name
		}
	}
	if d.Corpus == "" {
		d.Message = "no sessions corpus is configured: add one with cairn corpus add sessions --kind sessions --source claude-code"
		h.render(w, r, http.StatusOK, "sessions", d)
		return
	}
	recs, n, err := eng.Sessions(r.Context(), d.Corpus, f, maxSessionRows)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d.Shown, d.Matched = len(recs), n
	d.Groups = groupSessions(d.Corpus, recs)
	d.First, d.Last = placeOnStrip(d.Groups)
	h.render(w, r, http.StatusOK, "sessions", d)
}

// groupSessions groups records (newest first) by source and folder, the
// groups in the order of their newest session.
func groupSessions(corpus string, recs []cairn.SessionRecord) []sessionGroup {
	var groups []sessionGroup
	at := map[[2]string]int{}
	for _, rec := range recs {
		key := [2]string{rec.Info.Source, rec.Info.Cwd}
		i, ok := at[key]
		if !ok {
			i = len(groups)
			at[key] = i
			groups = append(groups, sessionGroup{Source: key[0], Cwd: key[1]})
		}
		row := sessionRow{Title: rec.Info.Title, ID: rec.Info.SessionID, Chat: rec.Info.ChatType, Parent: rec.ParentID != "",
			Open: "/ui/doc?" + url.Values{"path": {engine.Scheme + corpus + "/" + rec.Path}, "all": {"1"}}.Encode()}
		if row.Title == "" {
			row.Title = rec.Path
		}
		row.Started, row.at = "no start recorded", rec.StartedAt
		if !rec.StartedAt.IsZero() {
			row.Started = rec.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
		} else if s := strings.TrimSpace(rec.StartedAtRaw); s != "" {
			row.Started = s
		}
		groups[i].Sessions = append(groups[i].Sessions, row)
	}
	return groups
}

// placeOnStrip puts every session with a start on one time axis shared by
// the groups and returns the axis's first and last days ("" without
// starts).
func placeOnStrip(groups []sessionGroup) (string, string) {
	var lo, hi time.Time
	for _, g := range groups {
		for _, r := range g.Sessions {
			if r.at.IsZero() {
				continue
			}
			if lo.IsZero() || r.at.Before(lo) {
				lo = r.at
			}
			if r.at.After(hi) {
				hi = r.at
			}
		}
	}
	if lo.IsZero() {
		return "", ""
	}
	span := hi.Sub(lo).Seconds()
	for i := range groups {
		for _, r := range groups[i].Sessions {
			if r.at.IsZero() {
				continue
			}
			x := float64(stripW) / 2
			if span > 0 {
				x = stripPad + r.at.Sub(lo).Seconds()/span*(stripW-2*stripPad)
			}
			groups[i].Strip = append(groups[i].Strip, stripMark{X: x, Open: r.Open, Title: r.Started + " " + r.Title})
		}
	}
	return lo.UTC().Format(time.DateOnly), hi.UTC().Format(time.DateOnly)
}
