package web

import (
	"net/http"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// LiveSite is the site's part of the live page (package live, -proxy) for
// request r: the header as every page has it (navigation with the live
// page current, backend badge, the language picker linking /live in each
// language) and the player's texts, with which the page draws the state
// diagram as the player does, in r's language (negotiated as for every
// page).
func (s *Server) LiveSite(r *http.Request) (templates.Site, view.Texts) {
	loc := s.negotiate(r)
	site := s.site(loc, "", func(l sim.Locale) string { return "/live?lang=" + string(l) })
	for i := range site.Nav {
		site.Nav[i].Current = strings.HasPrefix(site.Nav[i].URL, "/live?")
	}
	return site, s.tr(loc)
}
