package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/redistest"
)

// TestOwnLockTouchesOnlyItsOwnKeys: a learner's lock whose acquire reads
// a key of another run (named as another run's would be) is refused on
// every lesson of its course table, with the key guard's error naming
// the command and the key, in the server's Lua sandbox and on a real
// Redis opened to learners' scripts (-allow-custom-scripts), where that
// key exists and holds another visitor's value, which no row shows (a
// fresh-eyes review of issue 37).
func TestOwnLockTouchesOnlyItsOwnKeys(t *testing.T) {
	t.Parallel()
	const theirs = "lockstep:{run-000000000000}:lock:order:42"
	rs := redistest.Start(t)
	if err := rs.Client(t).Set(context.Background(), theirs, "another-visitors-secret", 0).Err(); err != nil {
		t.Fatal(err)
	}
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.URL, AllowCustomScripts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	course := lockCourse(t)
	for name, cfg := range map[string]Config{
		"sandbox": {Lessons: course},
		"real":    {Backend: RedisBackend(be), AllowCustomScripts: true, Lessons: course},
	} {
		_, hs := newTestHTTP(t, cfg)
		files := redissonFiles(t)
		files["script_1"] = "local stolen = redis.call('get', '" + theirs + "') if stolen then return stolen end\n" + files["script_1"]
		resp := postLock(t, hs.URL, files)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: check: %d", name, resp.StatusCode)
		}
		rows := lockRows(t, parseDOM(t, getPage(t, hs.URL, resp.Header.Get("Location"), 200)))
		refused := 0
		for id, r := range rows {
			if strings.Contains(r[1], "another-visitors-secret") {
				t.Errorf("%s: %s shows the other run's value: %v", name, id, r)
			}
			if r[0] != "error" {
				t.Errorf("%s: %s: %v, want the lesson refused", name, id, r)
			}
			if strings.Contains(r[1], "lockstep: key guard: GET on key '"+theirs+"' refused") {
				refused++
			}
		}
		if refused == 0 {
			t.Errorf("%s: no row says the key guard refused the GET: %v", name, rows)
		}
	}
}
