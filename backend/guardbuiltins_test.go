package backend_test

import (
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestUserScriptBuiltinsBounded: on every backend, real redis-server
// included, a user's script may not compile code as it runs (loadstring,
// load: outside its turn count, such code after a write held a real Redis
// BUSY and unkillable), nor make a string past backend.MaxMadeBytes in one
// string.rep or table.concat call (string.rep('x', 1e9) held redis-server
// for over 30 s), nor match a pattern past backend.MaxPatternWork (one
// that backtracks for ever cannot be stopped even by SCRIPT KILL), and it
// reads no redis.REDIS_VERSION(_NUM): each refusal
// is the same error on all three (a fresh-eyes attack on issue 37).
func TestUserScriptBuiltinsBounded(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: workBoundTimeLimit})
	t.Cleanup(func() { sb.Close() })
	refused := map[string]string{
		"loadstring":            "return loadstring('return 1')()",
		"load":                  "return load(function() return nil end)",
		"loadstring of _G":      "return _G.loadstring('return 1')",
		"loadstring, rawget":    "return rawget(_G, 'loadstring')('return 1')",
		"string.rep":            "return #string.rep('x', 1e9)",
		"string.rep, text":      "return #string.rep('xy', '1000000000')",
		"string.rep of _G":      "return #_G.string.rep('x', 1e9)",
		"string.rep of a local": "local s = string return #s.rep('x', 1e9)",
		"table.concat":          "return #table.concat({string.rep('x', 60000), string.rep('x', 60000)})",
		"pattern":               "return string.find(string.rep('a', 60000), string.rep('a*', 30) .. 'b')",
		"pattern, gsub":         "return string.gsub(string.rep('a', 5000), '(a*)(a*)(a*)b', '')",
		"table.concat, looped":  "local t = {} for i = 1, 20 do t[i] = string.rep('x', 60000) end return #table.concat(t)",
	}
	errs := map[string]map[string]string{}
	for name, open := range storesLimit(t, sb, workBoundTimeLimit) {
		for what, body := range refused {
			r, err := callOnce(t, open, userScript(t, body))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, what, err)
			}
			if r.Kind != sim.ReplyError {
				t.Errorf("%s: %s: replied %+v, want an error", name, what, r)
				continue
			}
			if errs[what] == nil {
				errs[what] = map[string]string{}
			}
			errs[what][name] = ownWords(r.Str)
		}
		for body, want := range map[string]string{
			"return tostring(redis.REDIS_VERSION) .. tostring(redis.REDIS_VERSION_NUM)": "nilnil",
			"return tostring(_G.redis.REDIS_VERSION)":                                   "nil",
			"return string.rep('ab', 3)":                                                "ababab",
			"return ('ab'):rep(2)":                                                      "abab",
			"return table.concat({'a', 'b'}, ',')":                                      "a,b",
			"return string.match('owner-1:3', '^(.-):(%d+)$')":                          "owner-1",
			"return tostring(string.find(string.rep('a', 60000), 'a*b', 1, true))":      "nil",
			"return type(getmetatable({}))":                                             "nil",
			"return type(getmetatable(''))":                                             "nil",
		} {
			r, err := callOnce(t, open, userScript(t, body))
			if err != nil || r.Str != want {
				t.Errorf("%s: %s: %+v %v, want %q", name, body, r, err, want)
			}
		}
	}
	for what, by := range errs {
		if by["embedded"] == "" || by["embedded"] != by["sandbox"] || by["embedded"] != by["real"] {
			t.Errorf("%s: the backends refuse it differently:\n%q", what, by)
		}
	}
}

// ownWords is an error reply's text from "lockstep:" on, or from the
// script's line on, up to what each backend adds after it.
func ownWords(s string) string {
	if i := strings.Index(s, "lockstep:"); i >= 0 {
		s = s[i:]
	} else if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	for _, end := range []string{" script: ", " stack traceback:"} {
		if i := strings.Index(s, end); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// TestUserScriptACLRefusalNamesNoUser: a user's script that the Redis ACL
// refuses gets that refusal as its own error reply, which names neither
// the Redis user nor its rules: the step's error named them (a
// PermissionError), and Redis 7.2 on names the user in NOPERM itself (a
// fresh-eyes attack on issue 37). A built-in script's refusal still names
// them, for the operator.
func TestUserScriptACLRefusalNamesNoUser(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	url := srv.AddUser(t, "opsecret", "pw", append(strings.Fields(backend.ACLRules), "-get")...)
	be := lessontest.Open(t, backend.Config{URL: url, AllowCustomScripts: true})
	r, err := callOnce(t, be.NewStore, userScript(t, "return redis.call('GET', KEYS[1])"))
	if err != nil || r.Kind != sim.ReplyError || strings.Contains(r.Str, "opsecret") {
		t.Errorf("a refused GET: %+v %v, want an error reply without the user's name", r, err)
	}
	r, err = backend.DecodeReply(nil, redisErr("NOPERM User opsecret has no permissions to run the 'get' command"))
	if err != nil || r.Str != "NOPERM this user has no permissions to run the 'get' command" {
		t.Errorf("Redis 7.2's NOPERM: %+v %v", r, err)
	}
}

// redisErr is an error reply as go-redis gives it (redis.Error).
type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}
