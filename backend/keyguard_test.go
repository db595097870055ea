package backend_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/sim"
)

// guardErr is the part of a refused command's error reply that every
// backend gives alike: from "lockstep: key guard:" to the end of the
// guard's sentence (redis-server adds " script: <sha>, on
// @user_script:1." after an error a script raised, miniredis its own
// words).
func guardErr(r sim.Reply) string {
	if r.Kind != sim.ReplyError {
		return ""
	}
	if !backend.KeyGuardRefused(r.Str) {
		return ""
	}
	i := strings.Index(r.Str, "lockstep: key guard:")
	if i < 0 {
		return ""
	}
	s := runID.ReplaceAllString(r.Str[i:], "{run-ID}")
	for _, end := range []string{"(its run's own keys)", "which keys it touches", "no number of keys", "could not count its turns", "the bytes it writes"} {
		if j := strings.Index(s, end); j >= 0 {
			return s[:j+len(end)]
		}
	}
	return ""
}

// runID matches the run id in a key's namespace, which differs by run.
var runID = regexp.MustCompile(`\{run-[0-9a-f]{12}\}`)

// execOn runs one batch on st and fails the test on a step error.
func execOn(t *testing.T, st *backend.Store, b *sim.Batch) *sim.BatchResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := st.Exec(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestUserScriptTouchesOnlyItsOwnKeys: a user's script cannot read, write
// or delete another run's key, nor a key it computed outside its KEYS,
// on the in-process embedded Redis, the Lua sandbox and a real
// redis-server opened to user's scripts, and each refusal is the same
// error on all three; a key derived from KEYS[1] stays allowed, and the
// ways around a lexical guard (the global table, code compiled at run
// time, a changed KEYS) are closed (a fresh-eyes review of issue 37).
func TestUserScriptTouchesOnlyItsOwnKeys(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	refusals := map[string]map[string]string{} // attack -> backend -> guardErr
	for name, open := range stores(t, sb) {
		// Another visitor's run, with its lock held.
		victim, err := open()
		if err != nil {
			t.Fatal(err)
		}
		lock := sim.KeyRef{Name: "lock", Type: sim.TypeString}
		set := userScript(t, "return redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)")
		execOn(t, victim, &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")}, Calls: []sim.Call{{Script: set, Keys: []string{"lock"}, Args: []string{"V", "1000"}}}, Read: []sim.KeyRef{lock}})
		theirs := victim.Prefix() + "lock"
		if name == "embedded" {
			// Every run has a server of its own: a key named as another
			// run's would be is refused all the same.
			theirs = backend.KeyNamespace + "{run-000000000000}:lock"
		} else if !strings.HasPrefix(theirs, backend.KeyNamespace+"{run-") {
			t.Fatalf("%s: the victim's key is %q", name, theirs)
		}
		attacks := map[string]string{
			"get another run's key": "return redis.call('GET', '" + theirs + "')",
			"set another run's key": "return redis.call('SET', '" + theirs + "', 'mine')",
			"del another run's key": "return redis.call('DEL', KEYS[1], '" + theirs + "')",
			"computed key":          "return redis.call('SET', 'victim' .. ':' .. 42, 'x')",
			"pcall computed key":    "local r = redis.pcall('GET', 'victim') return r",
			"mset second key":       "return redis.call('MSET', KEYS[1], 'a', 'victim', 'b')",
			"the global table":      "return _G.redis.call('GET', 'victim')",
			"rawget":                "return rawget(_G, 'redis').call('GET', 'victim')",
			"loadstring":            "return loadstring(\"return redis.call('GET', 'victim')\")()",
			"load":                  "local n = 0 return load(function() n = n + 1 if n == 1 then return \"return _G.redis.call('GET', 'victim')\" end end)()",
			"nested loadstring":     "return loadstring(\"return loadstring('return redis.call(\\\\'GET\\\\', \\\\'victim\\\\')')()\")()",
			"changed KEYS":          "KEYS[1] = 'victim' return redis.call('GET', KEYS[1])",
			"changed KEYS, loaded":  "KEYS[1] = 'victim' return loadstring(\"return redis.call('GET', KEYS[1])\")()",
			"scan":                  "return redis.call('SCAN', 0)",
			"keys":                  "return redis.call('KEYS', '*')",
			"flushall":              "return redis.call('flushall')",
			"zunionstore":           "return redis.call('ZUNIONSTORE', KEYS[1] .. ':z', 2, KEYS[1] .. ':a', 'victim')",
			// Lockstep's own keys beside the script's (derived.go, vclock.go).
			"the written set":  "return redis.call('SADD', KEYS[1] .. ':lockstep:written', 'victim')",
			"the step's clock": "return redis.call('SET', KEYS[1] .. ':lockstep:clock', 1)",
		}
		for attack, body := range attacks {
			r, err := callOnce(t, open, userScript(t, body))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, attack, err)
			}
			// A key the script built from its KEYS is named as the
			// lesson names it, without the run's namespace, on every
			// backend (a fresh review of issue 33).
			g := guardErr(r)
			if g == "" {
				t.Errorf("%s: %s: replied %+v, want the guard's refusal", name, attack, r)
			}
			if refusals[attack] == nil {
				refusals[attack] = map[string]string{}
			}
			refusals[attack][name] = g
		}
		// The victim's lock is as it was.
		res := execOn(t, victim, &sim.Batch{Prior: []sim.KeyState{{Name: "lock", Type: sim.TypeString, Value: "V", PTTL: 60000}}, Read: []sim.KeyRef{lock}})
		if got := res.Keys[0]; got.Value != "V" {
			t.Errorf("%s: the victim's lock is %+v after the attacks", name, got)
		}
		victim.Close(context.Background())
		// What a lock script does with its own keys still works.
		for body, want := range map[string]string{
			"redis.call('SET', KEYS[1] .. ':count', 1, 'PX', 1000) return redis.call('GET', KEYS[1] .. ':count')": "1",
			"return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])":                                     "OK",
			"return tostring(redis.call('TIME')[1] ~= nil)":                                                       "true",
			"return tostring(redis.status_reply('OK').ok)":                                                        "OK",
		} {
			r, err := callOnce(t, open, userScript(t, body))
			if err != nil || r.Str != want {
				t.Errorf("%s: %s: %+v %v, want %q", name, body, r, err, want)
			}
		}
	}
	for attack, by := range refusals {
		if by["embedded"] != by["sandbox"] || by["embedded"] != by["real"] {
			t.Errorf("%s: the backends refuse it differently:\n%q", attack, by)
		}
	}
}

// TestOwnerInKeysIsNoKey: an owner id a variant file passes in KEYS
// (sim.Call.KeyValues) is a value, not one of the run's keys: a script
// that writes to it, or to a key built from it, is refused on every
// backend, so nothing lands outside Lockstep's namespace on a real Redis
// (a fresh-eyes review of issue 33 found proc-A:A and proc-A:A:seen left
// behind with no TTL), while the lock key beside it still works.
func TestOwnerInKeysIsNoKey(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	call := func(sc *sim.Script) sim.Call {
		return sim.Call{Script: sc, Keys: []string{"lock", "proc-A:A"}, KeyValues: []bool{false, true}, Args: []string{"A", "1000"}}
	}
	for name, open := range stores(t, sb) {
		for body, refused := range map[string]bool{
			"return redis.call('SET', KEYS[2], 1, 'PX', 1000)":             true,
			"return redis.call('SET', KEYS[2] .. ':seen', 1, 'PX', 1000)":  true,
			"return redis.call('SET', KEYS[1], KEYS[2], 'NX', 'PX', 1000)": false,
		} {
			st, err := open()
			if err != nil {
				t.Fatal(err)
			}
			res := execOn(t, st, &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")}, Calls: []sim.Call{call(userScript(t, body))}})
			st.Close(context.Background())
			if got := guardErr(res.Replies[0]) != ""; got != refused {
				t.Errorf("%s: %s: replied %+v, want refused %v", name, body, res.Replies[0], refused)
			}
		}
	}
}
