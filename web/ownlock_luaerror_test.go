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
