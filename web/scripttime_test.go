package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestRealRedisScriptTimePerAddr: with -allow-custom-scripts, one
// address's steps of its own scripts are charged the time they take on
// the real Redis, and over its budget (here 1 s a minute) its further
// steps are refused by name, in the page's language, with when to try
// again, while another address's steps run (a fresh-eyes attack on issue
// 37: one address's scripts back to back, each stopped at 1 s, kept PING
// at up to 3.3 s and every other visitor waiting 0.8 to 2.1 s a step).
// Each acquire here spends some 0.1 to 0.4 s hashing on a redis-server
// the test starts; the forks stop at the first refusal.
func TestRealRedisScriptTimePerAddr(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.URL, AllowCustomScripts: true, ScriptTimePerAddr: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	srv, hs := newTestHTTP(t, Config{Backend: RedisBackend(be), AllowCustomScripts: true, Limits: Limits{TrustedProxies: loopbackProxies}})
	const acquire = `local s = string.rep('x', 60000) for i = 1, 3000 do redis.sha1hex(s) end return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`
	code := ownLockTimeline(t, srv, acquire)
	// forks loads the timeline from addr and forks it n times, each with
	// one more acquire of A's; it returns the errors of the forks.
	forks := func(addr string, n int) []serverMsg {
		t.Helper()
		c := dial(t, hs, http.Header{"X-Forwarded-For": {addr}})
		c.expect(MsgHello)
		c.send(ClientMessage{Type: MsgLoad, ID: 1, Timeline: code, Step: intp(0)})
		at := c.expect(MsgFrame).Step
		var errs []serverMsg
		for i := 0; i < n; i++ {
			spec := explore.StepSpec{Actor: "A", Do: sim.ActAcquire, Lock: "lock"}
			start := time.Now()
			c.send(ClientMessage{Type: MsgFork, ID: int64(2 + i), At: &at, Action: &spec})
			refused := false
			for {
				m := c.read()
				if m.Type == MsgError {
					errs = append(errs, m)
					refused = true
					continue
				}
				if m.Type == MsgFrame {
					t.Logf("%s fork %d: step %d in %v", addr, i, m.Step, time.Since(start).Round(time.Millisecond))
					at = m.Step
					break
				}
			}
			if refused {
				break
			}
		}
		return errs
	}
	errs := forks("203.0.113.20", 6)
	refused := 0
	for _, e := range errs {
		if e.Code == ErrCodeRateLimited && strings.Contains(e.Message, "-script-time-per-addr") && strings.Contains(e.Message, "try again in") {
			refused++
		} else {
			t.Errorf("first address: %s %s, want only the time bound's refusal", e.Code, e.Message)
		}
	}
	if refused == 0 {
		t.Error("six forks replaying up to six acquires of some 0.2 s each were never refused past 1 s of Redis's time")
	}
	if errs := forks("203.0.113.21", 1); len(errs) != 0 {
		t.Errorf("another address refused: %s %s", errs[0].Code, errs[0].Message)
	}
}

// TestRealRedisBoundStopIsFinal: with -allow-custom-scripts, a learner's
// script that has written and then runs past backend.MaxScriptRunTime is
// stopped by its time bound, and that stop is the step's outcome: the
// step is not sent again (a fresh-eyes attack on issue 37: the step's
// clock saw the stopped call straddle its millisecond and re-sent it, so
// the step ran the script twice, some 2.1 s, and was reported as a
// SCRIPT KILL of the overrun watch). Here the step's one error is the
// script's own time stop, not a kill.
func TestRealRedisBoundStopIsFinal(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.URL, AllowCustomScripts: true, ScriptTimePerAddr: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	srv, hs := newTestHTTP(t, Config{Backend: RedisBackend(be), AllowCustomScripts: true, Limits: Limits{TrustedProxies: loopbackProxies}})
	// The first acquire takes the lock for 800 ms; the second writes and
	// then hashes 60,000 bytes over and over until its time bound stops
	// it, by when the lock's 800 ms have run out in real time.
	const acquire = `if redis.call('EXISTS', KEYS[1]) == 0 then return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 800) end redis.call('SET', KEYS[1] .. ':w', 1, 'PX', 60000) local s = string.rep('x', 60000) while true do redis.sha1hex(s) end`
	code := ownLockTimeline(t, srv, acquire)
	c := dial(t, hs, http.Header{"X-Forwarded-For": {"203.0.113.30"}})
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, ID: 1, Timeline: code, Step: intp(0)})
	at := c.expect(MsgFrame).Step
	spec := explore.StepSpec{Actor: "A", Do: sim.ActAcquire, Lock: "lock"}
	c.send(ClientMessage{Type: MsgFork, ID: 2, At: &at, Action: &spec})
	if m := c.expect(MsgFrame); m.Step != at+1 {
		t.Fatalf("the first acquire: step %d, want %d", m.Step, at+1)
	} else {
		at = m.Step
	}
	start := time.Now()
	c.send(ClientMessage{Type: MsgFork, ID: 3, At: &at, Action: &spec})
	var errs []serverMsg
	for {
		m := c.read()
		if m.Type == MsgError {
			errs = append(errs, m)
			continue
		}
		if m.Type == MsgFrame {
			break
		}
	}
	took := time.Since(start)
	for _, e := range errs {
		t.Logf("error: %s %.300s", e.Code, e.Message)
	}
	t.Logf("the step answered in %v", took.Round(time.Millisecond))
	if len(errs) != 1 || errs[0].Code != ErrCodeScriptError || !strings.Contains(errs[0].Message, "ran longer than a script of your own may run") {
		t.Errorf("%d errors, want one: the script's own time stop", len(errs))
	}
}
