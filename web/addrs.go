package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"lockstep/backend"
)

// clientAddr is the address a request is counted under (sessions, class
// starts, failed joins, lock tables, searches): the peer's IP, or, for a
// peer in Config.TrustedProxies (a reverse proxy the operator named with
// -trusted-proxies), the client the proxy names: the last address of
// X-Forwarded-For (the one the proxy added), else the last for= of
// Forwarded. No peer is trusted by default, so neither a browser elsewhere
// nor a process on the server's own machine can choose its address by
// setting the header (issue 37, item 7). An IPv6 address counts as its /64
// (addrKey): one host is routinely given a whole /64, so per address
// bounds would otherwise be endless.
func (s *Server) clientAddr(r *http.Request) string {
	return clientAddrTrusting(r, s.cfg.TrustedProxies)
}

// clientAddrTrusting is clientAddr with trusted as the proxies whose
// forwarded headers count.
func clientAddrTrusting(r *http.Request, trusted []netip.Prefix) string {
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
		return addrKey(peer)
	}
	if a, ok := lastForwarded(r.Header.Values("X-Forwarded-For"), ""); ok {
		return a
	}
	if a, ok := lastForwarded(r.Header.Values("Forwarded"), "for="); ok {
		return a
	}
	return addrKey(peer)
}

func trustedPeer(peer netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// addrKey is the key of address a in the per-address bounds: an IPv4
// address as itself, an IPv6 address as its /64 ("2001:db8:1:2::/64").
func addrKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() || a.IsLoopback() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

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
			return nil, fmt.Errorf("web: trusted proxy %q: want an address or a CIDR prefix (10.0.0.0/8)", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// localPeer reports whether r comes from loopback and names no client of
// a proxy: someone on the server's own machine.
func localPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback() &&
		r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}

// visibleInfo is what a hello or a step's error tells a peer of the
// server's Redis, and its text: everything to a local peer, to anyone
// else no address or version (issue 37, item 8: every visitor was shown
// the internal Redis's address and version).
func visibleInfo(info backend.Info, local bool) (backend.Info, string) {
	if local || info.Embedded {
		return info, info.String()
	}
	info.Addr, info.Version, info.ReplicaAddr, info.NotOn = "", "", "", ""
	return info, "a real Redis (the server's -redis)"
}
