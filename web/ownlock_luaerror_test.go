package web

import (
	"net/http"
	"net/url"
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

// TestOwnLockOpenErrorPage: a course table row's link
// (/explore/lock/open) that cannot open its lesson answers the lock page's
// error view in the reader's language, not bare text (a fresh review of
// issue 33): a row whose run the key guard stopped (422) names the lesson
// and the refusal at its line, a damaged k (400) and an unknown lesson
// (404) name the link's field.
func TestOwnLockOpenErrorPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	files := redissonFiles(t)
	files["script_1"] = "local a = 1\nlocal b = 2\nlocal v = redis.call('GET', 'victim')\n" + files["script_1"]
	resp := postLock(t, hs.URL, files)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("check: %d", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	k := loc.Query().Get("k")
	open := func(k, lesson string, status int) string {
		q := url.Values{"k": {k}, "lesson": {lesson}, "lang": {"zh-TW"}}
		d := parseDOM(t, getPage(t, hs.URL, "/explore/lock/open?"+q.Encode(), status))
		if !d.has(byTestID("lock-form")) && !d.has(withAttr("id", "lock")) {
			t.Errorf("lesson %s: not the lock page", lesson)
		}
		return d.text(t, "the open error", byTestID("lock-open-failed"))
	}
	if got := open(k, "nested-reentry", http.StatusUnprocessableEntity); !strings.Contains(got, "nested-reentry") || !strings.Contains(got, "無法執行") || !strings.Contains(got, "redisson-rlock/acquire.lua:3") {
		t.Errorf("run error: %q, want the lesson, in zh-TW, and the refusal at redisson-rlock/acquire.lua:3", got)
	}
	if got := open(k[:len(k)/2], "nested-reentry", http.StatusBadRequest); !strings.Contains(got, "k") || !strings.Contains(got, "無效") {
		t.Errorf("damaged k: %q, want the field k named in zh-TW", got)
	}
	if got := open(k, "no-such", http.StatusNotFound); !strings.Contains(got, "lesson") || !strings.Contains(got, "no-such") {
		t.Errorf("unknown lesson: %q, want the field lesson and the id named", got)
	}
}
