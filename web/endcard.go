package web

import (
	"lockstep/sim"
	"lockstep/templates"
)

// endCard is what the end card of course lesson l says in t's language at
// its last step (issue 38, item 5): the lesson after it in the course
// (Config.Lessons' order; none after the last lesson) and the address
// that replays l from its start in predict mode.
func (s *Server) endCard(t *translator, l *sim.Lesson) *templates.EndCard {
	i, ok := s.index[l.ID]
	if !ok {
		return nil
	}
	e := &templates.EndCard{
		ReplayURL: lessonURL(l.ID, 0, t.locale, false) + "&predict=1",
		CourseURL: "/?lang=" + string(t.locale),
	}
	if i+1 < len(s.cfg.Lessons) {
		n := s.cfg.Lessons[i+1]
		e.NextURL = lessonURL(n.ID, 0, t.locale, false)
		e.NextLabel = lessonLabel(n, i+1)
		e.NextTitle = n.Title.In(t.locale)
	}
	return e
}
