package web

import (
	"net/http"
	"strconv"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Interview mode's pages (issue #6):
//
//	GET /interview        seed 001's three follow-up questions: write an answer, then open ours beside a timeline
//	GET /interview/60s    the one-line and 60-second answers, a timer, the state diagram, the two self-test timelines
//	GET /drills           the drill levels; ?level=L[&seed=N] opens a drill in the player (303)
//
// The model answers are Lockstep's own, in the message files (Q1..Q3,
// A1..A3, OneLineAnswer, SpokenAnswer); paragraphs are separated by blank
// lines.

// interview returns interview mode's strings in t's language: every field
// of templates.Interview from the message of the same id.
func (t *translator) Interview() templates.Interview { return t.in }

// Pages of the site navigation, in order.
const (
	navCourse    = "course"
	navDrills    = "drills"
	navInterview = "interview"
	navSixty     = "sixty"
	navExplore   = "explore"
	navSearch    = "search"
)

// siteNav is the navigation of the course and interview pages, in t's
// language, with current marked.
func siteNav(t *translator, current string) []templates.NavLink {
	in := t.Interview()
	q := "?lang=" + string(t.locale)
	links := []struct{ id, label, short, url string }{
		{navCourse, in.NavCourse, "", "/" + q},
		{navDrills, in.NavDrills, "", "/drills" + q},
		{navInterview, in.NavInterview, in.NavInterviewShort, "/interview" + q},
		{navSixty, in.NavSixty, in.NavSixtyShort, "/interview/60s" + q},
		{navExplore, t.Explore().NavExplore, "", "/explore" + q},
		{navSearch, t.Search().NavSearch, "", "/search" + q},
		{navJoin, t.cl.JoinNav, t.cl.JoinNavShort, "/join" + q},
	}
	out := make([]templates.NavLink, len(links))
	for i, l := range links {
		out[i] = templates.NavLink{Label: l.label, URL: l.url, Current: l.id == current}
		if l.short != l.label {
			out[i].Short = l.short
		}
	}
	return out
}

// interviewQuestions are seed 001's follow-up questions and the lessons
// that demonstrate our answers.
var interviewQuestions = []struct{ q, a, lesson string }{
	{"Q1", "A1", "setnx-del"},
	{"Q2", "A2", "instance-owner"},
	{"Q3", "A3", "stale-owner"},
}

// selfTests are the card's two self-test timelines and their lessons.
var selfTests = []struct{ label, lesson string }{
	{"SelfTestReentry", "missed-release"},
	{"SelfTestStale", "stale-owner"},
}

func (s *Server) serveInterview(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	p := templates.InterviewPage{
		Site: s.site(loc, navInterview, func(l sim.Locale) string { return "/interview?lang=" + string(l) }),
	}
	for i, q := range interviewQuestions {
		iq := templates.InterviewQuestion{
			N: i + 1, ID: "q" + strconv.Itoa(i+1), Label: t.T("QuestionN", "N", i+1),
			Question: t.T(q.q), Model: view.Paragraphs(t.T(q.a)),
		}
		if l := s.byID[q.lesson]; l != nil {
			frames, err := s.lessonFrames(r.Context(), l)
			if err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			v := view.New(view.Input{Texts: t, Lesson: l, Frames: frames, Cur: len(frames) - 1, Info: s.cfg.Backend.Info()})
			iq.LessonTitle = l.Title.In(loc)
			iq.LessonURL = lessonURL(l.ID, 0, loc, false)
			iq.Timeline = v.Timeline()
		}
		p.Questions = append(p.Questions, iq)
	}
	writePage(w, r, http.StatusOK, templates.InterviewQuestions(p))
}

func (s *Server) serveSixty(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	p := templates.SixtyPage{
		Site:    s.site(loc, navSixty, func(l sim.Locale) string { return "/interview/60s?lang=" + string(l) }),
		OneLine: t.T("OneLineAnswer"),
		Spoken:  view.Paragraphs(t.T("SpokenAnswer")),
	}
	// The diagram shows the first self-test lesson at its first step that
	// holds the lock more than once, with the transition it took.
	v := view.New(view.Input{Texts: t, Lesson: &sim.Lesson{Lock: "lock"}, Frames: []sim.Frame{{}}})
	if l := s.byID[selfTests[0].lesson]; l != nil {
		frames, err := s.lessonFrames(r.Context(), l)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		cur := 0
		for i, f := range frames {
			if len(f.Locks) > 0 && f.Locks[0].State == sim.HeldMany {
				cur = i
				break
			}
		}
		v = view.New(view.Input{Texts: t, Lesson: l, Frames: frames, Cur: cur, Info: s.cfg.Backend.Info()})
	}
	p.Diagram = v.Diagram()
	// This page has no steps: say what the highlighted state stands for.
	p.Diagram.StateLabel = t.T("SixtyDiagramCaption")
	for _, st := range selfTests {
		l := s.byID[st.lesson]
		if l == nil {
			continue
		}
		p.SelfTests = append(p.SelfTests, templates.SelfTest{Label: t.T(st.label), LessonTitle: l.Title.In(loc), URL: lessonURL(l.ID, 0, loc, false)})
	}
	writePage(w, r, http.StatusOK, templates.Sixty(p))
}
