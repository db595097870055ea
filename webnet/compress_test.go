package webnet

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCompressWritesByPeer: plain messages to a loopback peer not behind a
// proxy, compressed ones to anyone else.

func TestCompressWritesByPeer(t *testing.T) {
	for _, c := range []struct {
		addr, header string
		want         bool
	}{
		{"127.0.0.1:51234", "", false},
		{"127.8.9.10:80", "", false},
		{"[::1]:8080", "", false},
		{"[::ffff:127.0.0.1]:8080", "", false},
		{"127.0.0.1:51234", "X-Forwarded-For", true}, // a reverse proxy on the machine
		{"[::1]:8080", "Forwarded", true},
		{"192.168.1.20:51234", "", true},
		{"[2001:db8::1]:443", "", true},
		{"203.0.113.5:1", "", true},
		{"not an address", "", true},
		{"", "", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/ws", nil)
		r.RemoteAddr = c.addr
		if c.header != "" {
			r.Header.Set(c.header, "for=198.51.100.7")
		}
		if got := CompressWrites(r); got != c.want {
			t.Errorf("CompressWrites(peer %q, header %q) = %v, want %v", c.addr, c.header, got, c.want)
		}
	}
}
