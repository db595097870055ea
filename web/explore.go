package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"lockstep/explore"
	"lockstep/ownlock"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// MaxImportBytes bounds an imported lesson file (upload or paste).
const MaxImportBytes = 256 << 10

// maxImportBody bounds an import request's body: the file and the form
// around it. A longer body gets 413, whatever its encoding.
const maxImportBody = MaxImportBytes + 64<<10

// watchedBody is a request body that remembers why reading it stopped:
// over its http.MaxBytesReader's bound, or past the read deadline.
type watchedBody struct {
	io.ReadCloser
	tooBig, timedOut bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			b.tooBig = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.timedOut = true
		}
	}
	return n, err
}

// readImportBody parses an import's form (multipart, or URL-encoded for a
// paste) and reads what the form parser left of the body (all of it for
// another encoding), so that a body over the bound is found whatever its
// encoding. The reasons of an error are in body.
func readImportBody(r *http.Request, body *watchedBody) error {
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		err = r.ParseMultipartForm(MaxImportBytes)
	} else {
		// ParseMultipartForm drops ParseForm's error for a body that is not
		// multipart: a 400 KB paste read as an empty form (finding 11).
		err = r.ParseForm()
	}
	if err == nil {
		_, err = io.Copy(io.Discard, r.Body)
	}
	if err == nil && (body.tooBig || body.timedOut) {
		err = errors.New("web: import: body not read")
	}
	return err
}

// explore returns explore mode's strings in t's language: every field of
// templates.Explore from the message of the same id.
func (t *translator) Explore() templates.Explore { return t.x }

// originLesson is the course lesson or drill a fork comes from, nil when o
// names none (or one this server does not have).
func (s *Server) originLesson(o explore.Origin) *sim.Lesson {
	if o.Lesson == "" {
		return nil
	}
	return s.lesson(s.ctx, o.Lesson).Lesson
}

// lessonRules are the loader's options: text fields in the catalogue's
// locales.
func (s *Server) lessonRules() sim.Options { return sim.Options{Locales: s.translators.cat.Locales()} }

// encodeTimeline is the share code of tl: what its origin lesson already
// holds is left out (explore.Strip).
func (s *Server) encodeTimeline(tl explore.Timeline) (string, error) {
	return explore.Encode(explore.Strip(tl.Lesson, tl.Origin, s.originLesson(tl.Origin)), tl.Origin, s.lessonRules())
}

// decodeTimeline opens a share code, with the origin lesson's texts put back.
func (s *Server) decodeTimeline(code string) (explore.Timeline, error) {
	l, o, err := explore.Decode(code, s.lessonRules())
	if err != nil {
		return explore.Timeline{}, err
	}
	return explore.Shared(explore.Restore(l, o, s.originLesson(o)), o), nil
}

// exploreURL is the share link of a timeline at a step.
func exploreURL(code string, step int, loc sim.Locale, presenter bool) string {
	q := url.Values{}
	q.Set("t", code)
	if step > 0 {
		q.Set("step", strconv.Itoa(step))
	}
	q.Set("lang", string(loc))
	if presenter {
		q.Set("present", "1")
	}
	return "/explore?" + q.Encode()
}

func (s *Server) timelineView(t *translator, tl explore.Timeline, code string) view.ExploreState {
	o := tl.Origin
	tv := view.ExploreState{On: tl.Explore(), Code: code, CanUndo: tl.CanUndo()}
	if base := s.originLesson(o); tv.On && base != nil {
		tv.OriginURL = lessonURL(base.ID, o.At, t.locale, false)
		tv.OriginTitle = base.Title.In(t.locale)
	}
	return tv
}

// timelineTitle is a timeline's title: a fork's says what it forks
// (explore.ForkTitle), the others' are their own.
func (s *Server) timelineTitle(tl explore.Timeline) sim.Text {
	if base := s.originLesson(tl.Origin); base != nil {
		return s.translators.cat.Text(explore.ForkTitle(base, tl.Origin.At))
	}
	return tl.Lesson.Title
}

// exploreHeader is the player's header for an explore timeline.
func (s *Server) exploreHeader(t *translator, tl explore.Timeline, code string, step int, presenter bool) templates.Header {
	l, o := tl.Lesson, tl.Origin
	vi, _ := sim.LessonVariant(l)
	x := t.Explore()
	h := templates.Header{
		UI: t.UI(), CourseURL: "/explore?lang=" + string(t.locale), HomeURL: "/?lang=" + string(t.locale),
		Title: l.Title.In(t.locale), Summary: strings.TrimSpace(l.Summary.In(t.locale)),
		Variant: l.Variant, LockType: view.LockType(t, vi.LockType), Fencing: l.Fencing, Source: view.SourceParts(t, l.Source),
		Langs:   langOptions(t, func(loc sim.Locale) string { return exploreURL(code, step, loc, presenter) }),
		Backend: s.lessonBadge(t, l), Crumb: x.SandboxCrumb,
	}
	switch tl.Kind {
	case explore.KindSearch:
		// A search result: the crumb goes back to the Search page.
		h.Crumb, h.CourseURL = t.Search().SearchCrumb, "/search?lang="+string(t.locale)
	case explore.KindUnder:
		h.Crumb = x.UnderCrumb
		if customScripts(l) {
			h.Crumb = x.OwnLockCrumb
		}
	case explore.KindImport:
		h.Crumb = x.ImportCrumb
	case explore.KindOwnLock:
		h.Crumb = x.OwnLockCrumb
	}
	if base := s.originLesson(o); base != nil {
		h.Crumb = x.ForkCrumb
		h.Title = s.timelineTitle(tl).In(t.locale)
		h.Summary = t.Msg(explore.ForkSummary(base, o.At, len(l.Steps)))
		h.Source = view.SourceParts(t, base.Source)
	}
	return h
}

// serveExplore is the explore page, or with t= the player of a shared
// timeline.
func (s *Server) serveExplore(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	q := r.URL.Query()
	code := q.Get("t")
	if code == "" {
		writePage(w, r, http.StatusOK, templates.ExploreStart(s.explorePage(loc, nil)))
		return
	}
	tl, err := s.decodeTimeline(code)
	if err != nil {
		writePage(w, r, http.StatusBadRequest, templates.ExploreStart(s.explorePage(loc, err)))
		return
	}
	l := tl.Lesson
	t := s.tr(loc)
	step := queryStep(q.Get("step"), len(l.Steps))
	presenter := q.Get("present") == "1"
	p := templates.PlayerPage{
		UI: t.UI(), Lang: string(loc), Assets: assets(), LessonID: l.ID, Timeline: code, Step: step, Total: len(l.Steps),
		Presenter: presenter,
		Title:     s.timelineTitle(tl).In(loc) + " · " + t.UI().AppName,
		Header:    s.header(t, tl, code, step, presenter),
		Controls:  s.playerControls(t, l, step, DefaultSpeed),
		Steps:     view.PredictSteps(l),
	}
	writePage(w, r, http.StatusOK, templates.Player(p))
}

// explorePage is the explore page in loc; badLink, when not nil, is why a
// share link could not be opened.
func (s *Server) explorePage(loc sim.Locale, badLink error) templates.ExplorePage {
	t := s.tr(loc)
	p := templates.ExplorePage{
		Site:          s.site(loc, navExplore, func(l sim.Locale) string { return "/explore?lang=" + string(l) }),
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
func variantOptions(t *translator, selected string) []templates.VariantOption {
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
func badLinkReason(t *translator, err error) string {
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

// serveExploreNew starts a sandbox from the explore page's form and
// redirects to its player.
func (s *Server) serveExploreNew(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	q := r.URL.Query()
	num := func(name string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(q.Get(name)), 10, 64)
		if err != nil {
			return 0, userErr(sim.M("web.sandbox.number", "Field", name, "Got", q.Get(name)), "web: sandbox: %s: want a whole number, got %q", name, q.Get(name))
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
		p.SandboxError = s.tr(loc).Err(err)
		p.Sandbox = templates.SandboxForm{LeaseMS: q.Get("lease_ms"), Actors: q.Get("actors"), Lock: q.Get("lock"),
			Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != ""}
		p.Variants = variantOptions(s.tr(loc), q.Get("variant"))
		writePage(w, r, http.StatusBadRequest, templates.ExploreStart(p))
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
	l, err := explore.Sandbox(s.translators.cat, explore.SandboxConfig{
		Variant: q.Get("variant"), LeaseMS: lease, Actors: int(actors), Lock: strings.TrimSpace(q.Get("lock")),
		Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != "",
	})
	if err != nil {
		fail(err)
		return
	}
	code, err := s.encodeTimeline(explore.Shared(l, explore.Origin{}))
	if err != nil {
		fail(err)
		return
	}
	http.Redirect(w, r, exploreURL(code, 0, loc, false), http.StatusSeeOther)
}

// serveImport loads a lesson file sent by upload (field file) or paste
// (field yaml) and redirects to its player; a file the loader rejects comes
// back with its errors at their lines and the text kept.
func (s *Server) serveImport(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	// The body must arrive within BodyTimeout (a slow sender holds a
	// connection and a goroutine) and be at most maxImportBody bytes,
	// whatever its encoding.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	body := &watchedBody{ReadCloser: http.MaxBytesReader(w, r.Body, maxImportBody)}
	r.Body = body
	page := s.explorePage(loc, nil)
	fail := func(status int, src []byte, name string, err error) {
		page.ImportText = string(src)
		var les sim.LoadErrors
		if errors.As(err, &les) {
			bad := map[int]bool{}
			for _, e := range les {
				page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: e.Pos.Line, Col: e.Pos.Col, Msg: s.translators.cat.Message(loc, e), Where: fmt.Sprintf("%s:%d:%d", name, e.Pos.Line, e.Pos.Col)})
				bad[e.Pos.Line] = true
			}
			for i, line := range strings.Split(string(src), "\n") {
				page.ImportLines = append(page.ImportLines, templates.ImportLine{Number: i + 1, Text: line, Error: bad[i+1]})
			}
		} else {
			page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: 1, Col: 1, Msg: s.tr(loc).Err(err), Where: name})
		}
		writePage(w, r, status, templates.ExploreStart(page))
	}
	if err := readImportBody(r, body); err != nil {
		t := s.tr(loc)
		switch {
		case body.tooBig:
			fail(http.StatusRequestEntityTooLarge, nil, "upload", errors.New(t.T("ImportBodyTooLarge", "Limit", MaxImportBytes>>10, "Max", maxImportBody>>10)))
		case body.timedOut:
			w.Header().Set("Connection", "close")
			fail(http.StatusRequestTimeout, nil, "upload", errors.New(t.T("ImportBodyTimeout", "Seconds", s.cfg.BodyTimeout.Seconds())))
		default:
			fail(http.StatusBadRequest, nil, "upload", fmt.Errorf("web: import: read the form: %w", err))
		}
		return
	}
	name, src := "pasted.yaml", []byte(r.FormValue("yaml"))
	if f, hdr, err := r.FormFile("file"); err == nil {
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxImportBytes+1))
		if err != nil {
			fail(http.StatusBadRequest, nil, hdr.Filename, userErr(sim.M("web.import.unreadable"), "web: import: read %s: %v", hdr.Filename, err))
			return
		}
		if len(b) > 0 {
			name, src = hdr.Filename, b
		}
	}
	if len(src) > MaxImportBytes {
		fail(http.StatusRequestEntityTooLarge, nil, name, errors.New(s.tr(loc).T("ImportTooLarge", "Name", name, "Limit", MaxImportBytes>>10)))
		return
	}
	if bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}) {
		fail(http.StatusUnprocessableEntity, nil, name, userErr(sim.M("web.import.utf16"), "web: import: %s is UTF-16 text; save it as UTF-8 and import it again", name))
		return
	}
	if !utf8.Valid(src) {
		fail(http.StatusUnprocessableEntity, nil, name, userErr(sim.M("web.import.not-utf8"), "web: import: %s is not UTF-8 text (a lesson file is YAML in UTF-8)", name))
		return
	}
	if len(strings.TrimSpace(string(src))) == 0 {
		fail(http.StatusBadRequest, src, name, userErr(sim.M("web.import.empty"), "web: import: choose a lesson file or paste one"))
		return
	}
	l, err := s.lessonRules().Load(name, src)
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	code, err := s.encodeTimeline(explore.Timeline{Kind: explore.KindImport, Lesson: l})
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	http.Redirect(w, r, exploreURL(code, 0, loc, false), http.StatusSeeOther)
}

// requestTimeline is the timeline an export or compare request names: a
// share code (t) or a course lesson or drill (lesson). A fork is titled as
// one (explore.ForkTitle), not with its lesson's title.
func (s *Server) requestTimeline(r *http.Request) (explore.Timeline, error) {
	q := r.URL.Query()
	if code := q.Get("t"); code != "" {
		tl, err := s.decodeTimeline(code)
		if err != nil {
			return tl, err
		}
		titled := *tl.Lesson
		titled.Title = s.timelineTitle(tl)
		tl.Lesson = &titled
		return tl, nil
	}
	id := q.Get("lesson")
	if id == "" {
		return explore.Timeline{}, userErr(sim.M("web.timeline-unnamed"), "web: name a timeline (t=) or a lesson (lesson=)")
	}
	tl := s.lesson(r.Context(), id)
	if tl.Lesson == nil {
		return tl, userErr(sim.M("web.no-such-lesson", "ID", id), "web: no lesson %q in the course", id)
	}
	return tl, nil
}

// serveExport sends a timeline as a lesson file, a Mermaid sequence
// diagram or an SVG of the lanes.
func (s *Server) serveExport(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loc := s.negotiate(r)
		tl, err := s.requestTimeline(r)
		if err != nil {
			http.Error(w, s.tr(loc).Err(err), http.StatusBadRequest)
			return
		}
		l, o := tl.Lesson, tl.Origin
		if format == "yaml" && len(l.Steps) == 0 {
			// The lesson format wants a step at least (sim.Load refuses a
			// lesson without): an export that could not load back is refused.
			http.Error(w, s.tr(loc).Msg(sim.M("web.export.no-steps")), http.StatusUnprocessableEntity)
			return
		}
		frames, err := s.runFrames(r.Context(), l)
		if err != nil {
			if code, reason, ok := stepRefusal(s.tr(loc), err); ok {
				status := http.StatusUnprocessableEntity // the timeline is over a bound
				if code == ErrCodeRedisACL {
					status = http.StatusBadGateway // the Redis refused, not the timeline
				}
				http.Error(w, s.tr(loc).T("TimelineRefused", "Reason", reason), status)
				return
			}
			http.Error(w, fmt.Sprintf("web: export: run %s: %v", l.ID, err), http.StatusBadGateway)
			return
		}
		name := l.ID
		exported := l
		if tl.Explore() {
			// A timeline made here: its lesson file is ready for lessons/
			// (texts, outcomes, an id unique to its steps), and every
			// export of it is named by that id.
			exported = explore.ForExport(s.translators.cat, l, frames, o, s.originLesson(o))
			name = exported.ID
		}
		var body []byte
		ctype := "text/plain; charset=utf-8"
		switch format {
		case "yaml":
			body, err = sim.MarshalLesson(exported)
			ctype = "application/yaml; charset=utf-8"
		case "mmd":
			body = []byte(sim.SequenceDiagram(l, frames, loc, s.translators.cat))
		case "svg":
			body, err = view.TimelineSVG(s.tr(loc), l, frames, s.cfg.Backend.Info())
			ctype = "image/svg+xml"
		}
		if err != nil {
			http.Error(w, "web: export: "+err.Error(), http.StatusInternalServerError)
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

// serveCompare runs a timeline under two variants and shows them side by
// side.
func (s *Server) serveCompare(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	x := t.Explore()
	q := r.URL.Query()
	p := templates.ComparePage{
		Site: s.site(loc, navExplore, func(l sim.Locale) string {
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
		p.Langs = langOptions(s.tr(loc), func(l sim.Locale) string { return "/explore/compare?lang=" + string(l) })
		writePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	}
	if code := q.Get("t"); code != "" {
		p.QueryName, p.QueryValue = "t", code
		p.BackURL = exploreURL(code, 0, loc, false)
	} else {
		p.QueryName, p.QueryValue = "lesson", l.ID
		p.BackURL = lessonURL(l.ID, 0, loc, false)
	}
	p.A, p.B = compareDefaults(l.Variant, p.A, p.B)
	var defs []*sim.VariantDef
	if def, err := s.lockForCompare(r); err != nil {
		p.Error = t.Err(err)
		writePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	} else if def != nil {
		// The learner's own lock (k=, from its course table) is one more
		// variant to pick.
		defs, p.LockCode = append(defs, def), q.Get("k")
		p.Variants = append(slices.Clone(p.Variants), def.Name)
	}
	if customScripts(l) && !slices.Contains(p.Variants, l.Variant) {
		p.Variants = append(slices.Clone(p.Variants), l.Variant)
	}
	p.Title = l.Title.In(loc)
	ctx, cancel := context.WithTimeout(r.Context(), 2*runTimeout)
	defer cancel()
	c, err := explore.Compare(ctx, l, p.A, p.B, s.lockOpener(l, defs), defs...)
	if err != nil {
		p.Error = t.Err(err)
		if _, reason, ok := stepRefusal(t, err); ok {
			p.Error = t.T("TimelineRefused", "Reason", reason)
		}
		writePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	own, err := s.ownFrames(ctx, l, c)
	if err != nil {
		p.Error = t.Err(err)
		writePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	for i, side := range []*explore.Side{&c.A, &c.B} {
		u := lessonURL(l.ID, c.FirstDiff, loc, false)
		if side.Variant != l.Variant || tl.Kind != explore.KindLesson {
			// A course lesson's own column is the lesson; any other is a
			// timeline of its own.
			code, err := s.encodeTimeline(s.compareSide(tl, l, side, own))
			if err != nil {
				continue
			}
			u = exploreURL(code, c.FirstDiff, loc, false)
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
	writePage(w, r, http.StatusOK, templates.Compare(p))
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
func (s *Server) ownFrames(ctx context.Context, l *sim.Lesson, c *explore.Comparison) ([]sim.Frame, error) {
	for _, side := range []explore.Side{c.A, c.B} {
		if side.Variant == l.Variant {
			return side.Frames, nil
		}
	}
	return sim.RunFrames(ctx, l, s.openerFor(l))
}

// compareSide is the timeline a column of Compare opens: tl's own when
// the side runs the lesson's variant, else the lesson under the side's
// variant, retold where its outcomes leave the lesson's (explore.Under).
func (s *Server) compareSide(tl explore.Timeline, l *sim.Lesson, side *explore.Side, own []sim.Frame) explore.Timeline {
	if side.Variant == l.Variant {
		return explore.Timeline{Kind: tl.Kind, Lesson: side.Lesson, Origin: tl.Origin}
	}
	under, _ := explore.Under(s.translators.cat, l, side.Lesson, side.Frames, own)
	id := l.ID
	if !sim.ValidLessonID(id) {
		id = explore.SandboxID
	}
	return explore.Timeline{Kind: explore.KindUnder, Lesson: under, Origin: explore.Origin{Under: id}}
}
