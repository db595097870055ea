package web

import (
	"net/http"
	"net/url"
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

// TestSandboxTimeChargesSearch: a search of a learner's own lock runs its
// steps in the Lua sandbox and is charged their time like any other step
// of the address's (a fresh attacker on issue 37: one search of a
// 99,000-turn loop took 56.6 s of the sandbox's CPU in a minute, 5.6
// times the address's budget, uncharged). Under a budget of 1 µs the
// search's second step is refused, and the search ends as stopped
// "budget", with what it found and the refusal named, with when to try
// again, in the page's language: not as a failure.
func TestSandboxTimeChargesSearch(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{Limits: Limits{SandboxTimePerAddr: time.Microsecond}})
	resp := postLock(t, hs.URL, redissonFiles(t))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("check: %d", resp.StatusCode)
	}
	u, _ := url.Parse(resp.Header.Get("Location"))
	// One address (loopback): its budget is spent by the first search.
	for _, tc := range []struct{ lang, words string }{{"en", "-sandbox-time-per-addr"}, {"zh-TW", "秒後再試"}} {
		c := dial(t, hs, nil)
		c.send(map[string]any{"type": MsgSearch, "id": 1, "lang": tc.lang, "search": map[string]any{
			"variant": "redisson-rlock", "lock": u.Query().Get("k"), "actors": 2, "depth": 4,
			"moves": []string{"acquire", "release"}, "invariants": []string{"wrong-owner-release"}}})
		_, res := c.searchUntilResult(1)
		if res.Complete || res.Stopped != "budget" || !strings.Contains(res.Summary, tc.words) || len(res.Rows) != 1 {
			t.Errorf("%s: the search ended complete=%v stopped %q with %d rows: %q, want stopped \"budget\" naming the sandbox's budget",
				tc.lang, res.Complete, res.Stopped, len(res.Rows), res.Summary)
		}
	}
}
