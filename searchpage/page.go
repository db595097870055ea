package searchpage

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"lockstep/search"
	"lockstep/searches"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Shape is a variant's course search file as the form (and a
// data-defaults attribute) has it.
type Shape struct {
	LeaseMS    int64    `json:"lease_ms"`
	Fencing    bool     `json:"fencing"`
	Actors     int      `json:"actors"`
	Depth      int      `json:"depth"`
	Moves      []string `json:"moves"`
	AdvanceMS  []int64  `json:"advance_ms"`
	Invariants []string `json:"invariants"`
}

func shapeOf(f *search.File) Shape {
	sh := Shape{LeaseMS: f.Lease.Milliseconds(), Fencing: f.Fencing, Actors: len(f.Actors), Depth: f.Depth, Invariants: slices.Clone(f.Invariants)}
	for _, m := range f.Moves {
		sh.Moves = append(sh.Moves, string(m))
	}
	for _, d := range f.Advance {
		sh.AdvanceMS = append(sh.AdvanceMS, d.Milliseconds())
	}
	return sh
}

// Link is the address of the Search page with a shape filled in
// (the query parameters serveSearch reads): variant, actors, depth,
// lease_ms, fencing (1 or 0), moves and invariants (comma lists), expiry (1
// or 0: the clock advances of the variant's search file, or none), and
// from, the id of the lesson that links to it.
type Link struct {
	Variant    string
	Actors     int
	Depth      int
	Fencing    bool
	Moves      []search.Move
	Invariants []string
	From       string
}

// URL is the link in locale loc.
func (l Link) URL(loc sim.Locale) string {
	q := url.Values{}
	q.Set("variant", l.Variant)
	if l.Actors > 0 {
		q.Set("actors", strconv.Itoa(l.Actors))
	}
	if l.Depth > 0 {
		q.Set("depth", strconv.Itoa(l.Depth))
	}
	q.Set("fencing", map[bool]string{false: "0", true: "1"}[l.Fencing])
	if l.Moves != nil {
		ms := make([]string, len(l.Moves))
		for i, m := range l.Moves {
			ms[i] = string(m)
		}
		q.Set("moves", strings.Join(ms, ","))
	}
	if l.Invariants != nil {
		q.Set("invariants", strings.Join(l.Invariants, ","))
	}
	if l.From != "" {
		q.Set("from", l.From)
	}
	q.Set("lang", string(loc))
	return "/search?" + q.Encode()
}

// serveSearch is the Search page: the form filled with the chosen
// variant's course search file, then with the address's parameters
// (Link); a parameter that does not read is left at the file's
// value and named in the page's problems, and the page's search message
// is judged by search.Validate.
func (s *Searches) serveSearch(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	q := r.URL.Query()
	all, err := searches.All()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	variant, sh, expiry, problems := FromQuery(t, all, q)
	p := templates.SearchPage{
		Site: s.host.Site(loc, func(l sim.Locale) string {
			q := r.URL.Query()
			q.Set("lang", string(l))
			return "/search?" + q.Encode()
		}),
		S: t.Search(), MaxActors: search.MaxActors, MaxDepth: search.MaxDepth, Problems: problems,
	}
	for _, name := range sim.Variants() {
		f := variantSearch(all, name)
		if f == nil {
			continue
		}
		js, _ := json.Marshal(shapeOf(f))
		p.Variants = append(p.Variants, templates.SearchVariant{Name: name, Selected: name == variant, Defaults: string(js)})
	}
	if code := q.Get("lock"); code != "" {
		// The learner's own lock: one more entry, picked, on the shape of
		// token-count's search file.
		def, _, err := s.host.DecodeLock(code)
		if err != nil {
			http.Error(w, t.Err(err), http.StatusBadRequest)
			return
		}
		lsh := shapeOf(variantSearch(all, lockSearchBase))
		lsh.Invariants = lockInvariants(def, lsh.Invariants)
		js, _ := json.Marshal(lsh)
		if _, asked := q["invariants"]; !asked {
			sh.Invariants = lockInvariants(def, sh.Invariants)
		}
		for i := range p.Variants {
			p.Variants[i].Selected = false
		}
		p.Variants = append(p.Variants, templates.SearchVariant{Name: def.Name, Selected: true, Defaults: string(js)})
		p.LockCode = code
	}
	p.Actors, p.Depth, p.LeaseMS, p.Fencing, p.Expiry = sh.Actors, sh.Depth, sh.LeaseMS, sh.Fencing, expiry
	for _, m := range search.Moves {
		p.Moves = append(p.Moves, templates.SearchChoice{Value: string(m), Label: view.ActionName(t, sim.Action(m)), Checked: slices.Contains(sh.Moves, string(m))})
	}
	for _, inv := range sim.SearchInvariants {
		p.Invariants = append(p.Invariants, templates.SearchChoice{Value: inv, Label: view.InvariantTitle(t, inv), Checked: slices.Contains(sh.Invariants, inv)})
	}
	if l := s.host.Course(q.Get("from")); l != nil {
		p.FromLesson = l.Title.In(loc)
	} else if from := q.Get("from"); from != "" {
		// A lesson the course does not have: said, not dropped.
		p.Problems = append(p.Problems, templates.SearchProblem{Field: "from", Text: t.T("SearchParamFrom", "Param", "from", "Value", view.Clip(from, 64))})
	}
	s.host.WritePage(w, r, http.StatusOK, templates.Search(p))
}

// FromQuery is the shape a Search page's address asks for (the
// parameters of Link) over the variant's course search file in all;
// expiry says whether the clock advances of the file are kept. A parameter
// that does not read leaves the file's value and adds a problem, in t's
// language, naming the parameter (the page's search message is judged by
// search.Validate).
func FromQuery(t Texts, all []*search.File, q url.Values) (variant string, sh Shape, expiry bool, problems []templates.SearchProblem) {
	bad := func(param, id string, kv ...any) {
		args := append([]any{"Param", param, "Value", q.Get(param)}, kv...)
		problems = append(problems, templates.SearchProblem{Field: param, Text: t.T(id, args...)})
	}
	variant = cmp.Or(q.Get("variant"), "token-count")
	base := variantSearch(all, variant)
	if base == nil {
		if q.Get("variant") != "" {
			bad("variant", "SearchParamVariant", "Default", all[0].Variant)
		}
		variant, base = all[0].Variant, all[0]
	}
	sh = shapeOf(base)
	whole := func(param string, lo, hi int64) (int64, bool) {
		v, ok := q[param]
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v[0]), 10, 64)
		if err != nil || n < lo || n > hi {
			bad(param, "SearchParamNumber", "Min", lo, "Max", hi)
			return 0, false
		}
		return n, true
	}
	if n, ok := whole("actors", 1, search.MaxActors); ok {
		sh.Actors = int(n)
	}
	if n, ok := whole("depth", 1, search.MaxDepth); ok {
		sh.Depth = int(n)
	}
	if n, ok := whole("lease_ms", 1, int64(time.Hour/time.Millisecond)); ok {
		sh.LeaseMS = n
	}
	flag := func(param string) (on, given bool) {
		v, ok := q[param]
		switch {
		case !ok:
			return false, false
		case v[0] == "1" || v[0] == "0":
			return v[0] == "1", true
		}
		bad(param, "SearchParamFlag")
		return false, false
	}
	if on, ok := flag("fencing"); ok {
		sh.Fencing = on
	}
	if v, ok := q["moves"]; ok {
		sh.Moves = []string{}
		for _, m := range listParam(v[0]) {
			if slices.Contains(search.Moves, search.Move(m)) {
				sh.Moves = append(sh.Moves, m)
			} else {
				bad("moves", "SearchParamName", "Name", m)
			}
		}
	}
	if v, ok := q["invariants"]; ok {
		sh.Invariants = []string{}
		for _, inv := range listParam(v[0]) {
			if slices.Contains(sim.Invariants, inv) {
				sh.Invariants = append(sh.Invariants, inv)
			} else {
				bad("invariants", "SearchParamName", "Name", inv)
			}
		}
	}
	expiry = len(sh.AdvanceMS) > 0
	if on, ok := flag("expiry"); ok {
		expiry = expiry && on
	}
	return variant, sh, expiry, problems
}

// listParam reads a comma list of a query parameter.
func listParam(v string) []string {
	out := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
