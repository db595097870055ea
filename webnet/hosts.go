package webnet

import (
	"net"
	"net/netip"
	"strings"
)

// HostRule decides which Host headers the server answers, against DNS
// rebinding (hardening finding 8): a page of evil.example whose name is
// made to resolve to 127.0.0.1 reaches a loopback server with
// "Host: evil.example" and a matching Origin, which the websocket's origin
// check lets through. Such a request carries a name the server was never
// given, so it is refused.
//
// On a loopback address (web.Config.Addr "", 127.0.0.0/8, ::1, localhost)
// the server answers localhost, any 127.0.0.0/8 address and [::1], with
// any port, plus web.Config.AllowedHosts. On any other address (serving a LAN;
// also ":8080" and "0.0.0.0:8080", every interface)
// it answers those, the host of web.Config.Addr when it is a name, and any IP
// address literal (a browser that asks for an IP address was not led there
// by a name), plus web.Config.AllowedHosts.
type HostRule struct {
	loopbackOnly bool
	allowed      map[string]bool // lower case, without port
}

// NewHostRule is the rule of a server listening on addr ("host:port", as
// -addr, web.Config.Addr) that also answers the host names
// allowed (without port: web.Config.AllowedHosts, -allowed-hosts).
func NewHostRule(addr string, allowed []string) HostRule {
	r := HostRule{loopbackOnly: true, allowed: map[string]bool{}}
	for _, h := range allowed {
		if h = NormalHost(h); h != "" {
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
	host = NormalHost(host)
	if isLoopbackHost(host) {
		return r
	}
	r.loopbackOnly = false
	if _, err := netip.ParseAddr(host); err != nil && host != "" {
		r.allowed[host] = true
	}
	return r
}

// NormalHost is a Host header's or a flag's host name in lower case,
// without port, brackets or a final dot.
func NormalHost(h string) string {
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

// Allows reports whether the server answers a request with Host header
// host.
func (r HostRule) Allows(host string) bool {
	h := NormalHost(host)
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
