package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"lockstep/classroom"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// navJoin is the site navigation's entry of the join page.
const navJoin = "join"

// serveJoin answers /join: with a code (?code=k7p3qx, spaces and case as
// a phone types them) it sends the student to /class/CODE, whose page
// says when no class has that code; without one it shows the form that
// asks for it (issue 38: a way in for a phone that cannot scan the QR). A
// code that cannot be a class code (classroom.ParseCode), or an empty one,
// keeps the student on the form with what was typed and a notice that
// says what a code looks like.
func (s *Server) serveJoin(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	raw := r.URL.Query().Get("code")
	code := strings.Map(func(c rune) rune {
		if c > unicode.MaxASCII || !(unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return -1
		}
		return unicode.ToUpper(c)
	}, raw)
	t := s.tr(loc)
	status := http.StatusOK
	switch parsed, err := classroom.ParseCode(code); {
	case err == nil:
		http.Redirect(w, r, "/class/"+url.PathEscape(parsed)+"?lang="+string(loc), http.StatusSeeOther)
		return
	case strings.TrimSpace(raw) != "":
		status = http.StatusBadRequest
		r = r.WithContext(templates.WithNotices(r.Context(), templates.Notice{Param: "code",
			Text: t.T("NoticeJoinCode", "Value", view.Clip(raw, maxEcho), "Len", classroom.CodeLen)}))
	case r.URL.Query().Has("code"):
		// The form sent with nothing typed (a browser that ignores
		// required), or a link cut before its code.
		status = http.StatusBadRequest
		r = r.WithContext(templates.WithNotices(r.Context(), templates.Notice{Param: "code", Text: t.T("NoticeJoinEmpty", "Len", classroom.CodeLen)}))
	}
	site := s.site(loc, navJoin, func(l sim.Locale) string { return "/join?lang=" + string(l) })
	writePage(w, r, status, templates.Join(templates.JoinPage{Site: site, T: t.cl, Code: raw}))
}
