package web

import (
	"net"
	"net/netip"
)

// compressWrites reports whether the server compresses the messages it
// sends to a websocket peer at remoteAddr (http.Request.RemoteAddr,
// "host:port"), when the peer negotiated permessage-deflate (browsers
// always offer it).
//
// A frame message is kilobytes of HTML (a step's about 16 KiB, a load's
// about 30 KiB) that deflate to about a fifth, which counts on a classroom's
// network. Over loopback, where `go run .` serves by default, bytes cost
// nothing and the deflate is pure delay: deflating a step's message takes
// about 40 µs on the bench machine, and a step's round trip in
// BenchmarkStepRoundTripEmbedded with a client that inflates in Go went
// from about 540 µs to 800 µs at p50 when the server compressed. So a
// loopback peer gets plain messages. A reverse proxy on the same
// machine is a loopback peer too: its clients then get plain messages,
// unless the proxy compresses them itself.
func compressWrites(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return true // not an IP address: not known to be loopback
	}
	return !addr.Unmap().IsLoopback()
}
