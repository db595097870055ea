package web

import (
	"net"
	"net/http"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/webnet"
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

// refuseHost answers a request for a host name the server does not serve:
// 421 Misdirected Request and a page in the request's language that names
// the host and the flag that admits it.
func (s *Server) refuseHost(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	ui := t.UI()
	host := webnet.NormalHost(r.Host)
	ui.NotFoundTitle = t.T("HostRefusedTitle")
	ui.NotFoundBody = t.T("HostRefusedBody", "Host", host)
	back := "http://127.0.0.1/"
	if _, port, err := net.SplitHostPort(r.Host); err == nil {
		back = "http://" + net.JoinHostPort("127.0.0.1", port) + "/"
	}
	writePage(w, r, http.StatusMisdirectedRequest, templates.NotFound(templates.NotFoundPage{
		UI: ui, Lang: string(loc), Assets: assets(), ID: r.Host, CourseURL: back,
		Langs: langOptions(t, func(l sim.Locale) string { return "?lang=" + string(l) }),
	}))
}
