package web

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Defaults of the class fields of Config.
const (
	// DefaultClassIdle: a lecture's pause, or a long exercise, is shorter.
	DefaultClassIdle = 45 * time.Minute
	// DefaultClassJoinRate and DefaultClassJoinBurst bound the joins of
	// unknown class codes from one address: one per 2 s, 10 at once.
	DefaultClassJoinRate  = 0.5
	DefaultClassJoinBurst = 10
)

// serveClass serves /class/CODE, the student's page: the player of the
// class's current step, in the page's language, which follows the
// presenter over the websocket (class-join). A wrong code answers 404 and
// an ended class 410, each a page in the user's language.
func (s *Server) serveClass(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	raw := r.PathValue("code")
	addr := s.clientAddr(r)
	if !s.classes.JoinAllowed(addr) {
		s.classGone(w, r, t, raw, http.StatusTooManyRequests, t.cl.ClassUnknownTitle, t.T("ws.class-joins"))
		return
	}
	code, err := classroom.ParseCode(raw)
	var st classroom.State
	if err == nil {
		st, err = s.classes.State(r.Context(), code)
	}
	switch {
	case errors.Is(err, classroom.ErrBadCode) || errors.Is(err, classbus.ErrNoClass):
		s.classes.JoinFailed(addr)
		s.classGone(w, r, t, raw, http.StatusNotFound, t.cl.ClassUnknownTitle, t.cl.ClassUnknownBody)
		return
	case err != nil:
		s.logf("web: class page: %v", err)
		// The cause is the operator's to read (the log), not the visitor's.
		s.classGone(w, r, t, code, http.StatusServiceUnavailable, t.T("ClassUnavailableTitle"), t.T("ws.class-unavailable"))
		return
	case st.Ended:
		s.classGone(w, r, t, code, http.StatusGone, t.cl.ClassEndedTitle, t.cl.ClassEndedBody)
		return
	}
	var tl = s.lesson(r.Context(), st.Lesson)
	if st.Timeline != "" {
		tl, err = s.decodeTimeline(st.Timeline)
	}
	if err != nil || tl.Lesson == nil {
		s.classGone(w, r, t, code, http.StatusNotFound, t.cl.ClassUnknownTitle, t.cl.ClassUnknownBody)
		return
	}
	l := tl.Lesson
	step := min(st.Step, len(l.Steps))
	h := s.header(t, tl, st.Timeline, step, false)
	h.ClassStart, h.Class = false, &templates.ClassBar{Code: code, Peers: s.peers}
	h.Langs = langOptions(t, func(l sim.Locale) string { return classURL(code, l) })
	p := templates.PlayerPage{
		UI: t.UI(), Lang: string(loc), Assets: assets(), LessonID: l.ID, Timeline: st.Timeline, Step: step, Total: len(l.Steps),
		Title:    l.Title.In(loc) + " · " + t.UI().AppName,
		Header:   h,
		Controls: s.playerControls(t, l, step, DefaultSpeed),
		Steps:    view.PredictSteps(l),
		Panels:   s.prerender(r.Context(), t, tl, step),
	}
	writePage(w, r, http.StatusOK, templates.Player(p))
}

// classURL is the student page of class code in locale l.
func classURL(code string, l sim.Locale) string {
	return "/class/" + url.PathEscape(code) + "?lang=" + string(l)
}

// classGone answers a class page that cannot be shown: status, and a page
// in t's language that says title and body, naming what was asked, with a
// link back to /join to type another code (review of issue 38, item 7).
func (s *Server) classGone(w http.ResponseWriter, r *http.Request, t *translator, code string, status int, title, body string) {
	ui := t.UI()
	ui.NotFoundTitle, ui.NotFoundBody = title, body
	loc := t.locale
	writePage(w, r, status, templates.NotFound(templates.NotFoundPage{
		UI: ui, Lang: string(loc), Assets: assets(), ID: view.Clip(code, maxEcho), CourseURL: "/?lang=" + string(loc),
		Langs:    langOptions(t, func(l sim.Locale) string { return "?lang=" + string(l) }),
		AgainURL: "/join?lang=" + string(loc), AgainLabel: t.cl.ClassJoinAgain,
	}))
}
