package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
)

// Explore mode (package explore) in the web player: the fork menu panel,
// the explore page (sandbox and import), exports and the compare page.

// MaxImportBytes bounds an imported lesson file (upload or paste).
const MaxImportBytes = 256 << 10

// explore returns explore mode's strings in t's language: every field of
// templates.Explore from the message of the same id.
func (t *translator) explore() templates.Explore { return t.x }

// originLesson is the course lesson or drill a fork comes from, nil when o
// names none (or one this server does not have).
func (s *Server) originLesson(o explore.Origin) *sim.Lesson {
	if o.Lesson == "" {
		return nil
	}
	return s.lesson(s.ctx, o.Lesson)
}

// lessonRules are the loader's options: text fields in the catalogue's
// locales.
func (s *Server) lessonRules() sim.Options { return sim.Options{Locales: s.translators.cat.Locales()} }

// encodeTimeline is the share code of timeline l: what its origin lesson
// already holds is left out (explore.Strip).
func (s *Server) encodeTimeline(l *sim.Lesson, o explore.Origin) (string, error) {
	return explore.Encode(explore.Strip(l, o, s.originLesson(o)), o, s.lessonRules())
}

// decodeTimeline opens a share code, with the origin lesson's texts put back.
func (s *Server) decodeTimeline(code string) (*sim.Lesson, explore.Origin, error) {
	l, o, err := explore.Decode(code, s.lessonRules())
	if err != nil {
		return nil, o, err
	}
	return explore.Restore(l, o, s.originLesson(o)), o, nil
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

// timelineView is what the explore panel needs beyond the run.
type timelineView struct {
	on          bool   // an explore timeline, not a course lesson or drill
	code        string // its share code
	originURL   string
	originTitle string
	undoFloor   int // see undoFloor
}

// undoFloor is how many of a timeline's first steps undo cannot take back:
// a fork's kept steps of its lesson (o.At; they were never added, and the
// lesson itself is where they come from), whether this server has that
// lesson or not; 0 for a sandbox or an imported file.
func undoFloor(o explore.Origin) int {
	if o.Lesson == "" {
		return 0
	}
	return o.At
}

func (s *Server) timelineView(t *translator, o explore.Origin, on bool, code string) timelineView {
	tv := timelineView{on: on, code: code, undoFloor: undoFloor(o)}
	if base := s.originLesson(o); on && base != nil {
		tv.originURL = lessonURL(base.ID, o.At, t.locale, false)
		tv.originTitle = base.Title.In(t.locale)
	}
	return tv
}

// explorePanel is the fork menu at the current step.
func (v *view) explorePanel() templates.ExplorePanelView {
	t := v.t
	x := t.explore()
	f := v.frame()
	p := v.exploreTools()
	p.Step = v.cur
	p.Help = t.T("ForkHelp", "Step", v.cur)
	p.OriginURL, p.OriginTitle = v.tl.originURL, v.tl.originTitle
	if dropped := v.total() - v.cur; dropped > 0 {
		p.Drops = t.T("ForkDrops", "N", dropped)
	}
	byActor := map[string]int{}
	for _, c := range explore.Choices(v.lesson, f) {
		b := v.choiceButton(c)
		if c.Actor == "" {
			p.Clock = append(p.Clock, b)
			continue
		}
		i, ok := byActor[c.Actor]
		if !ok {
			i = len(p.Groups)
			byActor[c.Actor] = i
			g := templates.ChoiceGroup{Title: c.Actor}
			for _, a := range f.Actors {
				if a.ID == c.Actor {
					if name := a.Name.In(t.locale); name != "" && name != a.ID {
						g.Title = a.ID + " · " + name
					}
					if a.Status == sim.StatusPaused {
						g.Status = x.StatusPaused
					}
				}
			}
			p.Groups = append(p.Groups, g)
		}
		p.Groups[i].Choices = append(p.Groups[i].Choices, b)
	}
	return p
}

// exploreTools is the part of the explore panel's view that depends on the
// run only: undo, the share code, exports and the comparison.
func (v *view) exploreTools() templates.ExplorePanelView {
	t := v.t
	p := templates.ExplorePanelView{
		UI: t.UI(), X: t.explore(),
		Timeline: v.tl.on, CanUndo: v.tl.on && v.total() > v.tl.undoFloor, Empty: v.total() == 0,
		Lang: string(t.locale), Variant: v.lesson.Variant, Variants: sim.Variants(),
		Code: v.tl.code,
	}
	if !v.tl.on {
		p.Lesson = v.lesson.ID
	}
	return p
}

// choiceButton is the fork menu's button for a choice. A button depends on
// the step it adds and the language only, and a menu has a dozen of them at
// every step, so the translator keeps them.
func (v *view) choiceButton(c explore.Choice) templates.ChoiceButton {
	b, _ := remember(&v.t.buttons, c.Spec, func() (templates.ChoiceButton, error) { return v.t.choiceButton(c.Spec), nil })
	return b
}

func (t *translator) choiceButton(sp explore.StepSpec) templates.ChoiceButton {
	label := t.actionName(sp.Do)
	switch {
	case sp.Do == sim.ActRelease && sp.ReplyLost:
		label = t.T("ChoiceReplyLost")
	case sp.Do == sim.ActWrite:
		label = t.T("ChoiceWrite", "Value", sp.Value)
	case sp.Do == sim.ActFork && sp.Context == "inherit":
		label = t.T("ChoiceForkInherit", "Child", sp.Child)
	case sp.Do == sim.ActFork:
		label = t.T("ChoiceForkLost", "Child", sp.Child)
	case sp.Do == sim.ActAdvance:
		label = t.T("ChoiceAdvance", "By", t.seconds(sp.ByMS))
	case sp.Do == sim.ActClockJump:
		label = t.T("ChoiceClockJump", "By", t.seconds(sp.ByMS))
	}
	if sp.Lock != "" {
		label += " · " + sp.Lock
	}
	kind := string(sp.Do)
	title := t.Maybe("ChoiceHelp" + camel(string(sp.Do)))
	if sp.ReplyLost {
		kind += " reply-lost"
		title = t.T("ChoiceHelpReplyLost")
	}
	if sp.Unreplicated {
		label += " · " + t.T("ChoiceUnreplicated")
		kind += " unreplicated"
		title = t.T("ChoiceHelpUnreplicated")
	}
	spec, _ := json.Marshal(sp)
	return templates.ChoiceButton{Label: label, Title: title, Spec: string(spec), Kind: kind}
}

// timelineTitle is a timeline's title: a fork's says what it forks
// (explore.ForkTitle), the others' are their own.
func (s *Server) timelineTitle(l *sim.Lesson, o explore.Origin) sim.Text {
	if base := s.originLesson(o); base != nil {
		return s.translators.cat.Text(explore.ForkTitle(base, o.At))
	}
	return l.Title
}

// exploreHeader is the player's header for a timeline.
func (s *Server) exploreHeader(t *translator, l *sim.Lesson, o explore.Origin, code string, step int, presenter bool) templates.Header {
	vi, _ := sim.Variant(l.Variant)
	x := t.explore()
	h := templates.Header{
		UI: t.UI(), CourseURL: "/explore?lang=" + string(t.locale), HomeURL: "/?lang=" + string(t.locale),
		Title: l.Title.In(t.locale), Summary: strings.TrimSpace(l.Summary.In(t.locale)),
		Variant: l.Variant, LockType: t.lockType(vi.LockType), Fencing: l.Fencing, Source: t.sourceParts(l.Source),
		Langs:   langOptions(t, func(loc sim.Locale) string { return exploreURL(code, step, loc, presenter) }),
		Backend: s.lessonBadge(t, l), Crumb: x.SandboxCrumb,
	}
	if base := s.originLesson(o); base != nil {
		h.Crumb = x.ForkCrumb
		h.Title = s.timelineTitle(l, o).In(t.locale)
		h.Summary = t.Msg(explore.ForkSummary(base, o.At, len(l.Steps)))
		h.Source = t.sourceParts(base.Source)
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
	l, o, err := s.decodeTimeline(code)
	if err != nil {
		writePage(w, r, http.StatusBadRequest, templates.ExploreStart(s.explorePage(loc, err)))
		return
	}
	t := s.tr(loc)
	step := queryStep(q.Get("step"), len(l.Steps))
	presenter := q.Get("present") == "1"
	p := templates.PlayerPage{
		UI: t.UI(), Lang: string(loc), Assets: assets(), LessonID: l.ID, Timeline: code, Step: step, Total: len(l.Steps),
		Presenter: presenter,
		Title:     s.timelineTitle(l, o).In(loc) + " · " + t.UI().AppName,
		Header:    s.exploreHeader(t, l, o, code, step, presenter),
		Controls:  s.playerControls(t, l, step, DefaultSpeed),
		Steps:     predictSteps(l),
	}
	writePage(w, r, http.StatusOK, templates.Player(p))
}

// explorePage is the explore page in loc; badLink, when not nil, is why a
// share link could not be opened.
func (s *Server) explorePage(loc sim.Locale, badLink error) templates.ExplorePage {
	t := s.tr(loc)
	p := templates.ExplorePage{
		UI: t.UI(), X: t.explore(), Lang: string(loc), Assets: assets(), Backend: s.badge(t),
		Langs: langOptions(s.tr(loc), func(l sim.Locale) string { return "/explore?lang=" + string(l) }),
		I:     t.interview(), Nav: siteNav(t, navExplore),
		BadLinkReason: badLinkReason(t, badLink),

		Sandbox: templates.SandboxForm{LeaseMS: "30000", Actors: "2", Lock: "order:42"},
	}
	p.Variants = variantOptions(t, "token-count")
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
		src := t.Maybe("VariantNote" + camel(name))
		if src == "" {
			src = vi.Source
		}
		text, seeds := t.sourceText(src)
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
	code, err := s.encodeTimeline(l, explore.Origin{})
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
	r.Body = http.MaxBytesReader(w, r.Body, MaxImportBytes+64<<10)
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
	if err := r.ParseMultipartForm(MaxImportBytes); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		fail(http.StatusRequestEntityTooLarge, nil, "upload", userErr(sim.M("web.import.too-large", "KiB", MaxImportBytes>>10), "web: import: the upload is over %d KiB, so none of it was read (%v); a lesson file is a few KiB", MaxImportBytes>>10, err))
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
		fail(http.StatusRequestEntityTooLarge, nil, name, userErr(sim.M("web.import.too-large", "KiB", MaxImportBytes>>10), "web: import: %s is over %d KiB, so none of it was read; a lesson file is a few KiB", name, MaxImportBytes>>10))
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
	code, err := s.encodeTimeline(l, explore.Origin{})
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	http.Redirect(w, r, exploreURL(code, 0, loc, false), http.StatusSeeOther)
}

// requestTimeline is the timeline an export or compare request names: a
// share code (t) or a course lesson or drill (lesson). A fork is titled as
// one (explore.ForkTitle), not with its lesson's title.
func (s *Server) requestTimeline(r *http.Request) (*sim.Lesson, explore.Origin, error) {
	q := r.URL.Query()
	if code := q.Get("t"); code != "" {
		l, o, err := s.decodeTimeline(code)
		if err != nil {
			return nil, o, err
		}
		titled := *l
		titled.Title = s.timelineTitle(l, o)
		return &titled, o, nil
	}
	id := q.Get("lesson")
	if id == "" {
		return nil, explore.Origin{}, errors.New("web: name a timeline (t=) or a lesson (lesson=)")
	}
	l := s.lesson(r.Context(), id)
	if l == nil {
		return nil, explore.Origin{}, fmt.Errorf("web: no lesson %q in the course", id)
	}
	return l, explore.Origin{}, nil
}

// runFrames runs l to the end on a fresh store of the server's backend.
func (s *Server) runFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	st, err := s.cfg.Backend.NewStore()
	if err != nil {
		return nil, err
	}
	defer s.closeStore(ctx, st)
	r, err := sim.NewRunner(l, st)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 4*stepTimeout)
	defer cancel()
	return r.Run(ctx)
}

// serveExport sends a timeline as a lesson file, a Mermaid sequence
// diagram or an SVG of the lanes.
func (s *Server) serveExport(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loc := s.negotiate(r)
		l, o, err := s.requestTimeline(r)
		if err != nil {
			http.Error(w, s.tr(loc).Err(err), http.StatusBadRequest)
			return
		}
		if format == "yaml" && len(l.Steps) == 0 {
			// The lesson format wants a step at least (sim.Load refuses a
			// lesson without): an export that could not load back is refused.
			http.Error(w, s.tr(loc).Msg(sim.M("web.export.no-steps")), http.StatusUnprocessableEntity)
			return
		}
		frames, err := s.runFrames(r.Context(), l)
		if err != nil {
			http.Error(w, fmt.Sprintf("web: export: run %s: %v", l.ID, err), http.StatusBadGateway)
			return
		}
		name := l.ID
		exported := l
		if r.URL.Query().Get("t") != "" {
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
			body, err = timelineSVG(s.tr(loc), l, frames, s.cfg.Backend.Info())
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
	x := t.explore()
	q := r.URL.Query()
	p := templates.ComparePage{
		UI: t.UI(), X: x, Lang: string(loc), Assets: assets(), Backend: s.badge(t),
		Langs: langOptions(s.tr(loc), func(l sim.Locale) string {
			q2 := r.URL.Query()
			q2.Set("lang", string(l))
			return "/explore/compare?" + q2.Encode()
		}),
		I: t.interview(), Nav: siteNav(t, navExplore),
		Variants: sim.Variants(), A: q.Get("a"), B: q.Get("b"),
	}
	l, o, err := s.requestTimeline(r)
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
	if p.A == "" {
		p.A = l.Variant
	}
	if p.B == "" {
		p.B = "token-count"
		if p.A == p.B {
			p.B = "hash-refresh"
		}
	}
	p.Title = l.Title.In(loc)
	open := func() (sim.Store, func(context.Context) error, error) {
		st, err := s.cfg.Backend.NewStore()
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 8*stepTimeout)
	defer cancel()
	c, err := explore.Compare(ctx, l, p.A, p.B, open)
	if err != nil {
		p.Error = t.Err(err)
		writePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	for _, side := range []*explore.Side{&c.A, &c.B} {
		code, err := s.encodeTimeline(side.Lesson, o)
		if err == nil {
			u := exploreURL(code, c.FirstDiff, loc, false)
			if side == &c.A {
				p.AURL = u
			} else {
				p.BURL = u
			}
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
	for i, st := range l.Steps {
		n := i + 1
		hv := (&view{t: t, lesson: l}).stepLine(&st)
		p.Rows = append(p.Rows, templates.CompareRow{
			Step: n, Action: hv, A: cell(c.A.Frames, n), B: cell(c.B.Frames, n),
			Differs: c.Diffs[n], First: n == c.FirstDiff,
		})
	}
	writePage(w, r, http.StatusOK, templates.Compare(p))
}

func cell(frames []sim.Frame, n int) templates.CompareCell {
	if n >= len(frames) {
		return templates.CompareCell{}
	}
	f := frames[n]
	c := templates.CompareCell{Outcome: string(f.Outcome), Kind: outcomeKind(f.Outcome)}
	var replies, vios []string
	for _, call := range f.Calls {
		replies = append(replies, call.Script+" → "+call.Reply.String())
	}
	for _, v := range f.Violations {
		vios = append(vios, v.Name)
	}
	c.Replies = strings.Join(replies, "; ")
	c.Violations = strings.Join(vios, ", ")
	return c
}

// stepLine is a step in one line: "A · acquire", "advance 31 s".
func (v *view) stepLine(st *sim.Step) string {
	lease := st.Lease
	if lease == 0 {
		lease = v.lesson.Lease
	}
	h, d := v.headline(&sim.StepInfo{Actor: st.Actor, Do: st.Do, Lock: st.Lock, LeaseMS: lease.Milliseconds(), ByMS: st.By.Milliseconds(), Value: st.Value, Child: st.Child, Context: st.Context, ReplyLost: st.ReplyLost})
	if d != "" {
		return h + " · " + d
	}
	return h
}
