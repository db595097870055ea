package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/classserve"
	"lockstep/sim"
)

// TestSandboxKillsRefusedByName: a step refused because its address got
// the shared Lua sandbox stopped too often is said, in the page's
// language, as a refusal (rate-limited) naming the bound and when to try
// again, not as Redis failing (a fresh-eyes review of issue 37).
func TestSandboxKillsRefusedByName(t *testing.T) {
	t.Parallel()
	srv, _ := newTestHTTP(t, Config{})
	err := fmt.Errorf("sim: step 3: %w", &backend.SandboxKillsError{Max: 3, Per: time.Minute, Wait: 42 * time.Second})
	for _, c := range []struct {
		loc  sim.Locale
		want string
	}{{sim.English, "try again in 42 s"}, {"zh-CN", "42 秒后再试"}, {"zh-TW", "42 秒後再試"}} {
		code, reason, ok := stepRefusal(srv.tr(c.loc), err)
		if !ok || code != ErrCodeRateLimited || !strings.Contains(reason, c.want) || !strings.Contains(reason, "3") {
			t.Errorf("%s: %v %q %q, want rate-limited naming the bound and %q", c.loc, ok, code, reason, c.want)
		}
		// A class's student, refused for the presenter's lock, is told so.
		class := fmt.Errorf("sim: step 3: %w", &backend.SandboxKillsError{Max: 3, Per: time.Minute, Wait: 42 * time.Second, Others: true})
		_, classReason, _ := stepRefusal(srv.tr(c.loc), class)
		if !strings.Contains(classReason, c.want) || classReason == reason {
			t.Errorf("%s: a class's refusal %q, want its own words and %q", c.loc, classReason, c.want)
		}
	}
}

// TestClassStudentsStepsChargedToPresenter: a class's students re-run
// what the class shows, a presenter's own lock included, so the sandbox's
// stops of those runs are charged to the presenter's address, not each
// student's (a fresh-eyes attack on issue 37: a presenter's runaway lock
// cost every student's address a stop, the presenter's none). Here the
// presenter's address has used its one stop: a student's run of the
// class's lock is refused by name, as the presenter's own would be.
func TestClassStudentsStepsChargedToPresenter(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{ScriptTimeLimit: 3 * time.Second, Limits: Limits{TrustedProxies: loopbackProxies, SandboxKillsPerAddr: 1}}) // 3 s: a loaded machine ran an ordinary step past 1 s
	timeline := func(acquire string) string { return ownLockTimeline(t, srv, acquire) }
	from := func(addr string) *wsClient {
		c := dial(t, hs, http.Header{"X-Forwarded-For": {addr}})
		c.expect(MsgHello)
		return c
	}
	const presenter, pupil = "203.0.113.7", "203.0.113.8"
	p := from(presenter)
	p.send(ClientMessage{Type: MsgLoad, Timeline: timeline("return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"), Step: intp(1)})
	p.expect(MsgFrame)
	p.send(ClientMessage{Type: classserve.MsgClassStart, ID: 1})
	pm := p.await(classserve.MsgClassPresenter, nil)
	// The presenter's address stops the sandbox once, on another page.
	other := from(presenter)
	other.send(ClientMessage{Type: MsgLoad, ID: 2, Timeline: timeline(runaway), Step: intp(1)})
	if m := other.await(MsgError, nil); m.Code != ErrCodeRedis {
		t.Fatalf("the runaway: %s %s, want the step's failure", m.Code, m.Message)
	}
	s := from(pupil)
	s.send(ClientMessage{Type: classserve.MsgClassJoin, ID: 3, Code: pm.Code})
	m := s.await(MsgError, nil)
	if m.Code != ErrCodeRateLimited || !strings.Contains(m.Message, "the lock this class shows") {
		t.Errorf("a student's run of the presenter's lock: %s %s, want it refused as the class's", m.Code, m.Message)
	}
}
