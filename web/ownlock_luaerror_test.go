package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestOwnLockLuaErrorLine: a Lua runtime error in a learner's script is
// said in the course table at the script's own file and line (issue 33):
// two lines put before Redisson's acquire make line 2 compare nil with a
// number.
func TestOwnLockLuaErrorLine(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	files := redissonFiles(t)
	files["script_1"] = "local n = tonumber(redis.call('get', KEYS[1] .. ':n'))\nif n > 1 then return 0 end\n" + files["script_1"]
	resp := postLock(t, hs.URL, files)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("check: %d", resp.StatusCode)
	}
	rows := lockRows(t, parseDOM(t, getPage(t, hs.URL, resp.Header.Get("Location"), 200)))
	r := rows["nested-reentry"]
	if r[0] != "error" || !strings.HasPrefix(r[1], "redisson-rlock/acquire.lua:2: ") || !strings.Contains(r[1], "attempt to compare") {
		t.Fatalf("nested-reentry row %q: want the error at redisson-rlock/acquire.lua:2", r)
	}
}

// TestOwnLockGuardErrorLine: a key the key guard refuses, on line 3 of a
// learner's script, is said at that line, not at line 1 where the guard
// sits (a fresh-eyes review of issue 37), also when the call is returned
// (a tail call in Lua).
func TestOwnLockGuardErrorLine(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, line3 := range []string{"local v = redis.call('GET', 'victim')\n", "if a then return redis.call('GET', 'victim') end\n"} {
		files := redissonFiles(t)
		files["script_1"] = "local a = 1\nlocal b = 2\n" + line3 + files["script_1"]
		resp := postLock(t, hs.URL, files)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("check: %d", resp.StatusCode)
		}
		rows := lockRows(t, parseDOM(t, getPage(t, hs.URL, resp.Header.Get("Location"), 200)))
		r := rows["nested-reentry"]
		if r[0] != "error" || !strings.HasPrefix(r[1], "redisson-rlock/acquire.lua:3: ") || !strings.Contains(r[1], "key guard") {
			t.Errorf("%q: nested-reentry row %q: want the guard's refusal at redisson-rlock/acquire.lua:3", line3, r)
		}
	}
}
