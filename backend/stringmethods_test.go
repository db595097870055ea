package backend_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// scriptLine finds the line an error reply names: "user_script:3:" on
// redis-server, ":3:" after the chunk's name on a miniredis.
var scriptLine = regexp.MustCompile(`:(\d+): (?:ERR )?lockstep: `)

// TestUserScriptStringValuesBounded: a string value's methods and fields
// reach the same bounded string library as `string.` does, on every
// backend, redis-server included, where the strings' metatable is
// read-only and one call of the real library held redis-server for 24 s
// or made a gigabyte (a fresh-eyes attack on issue 37). Each attack is
// refused at its own line (line 2 of the script), with the same text on
// every backend; redis-server answers PING at once after it, and its Lua
// heap is back near where it was. The pattern functions' work is bounded
// per call and per call of the script in all, and string.gsub,
// string.format and cjson.encode by what they could make.
func TestUserScriptStringValuesBounded(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: workBoundTimeLimit})
	t.Cleanup(func() { sb.Close() })
	all, rc := storesAndRedisLimit(t, sb, workBoundTimeLimit)
	attacks := map[string]string{
		"s:rep":               "local s = 'x'\nreturn #s:rep(1e8)",
		"('x').rep":           "local f = ('x').rep\nreturn #f('x', 1e8)",
		"s[computed]":         "local s = 'x'\nreturn #s['r' .. 'ep'](s, 1e8)",
		"a field of a field":  "local t = {s = 'x'}\nreturn #t.s.rep('x', 1e8)",
		"rawget":              "local s = 'x'\nreturn #rawget(string, 'rep')(s, 1e8)",
		"empty rep":           "local s = ''\nreturn #s:rep(1e12)",
		"s:find backtracking": "local s = ('a'):rep(32)\nreturn s:find(('a*'):rep(8) .. 'b')",
		"s:match %b":          "local s = ('('):rep(20000)\nreturn s:match('%b()%b()')",
		"s:gmatch":            "local s = ('a'):rep(60000)\nfor m in s:gmatch(('a*'):rep(3) .. 'b') do end",
		"pattern work in all": "local s = ('a'):rep(2000)\nfor i = 1, 100 do s:find('a*b') end",
		"gsub with rep":       "local s = 'x100000000'\nreturn #s:gsub('(x)(%d+)', s.rep)",
		"gsub that grows":     "local s = ('x'):rep(60000)\nreturn #s:gsub('x', '%0%0')",
		"gsub by a table":     "local s, big = ('x'):rep(60000), ('y'):rep(60000)\nreturn #s:gsub('x', {x = big})",
		"format":              "local s = ('x'):rep(60000)\nreturn #('%s%s'):format(s, s)",
		"cjson.encode":        "local s, t = ('x'):rep(60000), {}\nfor i = 1, 200 do t[i] = s end return #cjson.encode(t)",
		// Forty copies a turn: the bound on bytes made (16 MiB, some 280
		// copies) stops it in its 7th turn, before redis-server's heap
		// check first reads the time (at its 16th check, one a turn
		// here), so the outcome is the same at any load; one copy a turn
		// ran 280 turns, and on a loaded machine (load 22 on 2 cores) the
		// time stop (backend.MaxScriptRunTime) came first.
		"upper in a loop": "local s = ('x'):rep(60000)\nfor i = 1, 1000 do " + strings.Repeat("s:upper() ", 40) + "end",
	}
	attackEach(t, all, rc, attacks, attackBound{measure: usedLua, what: "Lua heap", grow: backend.MaxScriptHeap, ping: true})
	for name, open := range all {
		// What a lock script does with strings still works.
		for body, want := range map[string]string{
			"local v = 'owner-1:3'\nreturn v:match('^(.-):(%d+)$')":                      "owner-1",
			"local s = 'lock'\nreturn s:sub(1, 2) .. s:upper():lower():len()":            "lo4",
			"local t = {n = {m = 'ab'}}\nt.n.m = t.n.m:rep(2) return t.n.m":              "abab",
			"local s = 'a,b'\nreturn (s:gsub(',', ';'))":                                 "a;b",
			"local s = 'k'\nreturn ('%s=%d'):format(s, 3)":                               "k=3",
			"local o = {v = 2}\nfunction o:get(x) return self.v + x end return o:get(1)": "3",
			"local s = 'abc'\nreturn cjson.encode({s:byte(1, 2)})":                       "[97,98]",
		} {
			r, err := callOnce(t, open, userScriptLines(t, body))
			if err != nil || r.Str != want && strconv.FormatInt(r.Int, 10) != want {
				t.Errorf("%s: %q: %+v %v, want %q", name, body, r, err, want)
			}
		}
	}
}

// TestUserScriptLongCCallsBounded: a call into Redis's C code whose cost
// grows faster than its input runs out of reach of the turn count, the
// time check and SCRIPT KILL (Redis's hook runs between Lua instructions
// only), so the guard refuses one whose worst case passes
// backend.MaxPatternWork before calling it, on every backend: a plain
// string.find (len(s) x len(p)), a pattern with no repetition items
// (the same), and table.sort with or without a comparator (n log2 n
// times the longest string). Before, the plain find held redis-server
// BUSY 17 s and the sort 3 to 11 s (a fresh attacker on issue 37). Each is
// refused at line 2 with the same text everywhere, and redis-server
// answers PING at once after.
func TestUserScriptLongCCallsBounded(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	all, rc := storesAndRedis(t, sb)
	// s is 1 MiB of 'a', p 512 KiB of 'a' then 'b'.
	const big = "local s = ('a'):rep(65536) for i = 1, 4 do s = s .. s end local p = s:sub(1, 524287) .. 'b' local t = {} for i = 1, 8000 do t[i] = s end\n"
	attacks := map[string]string{
		"plain find":            big + "return s:find(p, 1, true)",
		"string.find plain":     big + "return string.find(s, p, 1, true)",
		"find of a literal":     big + "return s:find(p)",
		"match of a literal":    big + "return s:match(p)",
		"gmatch of a literal":   big + "for m in s:gmatch(p) do end",
		"gsub of a literal":     big + "return s:gsub(p, 'x')",
		"find of a dot pattern": big + "return s:find(p .. '.')",
		"sort":                  big + "table.sort(t)",
		"sort with comparator":  big + "table.sort(t, function(a, b) return a < b end)",
	}
	attackEach(t, all, rc, attacks, attackBound{measure: usedLua, what: "Lua heap", grow: backend.MaxScriptHeap, ping: true})
	for name, open := range all {
		// What a lock script does still works.
		for body, want := range map[string]string{
			"local v = ('x'):rep(3000) .. ':1'\nreturn v:find(':1', 1, true)":                 "3001",
			"local t = {'b', 'c', 'a'}\ntable.sort(t) return t[1] .. t[3]":                    "ac",
			"local t = {3, 1, 2}\ntable.sort(t, function(a, b) return a > b end) return t[1]": "3",
		} {
			r, err := callOnce(t, open, userScriptLines(t, body))
			if err != nil || r.Str != want && strconv.FormatInt(r.Int, 10) != want {
				t.Errorf("%s: %q: %+v %v, want %q", name, body, r, err, want)
			}
		}
	}
}

// TestUserScriptWritesBounded: what one call of a user's script may write
// is bounded (backend.MaxScriptWriteBytes) on every backend: one SETRANGE
// at a large offset made 512 MB, and APPEND, SET, RPUSH or HSET in a loop
// grew Redis (or the embedded server's Go heap) by gigabytes within the
// script's turns (a fresh-eyes attack on issue 37). Each is refused at its
// line with the same text; redis-server's memory is back near where it
// was.
func TestUserScriptWritesBounded(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	attacks := map[string]string{
		"setrange": "local k = KEYS[1]\nreturn redis.call('SETRANGE', k, 536870911, 'x')",
		"setbit":   "local k = KEYS[1]\nreturn redis.call('SETBIT', k, 4294967295, 1)",
		"append":   "local s = ('x'):rep(60000)\nfor i = 1, 1000 do redis.call('APPEND', KEYS[1], s) end",
		"set":      "local s = ('x'):rep(60000)\nfor i = 1, 1000 do redis.call('SET', KEYS[1] .. ':' .. i, s, 'PX', 1000) end",
		"rpush":    "local s = ('x'):rep(60000)\nfor i = 1, 1000 do redis.call('RPUSH', KEYS[1], s) end",
		"hset":     "local s = ('x'):rep(60000)\nfor i = 1, 1000 do redis.call('HSET', KEYS[1], i, s) end",
		"pcall":    "local s = ('x'):rep(60000)\nfor i = 1, 1000 do local r = redis.pcall('APPEND', KEYS[1], s) if type(r) == 'table' and r.err then error(r.err) end end",
		"copied":   "redis.call('SADD', KEYS[1], 'a')\nreturn redis.call('SUNIONSTORE', KEYS[1] .. ':2', KEYS[1])",
	}
	all, rc := storesAndRedis(t, sb)
	attackEach(t, all, rc, attacks, attackBound{measure: usedMemory, what: "used_memory", grow: 4 * backend.MaxScriptWriteBytes})
	for name, open := range all {
		r, err := callOnce(t, open, userScriptLines(t, "local k = KEYS[1]\nredis.call('SET', k, ARGV[1], 'PX', 1000) redis.call('APPEND', k, ':1') return redis.call('GET', k)"))
		if err != nil || r.Str != "A:1" {
			t.Errorf("%s: a lock's writes: %+v %v", name, r, err)
		}
	}
}

// attackBound is what attackEach checks of redis-server after an attack.
type attackBound struct {
	measure func(*testing.T, *redis.Client) int64 // a size from its INFO
	what    string                                // the size's name, for the log
	grow    int64                                 // how much the size may grow
	ping    bool                                  // PING is answered within 1 s right after
}

// attackEach calls every attack (a script's body, its attack on line 2)
// once on each store of all, and checks that each is refused at line 2
// with the same text on every backend, and on redis-server (rc) what b
// asks.
func attackEach(t *testing.T, all map[string]func() (*backend.Store, error), rc *redis.Client, attacks map[string]string, b attackBound) {
	t.Helper()
	// What each backend said (from "lockstep:" on), for each attack.
	said := map[string]map[string]string{}
	for name, open := range all {
		var c *redis.Client
		if name == "real" {
			c = rc
		}
		for what, body := range attacks {
			before := b.measure(t, c)
			start := time.Now()
			r, err := callOnce(t, open, userScriptLines(t, body))
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, what, err)
			}
			m := scriptLine.FindStringSubmatch(r.Str)
			if r.Kind != sim.ReplyError || m == nil || m[1] != "2" {
				t.Errorf("%s: %s: replied %.300q after %v, want a bound's error at line 2", name, what, r.Str, took.Round(time.Millisecond))
				continue
			}
			if said[what] == nil {
				said[what] = map[string]string{}
			}
			said[what][name] = ownWords(r.Str)
			if c == nil {
				continue
			}
			if b.ping {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				if err := c.Ping(ctx).Err(); err != nil {
					t.Errorf("%s: %s: redis-server right after: %v", name, what, err)
				}
				cancel()
			}
			after := b.measure(t, c)
			t.Logf("%s: %s: %v; %s %d KB before, %d KB after: %.100s", name, what, took.Round(time.Millisecond), b.what, before>>10, after>>10, ownWords(r.Str))
			if after > before+b.grow {
				t.Errorf("%s: %s: redis-server's %s went from %d to %d bytes", name, what, b.what, before, after)
			}
		}
	}
	for what, by := range said {
		if by["embedded"] == "" || by["embedded"] != by["sandbox"] || by["embedded"] != by["real"] {
			t.Errorf("%s: the backends stop it differently:\n%q", what, by)
		}
	}
}

// userScriptLines is userScript of a body of several lines.
func userScriptLines(t *testing.T, body string) *sim.Script {
	t.Helper()
	return userScript(t, strings.ReplaceAll(body, "\n", "\n    "))
}

// usedLua is used_memory_lua of c's INFO, 0 without c.
func usedLua(t *testing.T, c *redis.Client) int64 { return infoMemory(t, c, "used_memory_lua") }

// usedMemory is used_memory of c's INFO, 0 without c.
func usedMemory(t *testing.T, c *redis.Client) int64 { return infoMemory(t, c, "used_memory") }

func infoMemory(t *testing.T, c *redis.Client, field string) int64 {
	t.Helper()
	if c == nil {
		return 0
	}
	info, err := c.InfoMap(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(info["Memory"][field], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return n
}

// storesAndRedis is stores, and a client of its redis-server.
func storesAndRedis(t *testing.T, sb *backend.Sandbox) (map[string]func() (*backend.Store, error), *redis.Client) {
	return storesAndRedisLimit(t, sb, 0)
}

// storesAndRedisLimit is storesAndRedis with the real Redis's step bound
// (and its reach timeout) at limit (0: the defaults), as storesLimit.
func storesAndRedisLimit(t *testing.T, sb *backend.Sandbox, limit time.Duration) (map[string]func() (*backend.Store, error), *redis.Client) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { c.Close() })
	real := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true, ScriptTimeLimit: limit, DialTimeout: limit})
	embedded := lessontest.Open(t, backend.Config{})
	return map[string]func() (*backend.Store, error){
		"embedded": embedded.NewStore,
		"sandbox":  func() (*backend.Store, error) { return sb.NewStore(context.Background()) },
		"real":     real.NewStore,
	}, c
}

// TestRealRedisWriteThenSlowBuiltinsStopped: on redis-server, a script
// that has written (so SCRIPT KILL cannot stop it) and then spends each of
// its turns in a built-in the guard does not charge (comparing two strings
// of 1 MiB: minutes in all) is stopped inside the script after
// backend.MaxScriptRunTime, at its line, and Redis answers PING right
// after.
func TestRealRedisWriteThenSlowBuiltinsStopped(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	be := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true, ScriptTimeLimit: 10 * time.Second})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { c.Close() })
	start := time.Now()
	r, err := callOnce(t, be.NewStore, userScriptLines(t, "redis.call('SET', KEYS[1], 1, 'PX', 1000) local a = string.rep('x', 65536) for i = 1, 4 do a = a .. a end local b = a:sub(2) .. 'y'\nwhile true do local c = a < b end"))
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	m := scriptLine.FindStringSubmatch(r.Str)
	if r.Kind != sim.ReplyError || m == nil || m[1] != "2" || !strings.Contains(r.Str, "lockstep: time:") {
		t.Errorf("replied %.300q, want the time bound's error at line 2", r.Str)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Errorf("redis-server right after: %v", err)
	}
	t.Logf("stopped after %v: %.120s", took.Round(time.Millisecond), ownWords(r.Str))
}
