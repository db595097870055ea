package web

import (
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// courseMap is the course page's closing section (view.CourseMap) in t's
// language for the lessons served, by number and title.
func (s *Server) courseMap(t *translator, loc sim.Locale) templates.CourseMap {
	served := map[string]templates.CourseMapLesson{}
	for i, l := range s.lessons {
		served[l.ID] = templates.CourseMapLesson{Label: lessonLabel(l, i), Title: l.Title.In(loc), URL: lessonURL(l.ID, 0, loc, false)}
	}
	return view.CourseMap(t, served)
}
