package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestSessionsPerAddressLimit: one client address cannot take more than
// Config.MaxSessionsPerAddr sessions (finding 4), while other addresses,
// including the clients a reverse proxy on loopback names in
// X-Forwarded-For, still get theirs.
func TestSessionsPerAddressLimit(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{MaxSessions: 10, MaxSessionsPerAddr: 2, Limits: Limits{TrustedProxies: loopbackProxies}})
	for i := 0; i < 2; i++ {
		dial(t, hs, nil).expect(MsgHello)
	}
	third := dial(t, hs, nil)
	m := third.expect(MsgError)
	if m.Code != ErrCodeBusy || !strings.Contains(m.Message, "from your address (limit 2 per address") {
		t.Fatalf("third session from one address: %+v", m)
	}
	if ce := third.closeErr(); ce.Code != websocket.CloseTryAgainLater || !strings.Contains(ce.Text, "-max-sessions-per-addr") {
		t.Fatalf("close %d %q, want 1013 naming the flag", ce.Code, ce.Text)
	}
	// Behind a proxy on loopback: counted by the client the proxy names
	// (the last address, the one the proxy added).
	proxied := func(xff string) *wsClient { return dial(t, hs, http.Header{"X-Forwarded-For": {xff}}) }
	proxied("198.51.100.1, 203.0.113.9").expect(MsgHello)
	proxied("203.0.113.9").expect(MsgHello)
	if m := proxied("192.0.2.1, 203.0.113.9").read(); m.Code != ErrCodeBusy {
		t.Fatalf("third session of 203.0.113.9 behind the proxy: %+v", m)
	}
	proxied("203.0.113.10").expect(MsgHello)
	dial(t, hs, http.Header{"Forwarded": {`for="[2001:db8::7]:4711";proto=https`}}).expect(MsgHello)
	if n := srv.Sessions(); n != 6 {
		t.Errorf("%d sessions open, want 6", n)
	}
}

// TestSessionsFullEvictsIdlest: on a full server a new connection closes
// the session idle longest, past Config.IdleGrace, with code 4000 and a
// reason, and takes its place; a session idle for less is never closed
// for it. The clock is the test's.
func TestSessionsFullEvictsIdlest(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	srv, hs := newTestHTTP(t, Config{MaxSessions: 2, IdleGrace: time.Minute})
	srv.table.SetClock(clock.now)
	a := dial(t, hs, nil)
	a.expect(MsgHello)
	b := dial(t, hs, nil)
	b.expect(MsgHello)
	clock.advance(50 * time.Second)
	a.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry"})
	a.expect(MsgFrame) // a is active at 50 s, b idle since 0 s
	// Within the grace: refused, nobody closed.
	c := dial(t, hs, nil)
	if m := c.expect(MsgError); m.Code != ErrCodeBusy {
		t.Fatalf("third session within the grace: %+v", m)
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseTryAgainLater {
		t.Fatalf("close %d, want 1013", ce.Code)
	}
	clock.advance(20 * time.Second) // b idle 70 s, a 20 s
	d := dial(t, hs, nil)
	d.expect(MsgHello)
	ce := b.closeErr()
	if ce.Code != CloseIdle || !strings.Contains(ce.Text, "web: idle 1m0s or more, closed to make room: the server is full (2 sessions)") {
		t.Fatalf("idlest session closed with %d %q, want 4000 saying why", ce.Code, ce.Text)
	}
	// a goes on as before.
	a.send(ClientMessage{Type: MsgStep, ID: 7})
	if m := a.expect(MsgFrame); m.Re != 7 || m.Step != 1 {
		t.Fatalf("the active session after the eviction: %+v", m)
	}
	if n := srv.Sessions(); n != 2 {
		t.Errorf("%d sessions counted, want 2", n)
	}
	d.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry"})
	d.expect(MsgFrame)
}

// loopbackProxies trusts a proxy on loopback: the test's dialer, which
// names its clients in X-Forwarded-For.
var loopbackProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// TestSessionsFairAcrossAddresses (issue 37, item 7): forwarded headers
// count only from a proxy named in Config.TrustedProxies (by default a
// local process cannot pick its address), an IPv6 /64 is one address, and
// the last Config.SessionReserve sessions are kept for addresses with
// nothing open, so a few busy addresses cannot lock a new visitor out.
func TestSessionsFairAcrossAddresses(t *testing.T) {
	t.Parallel()
	// No trusted proxy: X-Forwarded-For from loopback is not believed.
	_, plain := newTestHTTP(t, Config{MaxSessions: 10, MaxSessionsPerAddr: 2})
	for i := range 2 {
		dial(t, plain, http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i+1)}}).expect(MsgHello)
	}
	if m := dial(t, plain, http.Header{"X-Forwarded-For": {"203.0.113.3"}}).read(); m.Code != ErrCodeBusy {
		t.Fatalf("a third faked address from one peer: %+v, want busy", m)
	}

	srv, hs := newTestHTTP(t, Config{MaxSessions: 10, MaxSessionsPerAddr: 4, Limits: Limits{TrustedProxies: loopbackProxies, SessionReserve: 2}})
	from := func(addr string) *wsClient { return dial(t, hs, http.Header{"X-Forwarded-For": {addr}}) }
	// One /64: four sessions, then busy, whatever the interface id.
	for i := range 4 {
		from(fmt.Sprintf("2001:db8:0:1::%x", i+1)).expect(MsgHello)
	}
	if m := from("2001:db8:0:1:ffff::1").read(); m.Code != ErrCodeBusy {
		t.Fatalf("a fifth session of one /64: %+v, want busy", m)
	}
	// Another address takes four more, up to max-reserve (8); a third
	// address with nothing open gets a place of the reserve, but not a
	// second one (it has a session open now)…
	for range 4 {
		from("192.0.2.1").expect(MsgHello)
	}
	from("192.0.2.2").expect(MsgHello)
	if m := from("192.0.2.2").read(); m.Code != ErrCodeBusy {
		t.Fatalf("past max-reserve from an address with a session: %+v, want busy", m)
	}
	// …so the last place is still there for the next new visitor.
	from("198.51.100.7").expect(MsgHello)
	if n := srv.Sessions(); n != 10 {
		t.Errorf("%d sessions, want 10", n)
	}
}
