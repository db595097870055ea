package sim_test

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"lockstep/sim"
)

// TestBoundedScripts: the turn counter stops every kind of endless script
// (a loop of each kind, a tail call, goto), keeps a short script's answer
// and its line numbers.
func TestBoundedScripts(t *testing.T) {
	endless := map[string]string{
		"while":     "while true do end",
		"repeat":    "repeat local x = 1 until false",
		"for":       "for i = 1, 1e12 do end",
		"tail call": "local function f(n) return f(n + 1) end\nreturn f(1)",
		"anonymous": "local f\nf = function() return f() end\nreturn f()",
		"goto":      "::again:: goto again",
	}
	for name, body := range endless {
		L := lua.NewState()
		err := L.DoString(runSource(t, body))
		L.Close()
		if err == nil || !sim.ScriptWasStopped(err.Error()) {
			t.Errorf("%s: want the script stopped, got %v", name, err)
		}
	}
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(runSource(t, "local n = 0\nfor i = 1, 10 do n = n + i end\nreturn n")); err != nil {
		t.Fatal(err)
	}
	if got := L.Get(-1); got.String() != "55" {
		t.Fatalf("got %v, want 55", got)
	}
	err := L.DoString(runSource(t, "local x = 1\n\nerror('line three')"))
	if err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("want the error on line 3, got %v", err)
	}
}

// runSource loads a variant whose acquire is body and returns the text a
// store would send for it.
func runSource(t *testing.T, body string) string {
	t.Helper()
	src := strings.Replace(inlineVariant, "  source: |\n    if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then\n      return 0\n    end\n    redis.call('HINCRBY', KEYS[1], ARGV[1], 1)\n    redis.call('PEXPIRE', KEYS[1], ARGV[2])\n    return 1\n",
		"  source: |\n    "+strings.ReplaceAll(body, "\n", "\n    ")+"\n", 1)
	d, err := sim.LoadVariant("b.variant.yaml", []byte(src), noFiles)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return d.Acquire.Script.RunSource()
}
