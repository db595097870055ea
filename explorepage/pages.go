package explorepage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"lockstep/explore"
	"lockstep/ownlock"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/webnet"
)

// MaxImportBytes bounds an imported lesson file (upload or paste).
const MaxImportBytes = 256 << 10

// MaxImportBody bounds an import request's body: the file and the form
// around it. A longer body gets 413, whatever its encoding.
const MaxImportBody = MaxImportBytes + 64<<10

// ServeExplore is the explore page (GET /explore), or with t= the player
// of a shared timeline (Host.ServeTimeline); a code that cannot be opened
// gets 400 and the explore page with the reason.
func (s *Pages) ServeExplore(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	code := r.URL.Query().Get("t")
	if code == "" {
		s.host.WritePage(w, r, http.StatusOK, templates.ExploreStart(s.explorePage(loc, nil)))
		return
	}
	tl, err := s.host.DecodeTimeline(code)
	if err != nil {
		s.host.WritePage(w, r, http.StatusBadRequest, templates.ExploreStart(s.explorePage(loc, err)))
		return
	}
	s.host.ServeTimeline(w, r, tl, code)
}

// explorePage is the explore page in loc; badLink, when not nil, is why a
// share link could not be opened.
func (s *Pages) explorePage(loc sim.Locale, badLink error) templates.ExplorePage {
	t := s.host.Texts(loc)
	p := templates.ExplorePage{
		Site:          s.host.Site(loc, func(l sim.Locale) string { return "/explore?lang=" + string(l) }),
		X:             t.Explore(),
		BadLinkReason: badLinkReason(t, badLink),

		Sandbox: templates.SandboxForm{LeaseMS: "30000", Actors: "2", Lock: "order:42"},
	}
	p.Variants = variantOptions(t, "token-count")
	p.Lock = ownlock.EmptyForm()
	if badLink != nil {
		p.BadLink = t.Err(badLink)
	}
	return p
}

// variantOptions are the sandbox form's variants, each with where it
// comes from in t's language (the seeds by their titles, their file names
// in the option's title attribute).
func variantOptions(t Texts, selected string) []templates.VariantOption {
	var out []templates.VariantOption
	for _, name := range sim.Variants() {
		vi, _ := sim.Variant(name)
		src := t.Maybe("VariantNote" + view.Camel(name))
		if src == "" {
			src = vi.Source
		}
		text, seeds := view.SourceText(t, src)
		out = append(out, templates.VariantOption{Name: name, Source: text, Seeds: seeds, Selected: name == selected})
	}
	return out
}

// badLinkReason says in t's language what kind of problem a share link has
// (explore.LinkError); the detail under it stays as the decoder wrote it.
// "" when err is not a link's problem.
func badLinkReason(t Texts, err error) string {
	var le *explore.LinkError
	if !errors.As(err, &le) {
		return ""
	}
	switch le.Problem {
	case explore.LinkNewer:
		return t.T("BadLinkNewer")
	case explore.LinkCutShort:
		return t.T("BadLinkCut")
	case explore.LinkRules:
		return t.T("BadLinkRules")
	}
	return t.T("BadLinkDamaged")
}

// ServeNew starts a sandbox from the explore page's form and
// redirects to its player.
func (s *Pages) ServeNew(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	q := r.URL.Query()
	num := func(name string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(q.Get(name)), 10, 64)
		if err != nil {
			return 0, codedErr(sim.M("web.sandbox.number", "Field", name, "Got", q.Get(name)), "explorepage: sandbox: %s: want a whole number, got %q", name, q.Get(name))
		}
		return n, nil
	}
	fail := func(err error) {
		// The form comes back as it was sent, with the reason.
		p := s.explorePage(loc, nil)
		// The heading already says the sandbox could not start: show the
		// lesson rules it broke, not the explore error's own intro again.
		var les sim.LoadErrors
		if errors.As(err, &les) {
			err = les
		}
		p.SandboxError = s.host.Texts(loc).Err(err)
		p.Sandbox = templates.SandboxForm{LeaseMS: q.Get("lease_ms"), Actors: q.Get("actors"), Lock: q.Get("lock"),
			Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != ""}
		p.Variants = variantOptions(s.host.Texts(loc), q.Get("variant"))
		s.host.WritePage(w, r, http.StatusBadRequest, templates.ExploreStart(p))
	}
	lease, err := num("lease_ms")
	if err != nil {
		fail(err)
		return
	}
	actors, err := num("actors")
	if err != nil {
		fail(err)
		return
	}
	l, err := explore.Sandbox(s.host.Catalog(), explore.SandboxConfig{
		Variant: q.Get("variant"), LeaseMS: lease, Actors: int(actors), Lock: strings.TrimSpace(q.Get("lock")),
		Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != "",
	})
	if err != nil {
		fail(err)
		return
	}
	code, err := s.host.EncodeTimeline(explore.Shared(l, explore.Origin{}))
	if err != nil {
		fail(err)
		return
	}
	http.Redirect(w, r, s.host.ExploreURL(code, 0, loc), http.StatusSeeOther)
}

// ServeImport loads a lesson file sent by upload (field file) or paste
// (field yaml) and redirects to its player; a file the loader rejects comes
// back with its errors at their lines and the text kept.
func (s *Pages) ServeImport(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	page := s.explorePage(loc, nil)
	fail := func(status int, src []byte, name string, err error) {
		page.ImportText = string(src)
		var les sim.LoadErrors
		if errors.As(err, &les) {
			bad := map[int]bool{}
			for _, e := range les {
				page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: e.Pos.Line, Col: e.Pos.Col, Msg: s.host.Catalog().Message(loc, e), Where: fmt.Sprintf("%s:%d:%d", name, e.Pos.Line, e.Pos.Col)})
				bad[e.Pos.Line] = true
			}
			for i, line := range strings.Split(string(src), "\n") {
				page.ImportLines = append(page.ImportLines, templates.ImportLine{Number: i + 1, Text: line, Error: bad[i+1]})
			}
		} else {
			page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: 1, Col: 1, Msg: s.host.Texts(loc).Err(err), Where: name})
		}
		s.host.WritePage(w, r, status, templates.ExploreStart(page))
	}
	// The body must arrive within BodyTimeout and be at most
	// MaxImportBody bytes, whatever its encoding.
	if tooBig, timedOut, err := webnet.ReadForm(w, r, MaxImportBody, MaxImportBytes, s.host.BodyTimeout()); err != nil {
		t := s.host.Texts(loc)
		switch {
		case tooBig:
			fail(http.StatusRequestEntityTooLarge, nil, "upload", errors.New(t.T("ImportBodyTooLarge", "Limit", MaxImportBytes>>10, "Max", MaxImportBody>>10)))
		case timedOut:
			w.Header().Set("Connection", "close")
			fail(http.StatusRequestTimeout, nil, "upload", errors.New(t.T("ImportBodyTimeout", "Seconds", s.host.BodyTimeout().Seconds())))
		default:
			fail(http.StatusBadRequest, nil, "upload", fmt.Errorf("explorepage: import: read the form: %w", err))
		}
		return
	}
	name, src := "pasted.yaml", []byte(r.FormValue("yaml"))
	if f, hdr, err := r.FormFile("file"); err == nil {
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxImportBytes+1))
		if err != nil {
			fail(http.StatusBadRequest, nil, hdr.Filename, codedErr(sim.M("web.import.unreadable"), "explorepage: import: read %s: %v", hdr.Filename, err))
			return
		}
		if len(b) > 0 {
			name, src = hdr.Filename, b
		}
	}
	if len(src) > MaxImportBytes {
		fail(http.StatusRequestEntityTooLarge, nil, name, errors.New(s.host.Texts(loc).T("ImportTooLarge", "Name", name, "Limit", MaxImportBytes>>10)))
		return
	}
	if bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}) {
		fail(http.StatusUnprocessableEntity, nil, name, codedErr(sim.M("web.import.utf16"), "explorepage: import: %s is UTF-16 text; save it as UTF-8 and import it again", name))
		return
	}
	if !utf8.Valid(src) {
		fail(http.StatusUnprocessableEntity, nil, name, codedErr(sim.M("web.import.not-utf8"), "explorepage: import: %s is not UTF-8 text (a lesson file is YAML in UTF-8)", name))
		return
	}
	if len(strings.TrimSpace(string(src))) == 0 {
		fail(http.StatusBadRequest, src, name, codedErr(sim.M("web.import.empty"), "explorepage: import: choose a lesson file or paste one"))
		return
	}
	l, err := s.host.LessonRules().Load(name, src)
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	code, err := s.host.EncodeTimeline(explore.Timeline{Kind: explore.KindImport, Lesson: l})
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	http.Redirect(w, r, s.host.ExploreURL(code, 0, loc), http.StatusSeeOther)
}

// requestTimeline is the timeline an export or compare request names: a
// share code (t) or a course lesson or drill (lesson). A fork is titled as
// one (explore.ForkTitle), not with its lesson's title.
func (s *Pages) requestTimeline(r *http.Request) (explore.Timeline, error) {
	q := r.URL.Query()
	if code := q.Get("t"); code != "" {
		tl, err := s.host.DecodeTimeline(code)
		if err != nil {
			return tl, err
		}
		titled := *tl.Lesson
		titled.Title = s.host.TimelineTitle(tl)
		tl.Lesson = &titled
		return tl, nil
	}
	id := q.Get("lesson")
	if id == "" {
		return explore.Timeline{}, codedErr(sim.M("web.timeline-unnamed"), "explorepage: name a timeline (t=) or a lesson (lesson=)")
	}
	tl := s.host.Lesson(r.Context(), id)
	if tl.Lesson == nil {
		return tl, codedErr(sim.M("web.no-such-lesson", "ID", id), "explorepage: no lesson %q in the course", id)
	}
	return tl, nil
}

// ServeExport sends a timeline as a lesson file, a Mermaid sequence
// diagram or an SVG of the lanes.
func (s *Pages) ServeExport(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loc := s.host.Negotiate(r)
		tl, err := s.requestTimeline(r)
		if err != nil {
			http.Error(w, s.host.Texts(loc).Err(err), http.StatusBadRequest)
			return
		}
		l, o := tl.Lesson, tl.Origin
		if format == "yaml" && len(l.Steps) == 0 {
			// The lesson format wants a step at least (sim.Load refuses a
			// lesson without): an export that could not load back is refused.
			http.Error(w, s.host.Texts(loc).Msg(sim.M("web.export.no-steps")), http.StatusUnprocessableEntity)
			return
		}
		frames, err := s.host.RunFrames(r.Context(), l)
		if err != nil {
			if reason, acl, ok := s.host.Refusal(loc, err); ok {
				status := http.StatusUnprocessableEntity // the timeline is over a bound
				if acl {
					status = http.StatusBadGateway // the Redis refused, not the timeline
				}
				http.Error(w, s.host.Texts(loc).T("TimelineRefused", "Reason", reason), status)
				return
			}
			http.Error(w, fmt.Sprintf("explorepage: export: run %s: %v", l.ID, err), http.StatusBadGateway)
			return
		}
		name := l.ID
		exported := l
		if tl.Explore() {
			// A timeline made here: its lesson file is ready for lessons/
			// (texts, outcomes, an id unique to its steps), and every
			// export of it is named by that id.
			exported = explore.ForExport(s.host.Catalog(), l, frames, o, s.host.OriginLesson(o))
			name = exported.ID
		}
		var body []byte
		ctype := "text/plain; charset=utf-8"
		switch format {
		case "yaml":
			body, err = sim.MarshalLesson(exported)
			ctype = "application/yaml; charset=utf-8"
		case "mmd":
			body = []byte(sim.SequenceDiagram(l, frames, loc, s.host.Catalog()))
		case "svg":
			body, err = view.TimelineSVG(s.host.Texts(loc), l, frames, s.host.BackendInfo())
			ctype = "image/svg+xml"
		}
		if err != nil {
			http.Error(w, "explorepage: export: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if name == "" {
			name = "timeline"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name+"."+format))
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	}
}

// ServeCompare runs a timeline under two variants and shows them side by
// side.
func (s *Pages) ServeCompare(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	x := t.Explore()
	q := r.URL.Query()
	p := templates.ComparePage{
		Site: s.host.Site(loc, func(l sim.Locale) string {
			q2 := r.URL.Query()
			q2.Set("lang", string(l))
			return "/explore/compare?" + q2.Encode()
		}),
		X: x, Variants: sim.Variants(), A: q.Get("a"), B: q.Get("b"),
	}
	tl, err := s.requestTimeline(r)
	l := tl.Lesson
	if err != nil {
		p.Error = t.Err(err)
		// Not the link again in every language link.
		p.Langs = s.host.Langs(loc, func(l sim.Locale) string { return "/explore/compare?lang=" + string(l) })
		s.host.WritePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	}
	if code := q.Get("t"); code != "" {
		p.QueryName, p.QueryValue = "t", code
		p.BackURL = s.host.ExploreURL(code, 0, loc)
	} else {
		p.QueryName, p.QueryValue = "lesson", l.ID
		p.BackURL = s.host.LessonURL(l.ID, 0, loc)
	}
	p.A, p.B = compareDefaults(l.Variant, p.A, p.B)
	var defs []*sim.VariantDef
	if def, err := s.lockForCompare(r); err != nil {
		p.Error = t.Err(err)
		s.host.WritePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	} else if def != nil {
		// The learner's own lock (k=, from its course table) is one more
		// variant to pick.
		defs, p.LockCode = append(defs, def), q.Get("k")
		p.Variants = append(slices.Clone(p.Variants), def.Name)
	}
	if ownScripts(l) && !slices.Contains(p.Variants, l.Variant) {
		p.Variants = append(slices.Clone(p.Variants), l.Variant)
	}
	p.Title = l.Title.In(loc)
	ctx, cancel := context.WithTimeout(r.Context(), s.compareTimeout)
	defer cancel()
	c, err := explore.Compare(ctx, l, p.A, p.B, s.host.Opener(l, defs), defs...)
	if err != nil {
		p.Error = t.Err(err)
		if reason, _, ok := s.host.Refusal(loc, err); ok {
			p.Error = t.T("TimelineRefused", "Reason", reason)
		}
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	own, err := s.ownFrames(ctx, l, c)
	if err != nil {
		p.Error = t.Err(err)
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	for i, side := range []*explore.Side{&c.A, &c.B} {
		u := s.host.LessonURL(l.ID, c.FirstDiff, loc)
		if side.Variant != l.Variant || tl.Kind != explore.KindLesson {
			// A course lesson's own column is the lesson; any other is a
			// timeline of its own.
			code, err := s.host.EncodeTimeline(s.compareSide(tl, l, side, own))
			if err != nil {
				continue
			}
			u = s.host.ExploreURL(code, c.FirstDiff, loc)
		}
		if i == 0 {
			p.AURL = u
		} else {
			p.BURL = u
		}
	}
	switch {
	case len(l.Steps) == 0:
		p.Summary = x.CompareEmpty
	case c.FirstDiff > 0:
		p.Summary = t.T("CompareFirstDiff", "Step", c.FirstDiff)
	default:
		p.Summary = x.CompareSame
	}
	p.Rows = view.CompareRows(t, l, c)
	s.host.WritePage(w, r, http.StatusOK, templates.Compare(p))
}

// compareDefaults are the two variants Compare runs: a and b as the query
// names them, a defaulting to the lesson's own variant and b to
// token-count or hash-refresh, so that a page opened without a or b never
// compares a variant with itself.
func compareDefaults(own, a, b string) (string, string) {
	if a == "" {
		a = own
		if a == b {
			a = otherVariant(b)
		}
	}
	if b == "" {
		b = otherVariant(a)
	}
	return a, b
}

// otherVariant is token-count, or hash-refresh when v is token-count.
func otherVariant(v string) string {
	if v == "token-count" {
		return "hash-refresh"
	}
	return "token-count"
}

// ownFrames are the frames of l under its own variant: a side of c when
// it runs that variant, else a run of its own.
func (s *Pages) ownFrames(ctx context.Context, l *sim.Lesson, c *explore.Comparison) ([]sim.Frame, error) {
	for _, side := range []explore.Side{c.A, c.B} {
		if side.Variant == l.Variant {
			return side.Frames, nil
		}
	}
	return sim.RunFrames(ctx, l, s.host.Opener(l, nil))
}

// compareSide is the timeline a column of Compare opens: tl's own when
// the side runs the lesson's variant, else the lesson under the side's
// variant, retold where its outcomes leave the lesson's (explore.Under).
func (s *Pages) compareSide(tl explore.Timeline, l *sim.Lesson, side *explore.Side, own []sim.Frame) explore.Timeline {
	if side.Variant == l.Variant {
		return explore.Timeline{Kind: tl.Kind, Lesson: side.Lesson, Origin: tl.Origin}
	}
	under, _ := explore.Under(s.host.Catalog(), l, side.Lesson, side.Frames, own)
	id := l.ID
	if !sim.ValidLessonID(id) {
		id = explore.SandboxID
	}
	return explore.Timeline{Kind: explore.KindUnder, Lesson: under, Origin: explore.Origin{Under: id}}
}
