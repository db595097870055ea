package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"lockstep/sim"
	"lockstep/templates"
)

// navJoin is the site navigation's entry of the join page.
const navJoin = "join"

// serveJoin answers /join: with a code (?code=k7p3qx, spaces and case as
// a phone types them) it sends the student to /class/CODE, whose page
// says when no class has that code; without one it shows the form that
// asks for it (issue 38: a way in for a phone that cannot scan the QR).
func (s *Server) serveJoin(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	raw := r.URL.Query().Get("code")
	code := strings.Map(func(c rune) rune {
		if c > unicode.MaxASCII || !(unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return -1
		}
		return unicode.ToUpper(c)
	}, raw)
	if code != "" && len(code) <= 12 {
		http.Redirect(w, r, "/class/"+url.PathEscape(code)+"?lang="+string(loc), http.StatusSeeOther)
		return
	}
	t := s.tr(loc)
	site := s.site(loc, navJoin, func(l sim.Locale) string { return "/join?lang=" + string(l) })
	writePage(w, r, http.StatusOK, templates.Join(templates.JoinPage{Site: site, T: t.cl, Code: raw}))
}
