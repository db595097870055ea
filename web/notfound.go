package web

import (
	"net/http"

	"lockstep/sim"
	"lockstep/templates"
)

// serveNotFound answers every address the server has no page for: 404 and
// the not-found page in the request's language, naming the path, with the
// way back to the course (rather than net/http's plain-text 404).
func (s *Server) serveNotFound(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	ui := t.UI()
	ui.NotFoundTitle = t.T("PageNotFoundTitle")
	ui.NotFoundBody = t.T("PageNotFoundBody")
	writePage(w, r, http.StatusNotFound, templates.NotFound(templates.NotFoundPage{
		UI: ui, Lang: string(loc), Assets: assets(), ID: r.URL.Path, CourseURL: "/?lang=" + string(loc),
		Langs: langOptions(t, func(l sim.Locale) string { return "?lang=" + string(l) }),
	}))
}
