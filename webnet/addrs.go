package webnet

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr is the address request r is counted under (sessions, class
// starts, failed joins, lock tables, searches): the peer's IP, or, for a
// peer in trusted (the reverse proxies the operator named with
// -trusted-proxies, web.Config.TrustedProxies), the client the
// proxy names: the last address of X-Forwarded-For (the one the proxy
// added), else the last for= of Forwarded. No peer is trusted by default,
// so neither a browser elsewhere nor a process on the server's own
// machine can choose its address by setting the header (issue 37, item
// 7). The address is AddrKey's: an IPv6 address counts as its /64, and
// every loopback address as one.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !trustedPeer(peer, trusted) {
		return AddrKey(peer)
	}
	if a, ok := lastForwarded(r.Header.Values("X-Forwarded-For"), ""); ok {
		return a
	}
	if a, ok := lastForwarded(r.Header.Values("Forwarded"), "for="); ok {
		return a
	}
	return AddrKey(peer)
}

func trustedPeer(peer netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// AddrKey is the key of address a in the per-address bounds: an IPv4
// address as itself, an IPv6 address as its /64 ("2001:db8:1:2::/64"),
// and every loopback address (all of 127.0.0.0/8, ::1, and those mapped
// into IPv6) as the one key "loopback": they are all the server's own
// machine, and a local process could otherwise take a share per address
// it dials from.
func AddrKey(a netip.Addr) string {
	a = a.Unmap()
	if a.IsLoopback() {
		return loopbackKey
	}
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// loopbackKey is AddrKey's key of every loopback address.
const loopbackKey = "loopback"

// ParseTrustedProxies reads -trusted-proxies: comma-separated CIDR
// prefixes or single addresses ("127.0.0.1/32, 10.0.0.0/8, ::1"). An
// empty list trusts no proxy. It returns an error naming the first entry
// that is neither.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("webnet: trusted proxy %q: want an address or a CIDR prefix (10.0.0.0/8)", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// ListenPort is the TCP port the server accepted r's connection on (the
// listener's own address, http.LocalAddrContextKey: behind a proxy or a
// Host header that names another port, still the one listened on), 0 when
// r carries none.
func ListenPort(r *http.Request) int {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// LocalPeer reports whether r comes from loopback and names no client of
// a proxy: someone on the server's own machine.
func LocalPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback() &&
		r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}
