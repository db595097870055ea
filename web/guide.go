package web

import (
	"net/http"

	"lockstep/docs"
	"lockstep/sim"
	"lockstep/templates"
)

// serveGuide writes guide g (docs.Handler: rendered once at start) as the
// site's page, its header in the request's language, under "explore" (the
// variant format is the "Your lock" page's).
func (s *Server) serveGuide(w http.ResponseWriter, r *http.Request, g docs.Guide) {
	loc := s.negotiate(r)
	site := s.site(loc, navExplore, func(l sim.Locale) string { return "/docs/" + g.Name + "?lang=" + string(l) })
	writePage(w, r, http.StatusOK, templates.Guide(templates.GuidePage{Site: site, Title: g.Title, HTML: g.HTML}))
}
