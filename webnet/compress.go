package webnet

import (
	"net"
	"net/http"
	"net/netip"
)

// CompressWrites reports whether the server compresses the messages it
// sends to the websocket peer of request r, when the peer negotiated
// permessage-deflate (browsers always offer it).
//
// A frame message is kilobytes of HTML (a step's about 16 KiB, a load's
// about 30 KiB) that deflate to about a fifth, which counts on a classroom's
// network. Over loopback, where `go run .` serves by default, bytes cost
// nothing and the deflate is pure delay (about 40 µs for a step's message
// on the bench machine, and the client's inflate on top; docs/performance.md
// 1.). So a peer on loopback gets plain messages, unless the request was
// forwarded (X-Forwarded-For or Forwarded, as reverse proxies such as nginx
// and Caddy can set): a proxy on the same machine passes websocket frames
// through as they are, and its clients are elsewhere.
func CompressWrites(r *http.Request) bool {
	if r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return true // not an IP address: not known to be loopback
	}
	return !addr.Unmap().IsLoopback()
}
