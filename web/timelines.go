package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// What the player needs of explore timelines (package explore): share
// codes, links, titles and headers. The explore pages themselves (the
// sandbox form, import, export, Compare) are package explorepage's.

// Explore returns explore mode's strings in t's language: every field of
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
		h.Source = view.LessonSource(t, base)
	}
	return h
}

// serveTimeline is the player of explore timeline tl, shared as code:
// /explore?t=CODE (explorepage.Pages.ServeExplore).
func (s *Server) serveTimeline(w http.ResponseWriter, r *http.Request, tl explore.Timeline, code string) {
	loc := s.negotiate(r)
	l := tl.Lesson
	t := s.tr(loc)
	q := r.URL.Query()
	step, presenter, notices := playerParams(t, q, len(l.Steps))
	r = r.WithContext(templates.WithNotices(r.Context(), notices...))
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
