package backend_test

import (
	"regexp"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
)

// errLine finds the line a script's error reply names, where sim.ScriptError
// reads it: "ERR user_script:3: ..." (redis-server) or "ERR Error compiling
// script (new function): <string>:3: ..." (gopher-lua).
var errLine = regexp.MustCompile(`^(?:ERR )?(?:user_script|Error compiling script \(new function\): (?:<string>)?):(\d+): `)

// TestScriptErrorsNameTheirLine: an error a user's script meets on its
// third line (a command Redis refuses, a key the guard refuses, a
// string.rep past the bound, an error of its own) names line 3 on every
// backend, not the first line where the key guard and Redis's environment
// sit (a fresh-eyes review of issue 37: such errors named line 1).
func TestScriptErrorsNameTheirLine(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	for name, open := range stores(t, sb) {
		for _, c := range []struct{ what, line3 string }{
			{"its own error", "error('mine')"},
			{"a command Redis refuses", "local v = redis.call('INCR', KEYS[1]) return v"},
			{"a key the guard refuses", "local v = redis.call('GET', 'victim') return v"},
			{"a command the guard refuses", "local v = redis.call('FLUSHALL') return v"},
			{"string.rep past the bound", "local v = string.rep('x', 1e9) return v"},
			// miniredis's guard of _G once named its own line 16 (a
			// fresh-eyes review of issue 37).
			{"a removed global", "local v = loadfile('/etc/hostname') return v"},
			// A call in a return is a tail call in Lua: the script's own
			// frame is gone by the time the guard raises, unless the call
			// is made a plain one (sim.Script.RunSource).
			{"a command Redis refuses, returned", "return redis.call('INCR', KEYS[1])"},
			{"a key the guard refuses, returned", "return redis.call('GET', 'victim')"},
			{"string.rep past the bound, returned", "return string.rep('x', 1e9)"},
		} {
			if name == "real" && strings.HasPrefix(c.what, "string.rep past the bound") {
				continue // redis-server has no such bound (docs/security.md)
			}
			body := "redis.call('HSET', KEYS[1], 'f', 'v')\n    local a = 1\n    " + c.line3
			r, err := callOnce(t, open, userScript(t, body))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, c.what, err)
			}
			m := errLine.FindStringSubmatch(r.Str)
			if r.Kind != sim.ReplyError || m == nil || m[1] != "3" {
				t.Errorf("%s: %s: replied %q, want an error naming line 3", name, c.what, r.Str)
			}
		}
	}
}
