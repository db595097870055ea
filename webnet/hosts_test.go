package webnet

import "testing"

// TestHostRuleLAN: a server on a LAN address answers its own name, IP
// literals, loopback names and the listed ones, and nothing else.
func TestHostRuleLAN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr  string
		allow []string
		yes   []string
		no    []string
	}{
		{"", nil, []string{"localhost:1", "127.0.0.1", "[::1]:8080"}, []string{"evil.example", "10.0.0.7", "", "[fe80::1]"}},
		{"localhost:8080", nil, []string{"localhost"}, []string{"evil.example", "192.168.1.5"}},
		{"[::1]:8080", []string{"Proxy.Example:443"}, []string{"::1", "proxy.example:80", "proxy.example."}, []string{"evil.example"}},
		{":8080", nil, []string{"192.168.1.5:8080", "localhost"}, []string{"evil.example"}},
		{"0.0.0.0:8080", nil, []string{"192.168.1.5:8080", "[fe80::1]:8080", "localhost"}, []string{"evil.example", "192.168.1.5.nip.io"}},
		{"lockstep.lan:8080", []string{"class.example"}, []string{"lockstep.lan:8080", "LOCKSTEP.LAN", "class.example", "10.1.2.3"}, []string{"evil.example", "lan"}},
	} {
		r := NewHostRule(c.addr, c.allow)
		for _, h := range c.yes {
			if !r.Allows(h) {
				t.Errorf("addr %q allowed %v: Host %q refused", c.addr, c.allow, h)
			}
		}
		for _, h := range c.no {
			if r.Allows(h) {
				t.Errorf("addr %q allowed %v: Host %q answered", c.addr, c.allow, h)
			}
		}
	}
}
