package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// hostRule decides which Host headers the server answers, against DNS
// rebinding (hardening finding 8): a page of evil.example whose name is
// made to resolve to 127.0.0.1 reaches a loopback server with
// "Host: evil.example" and a matching Origin, which the websocket's origin
// check lets through. Such a request carries a name the server was never
// given, so it is refused.
//
// On a loopback address (Config.Addr "", 127.0.0.0/8, ::1, localhost)
// the server answers localhost, any 127.0.0.0/8 address and [::1], with
// any port, plus Config.AllowedHosts. On any other address (serving a LAN;
// also ":8080" and "0.0.0.0:8080", every interface)
// it answers those, the host of Config.Addr when it is a name, and any IP
// address literal (a browser that asks for an IP address was not led there
// by a name), plus Config.AllowedHosts.
type hostRule struct {
	loopbackOnly bool
	allowed      map[string]bool // lower case, without port
}

func newHostRule(addr string, allowed []string) hostRule {
	r := hostRule{loopbackOnly: true, allowed: map[string]bool{}}
	for _, h := range allowed {
		if h = normalHost(h); h != "" {
			r.allowed[h] = true
		}
	}
	if addr == "" {
		return r
	}
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h // "" for ":8080", every interface
	}
	host = normalHost(host)
	if isLoopbackHost(host) {
		return r
	}
	r.loopbackOnly = false
	if _, err := netip.ParseAddr(host); err != nil && host != "" {
		r.allowed[host] = true
	}
	return r
}

// normalHost is a Host header's or a flag's host name in lower case,
// without port, brackets or a final dot.
func normalHost(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// allows reports whether the server answers a request with Host header
// host.
func (r hostRule) allows(host string) bool {
	h := normalHost(host)
	if h == "" {
		return false
	}
	if isLoopbackHost(h) || r.allowed[h] {
		return true
	}
	if r.loopbackOnly {
		return false
	}
	_, err := netip.ParseAddr(h)
	return err == nil
}

// refuseHost answers a request for a host name the server does not serve:
// 421 Misdirected Request and a page in the request's language that names
// the host and the flag that admits it.
func (s *Server) refuseHost(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	ui := t.UI()
	host := normalHost(r.Host)
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
