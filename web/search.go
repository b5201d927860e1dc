package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// searchForm is the search as URL parameters: q, mode, corpus
// (repeatable), limit, min; session filters s_from, s_to (dates or
// RFC 3339 times), s_source, s_cwd; memory filters m_kind, m_scope,
// m_project, m_from, m_to (YYYY, YYYY-MM or YYYY-MM-DD).
type searchForm struct {
	Q, Mode                             string
	Corpora                             []string
	Limit                               int
	Min                                 float64
	SFrom, STo, SSource, SCwd           string
	MKind, MScope, MProject, MFrom, MTo string
}

// searchPage is the search template's data.
type searchPage struct {
	page
	Form      searchForm
	Corpora   []corpusChoice
	Modes     []string
	Hits      []hitView
	Searched  bool
	Took      string
	Filtering bool // a filter is set: the filter fieldsets open
	MaxLimit  int  // the limit field's max: cairn.MaxRecallLimit when only the memories corpus is searched
}

type corpusChoice struct {
	Name    string
	Checked bool
}

// hitView is one hit as the page shows it.
type hitView struct {
	cairn.Hit
	Open         string // the document view of the hit's lines
	Memory       string // the memory page of a memory hit
	Lexical      *float64
	Vector       *float64
	SessionTitle string
}

// search serves / : the form, and with q the hits.
func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	d := &searchPage{page: h.pageOf("Search", "search"), Modes: []string{"", cairn.ModeHybrid, cairn.ModeLexical, cairn.ModeVector}}
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	f, err := parseSearch(r.URL.Query())
	d.Form = f
	for _, c := range eng.Corpora() {
		if c.Kind != cairn.KindSkills {
			d.Corpora = append(d.Corpora, corpusChoice{Name: c.Name, Checked: slices.Contains(f.Corpora, c.Name)})
		}
	}
	d.MaxLimit = cairn.MaxSearchLimit
	if len(f.Corpora) > 0 && !slices.ContainsFunc(f.Corpora, func(n string) bool { return n != cairn.MemoriesCorpus }) {
		d.MaxLimit = cairn.MaxRecallLimit
	}
	d.Filtering = f.SFrom != "" || f.STo != "" || f.SSource != "" || f.SCwd != "" || f.MKind != "" || f.MScope != "" ||
		f.MProject != "" || f.MFrom != "" || f.MTo != ""
	status := http.StatusOK
	if err == nil && f.Q != "" {
		var opts *cairn.SearchOptions
		if opts, err = f.options(eng.Embedder() != nil); err == nil {
			start := time.Now()
			var hits []cairn.Hit
			hits, err = eng.Search(r.Context(), f.Q, opts)
			err = paramNames(err)
			took := time.Since(start)
			w.Header().Set("Server-Timing", fmt.Sprintf("search;dur=%.2f", float64(took.Microseconds())/1000))
			d.Took, d.Searched = took.Round(10*time.Microsecond).String(), true
			for _, hit := range hits {
				d.Hits = append(d.Hits, viewHit(hit, f.Q, opts.Mode))
			}
		}
	}
	if err != nil {
		d.Message, status = err.Error(), http.StatusBadRequest
	} else if why := h.opts.Agent.EmbedderError; why != "" {
		d.Message = "vectors are off, so only the lexical lane answers: the embedder could not load: " + why
	}
	d.Title = "Search"
	if f.Q != "" {
		d.Title = f.Q + " · Search"
	}
	h.render(w, r, status, "search", d)
}

// parseSearch reads the form from URL parameters; a bad number is an
// error naming the parameter, and the rest of the form still shows.
func parseSearch(v url.Values) (searchForm, error) {
	f := searchForm{Q: strings.TrimSpace(v.Get("q")), Mode: v.Get("mode"), Corpora: v["corpus"],
		SFrom: v.Get("s_from"), STo: v.Get("s_to"), SSource: v.Get("s_source"), SCwd: v.Get("s_cwd"),
		MKind: v.Get("m_kind"), MScope: v.Get("m_scope"), MProject: v.Get("m_project"), MFrom: v.Get("m_from"), MTo: v.Get("m_to"),
		Limit: cairn.DefaultSearchLimit, Min: cairn.DefaultMinScore}
	f.Corpora = slices.DeleteFunc(f.Corpora, func(s string) bool { return s == "" })
	var errs []string
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs = append(errs, fmt.Sprintf("limit %q is not a number: give 1 to %d", s, cairn.MaxSearchLimit))
		} else if n < 1 || n > cairn.MaxRecallLimit {
			errs = append(errs, fmt.Sprintf("limit %d out of range: allowed 1 to %d (%d when only the memories corpus is searched)", n, cairn.MaxSearchLimit, cairn.MaxRecallLimit))
		}
		f.Limit = n
	}
	if s := v.Get("min"); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			errs = append(errs, fmt.Sprintf("min %q is not a number: give 0 to 1", s))
		} else if x < 0 || x > 1 {
			errs = append(errs, fmt.Sprintf("min %g out of range: allowed 0 to 1", x))
		}
		f.Min = x
	}
	if errs != nil {
		return f, cairn.Invalidf("%s", strings.Join(errs, "; "))
	}
	return f, nil
}

// options turns the form into the engine's search options: explained, so
// the page can draw each lane.
func (f searchForm) options(embedder bool) (*cairn.SearchOptions, error) {
	o := &cairn.SearchOptions{Corpora: f.Corpora, Limit: f.Limit, MinScore: f.Min, Explain: true, Mode: f.Mode}
	if o.Mode == "" {
		o.Mode = cairn.ModeLexical
		if embedder {
			o.Mode = cairn.ModeHybrid
		}
	}
	if (o.Mode == cairn.ModeVector || o.Mode == cairn.ModeHybrid) && !embedder {
		return nil, cairn.Invalidf("mode %q needs an embedder, and none is loaded: choose lexical", o.Mode)
	}
	sf, err := sessionFilterOf("s_", f.SFrom, f.STo, f.SSource, f.SCwd)
	if err != nil {
		return nil, err
	}
	if !sf.IsZero() {
		o.Sessions = &sf
	}
	if f.MKind != "" || f.MScope != "" || f.MProject != "" || f.MFrom != "" || f.MTo != "" {
		o.Memories = &cairn.MemorySearch{Scope: f.MScope, Project: f.MProject, From: f.MFrom, To: f.MTo}
		if f.MKind != "" {
			o.Memories.Kinds = []string{f.MKind}
		}
	}
	return o, paramNames(o.Validate())
}

// apiNames maps the engine's field names in its messages to the search
// form's URL parameters.
var apiNames = strings.NewReplacer(
	"memoryFilter.toldFrom", "told from", "memoryFilter.toldTo", "told to",
	"memoryFilter.kinds[0]", "m_kind", "memoryFilter.scope", "m_scope", "memoryFilter.project", "m_project",
	"memoryFilter.from", "m_from", "memoryFilter.to", "m_to", "min-score", "min",
	"sessionFilter.from", "s_from", "sessionFilter.to", "s_to")

// paramNames rewrites an invalid-input error of the engine to name the
// URL parameters; other errors pass as they are.
func paramNames(err error) error {
	if err == nil || !errors.Is(err, cairn.ErrInvalid) {
		return err
	}
	return cairn.Invalidf("%s", apiNames.Replace(err.Error()))
}

// sessionFilterOf parses the session filter fields. A bare date as the
// upper bound covers its whole day.
// prefix is the URL parameters' ("s_" on the search page): messages
// name prefix+"from" and prefix+"to". A range that ends before it starts
// is an error.
func sessionFilterOf(prefix, from, to, source, cwd string) (cairn.SessionFilter, error) {
	f := cairn.SessionFilter{Source: strings.TrimSpace(source), Cwd: strings.TrimSpace(cwd)}
	var err error
	if f.StartedFrom, err = parseWhen(prefix+"from", from, false); err != nil {
		return f, err
	}
	if f.StartedTo, err = parseWhen(prefix+"to", to, true); err != nil {
		return f, err
	}
	if !f.StartedFrom.IsZero() && !f.StartedTo.IsZero() && f.StartedTo.Before(f.StartedFrom) {
		return f, cairn.Invalidf("%sto %s is before %sfrom %s: give a range that starts before it ends",
			prefix, strings.TrimSpace(to), prefix, strings.TrimSpace(from))
	}
	return f, nil
}

// parseWhen reads YYYY-MM-DD (UTC) or an RFC 3339 time; a date as an
// upper bound (end) means the end of that day.
func parseWhen(field, s string, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			t = t.Add(24*time.Hour - time.Millisecond)
		}
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, cairn.Invalidf("%s %q: give a date YYYY-MM-DD or a time like 2026-05-04T09:00:00+02:00", field, s)
	}
	return t, nil
}

// viewHit adds the links and lane scores the page draws. A lane's bar is
// its own measure on 0..1: BM25 as s/(1+s), the cosine.
func viewHit(hit cairn.Hit, q, mode string) hitView {
	v := hitView{Hit: hit, Lexical: hit.TextScore, Vector: hit.VectorScore}
	if sig := hit.Signals; sig != nil {
		if sig.BM25 > 0 {
			x := sig.BM25 / (1 + sig.BM25)
			v.Lexical = &x
		}
		if sig.VecRank > 0 {
			x := max(sig.Cosine, 0)
			v.Vector = &x
		}
	}
	if v.Lexical == nil && v.Vector == nil {
		s := hit.Score
		if mode == cairn.ModeVector {
			v.Vector = &s
		} else {
			v.Lexical = &s
		}
	}
	v.Open = docURL(hit.Path, hit.StartLine, hit.EndLine, q)
	if hit.Memory != nil {
		v.Memory = "/ui/memory?id=" + url.QueryEscape(hit.Memory.ID)
	}
	if s := hit.Session; s != nil {
		v.SessionTitle = strings.TrimSpace(s.Source + " " + s.StartedAt + " " + s.Cwd)
	}
	return v
}

// docURL is the document view of lines from..to of a cairn:// path, with
// the words of q marked.
func docURL(path string, from, to int, q string) string {
	v := url.Values{"path": {path}}
	if from > 0 {
		v.Set("from", strconv.Itoa(from))
		v.Set("to", strconv.Itoa(max(to, from)))
	}
	if q != "" {
		v.Set("q", q)
	}
	return "/ui/doc?" + v.Encode() + fmt.Sprintf("#L%d", max(from, 1))
}
