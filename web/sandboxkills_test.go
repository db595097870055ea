package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
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
	}
}
