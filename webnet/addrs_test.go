package webnet

import (
	"net/http"
	"net/netip"
	"testing"
)

// TestClientAddr: the address a session is counted under.
func TestClientAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		remote string
		header http.Header
		want   string
	}{
		{"192.0.2.5:1234", nil, "192.0.2.5"},
		{"192.0.2.5:1234", http.Header{"X-Forwarded-For": {"203.0.113.9"}}, "192.0.2.5"}, // not a local proxy: not trusted
		{"127.0.0.1:1234", nil, "loopback"},
		{"127.0.0.1:1234", http.Header{"X-Forwarded-For": {"10.0.0.1, 203.0.113.9"}}, "203.0.113.9"},
		{"127.0.0.1:1234", http.Header{"X-Forwarded-For": {"10.0.0.1", "203.0.113.8"}}, "203.0.113.8"},
		{"[::1]:1234", http.Header{"X-Forwarded-For": {"junk"}}, "loopback"},
		{"[::1]:1234", http.Header{"Forwarded": {`for=192.0.2.60;proto=http, for="[2001:db8::1]:80"`}}, "2001:db8::/64"},
		{"[2001:db8:1:2:3::9]:1234", nil, "2001:db8:1:2::/64"}, // IPv6 counts by its /64
		{"[::ffff:127.0.0.1]:1234", http.Header{"X-Forwarded-For": {"::ffff:198.51.100.2"}}, "198.51.100.2"},
	} {
		r := &http.Request{RemoteAddr: c.remote, Header: c.header}
		if r.Header == nil {
			r.Header = http.Header{}
		}
		if got := ClientAddr(r, loopbackProxies()); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.remote, c.header, got, c.want)
		}
	}
}

// loopbackProxies trusts a proxy on loopback.
func loopbackProxies() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// TestLoopbackIsOneAddress: every loopback peer (all of 127.0.0.0/8, ::1,
// and 127.x.y.z mapped into IPv6) is one client address for the
// per-address bounds, so a local process cannot take more than one
// address's share by dialling from 127.0.0.2, 127.0.0.3, ...
func TestLoopbackIsOneAddress(t *testing.T) {
	t.Parallel()
	want := ClientAddr(&http.Request{RemoteAddr: "127.0.0.1:1", Header: http.Header{}}, nil)
	for _, remote := range []string{"127.0.0.2:2", "127.8.9.10:3", "127.255.255.254:4", "[::1]:5", "[::ffff:127.0.0.9]:6"} {
		if got := ClientAddr(&http.Request{RemoteAddr: remote, Header: http.Header{}}, nil); got != want {
			t.Errorf("peer %s counts as %q, 127.0.0.1 as %q: want one address", remote, got, want)
		}
	}
	// A trusted proxy on loopback still names its clients apart.
	r := &http.Request{RemoteAddr: "127.0.0.2:7", Header: http.Header{"X-Forwarded-For": {"198.51.100.4"}}}
	if got := ClientAddr(r, loopbackProxies()); got != "198.51.100.4" {
		t.Errorf("a trusted loopback proxy's client: %q, want 198.51.100.4", got)
	}
}
