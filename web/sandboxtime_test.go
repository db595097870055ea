package web

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSandboxTimePerAddr: in the Lua sandbox (no -redis), one address's
// steps of its own scripts are charged the time the sandbox spends on
// them, and past its budget (-sandbox-time-per-addr; here 1 µs a minute,
// so that any step passes it) its further steps are refused by name, in
// the page's language, with when to try again, while another address's
// steps still run (a fresh attacker on issue 37: 20 sockets of one
// address, each step a 99,000-turn loop within every bound, kept 0.8 of
// a core busy for a minute, never refused). The forks stop at the first
// refusal; the assertions are on which step is refused, not on times.
func TestSandboxTimePerAddr(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{Limits: Limits{TrustedProxies: loopbackProxies, SandboxTimePerAddr: time.Microsecond}})
	code := ownLockTimeline(t, srv, "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])")
	// forks loads the timeline from addr in lang and forks A's acquire at
	// step 0 up to three times, until one is refused; it returns how many
	// ran and the refusal.
	forks := func(addr, lang string) (int, *serverMsg) {
		t.Helper()
		c := dial(t, hs, http.Header{"X-Forwarded-For": {addr}})
		c.expect(MsgHello)
		c.send(ClientMessage{Type: MsgLoad, ID: 1, Timeline: code, Step: intp(0), Lang: lang})
		at := c.expect(MsgFrame).Step
		for i := range 3 {
			_, errs := forkAcquire(t, c, int64(2+i), at)
			for _, e := range errs {
				if e.Code != ErrCodeRateLimited {
					t.Fatalf("%s fork %d: %s %s, want the step run or refused for its time", addr, i, e.Code, e.Message)
				}
				return i, &e
			}
		}
		return 3, nil
	}
	for _, tc := range []struct{ addr, lang, words, again string }{
		{"203.0.113.60", "en", "of the Lua sandbox's time", "try again in"},
		{"203.0.113.61", "zh-CN", "占用了 Lua 沙箱", "秒后再试"},
	} {
		ran, refused := forks(tc.addr, tc.lang)
		switch {
		case refused == nil:
			t.Errorf("%s: three steps never refused past a budget of 1 µs", tc.addr)
		case ran != 1:
			t.Errorf("%s: %d steps ran before the refusal, want 1 (the first fits any budget; the second passes 1 µs)", tc.addr, ran)
		case !strings.Contains(refused.Message, "-sandbox-time-per-addr") || !strings.Contains(refused.Message, tc.words) || !strings.Contains(refused.Message, tc.again):
			t.Errorf("%s: refused %q, want the sandbox's budget named, in %s, with when to try again", tc.addr, refused.Message, tc.lang)
		}
	}
}
