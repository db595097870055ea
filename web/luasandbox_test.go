package web

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// lockPage posts a lock whose acquire script is acquire and returns every
// page the visitor gets: the check's answer and, when it passed, the
// course table.
func lockPage(t *testing.T, base, acquire string) string {
	t.Helper()
	files := redissonFiles(t)
	files["script_1"] = acquire
	resp := postLock(t, base, files)
	b, _ := io.ReadAll(resp.Body)
	page := string(b)
	if resp.StatusCode == http.StatusSeeOther {
		page += getPage(t, base, resp.Header.Get("Location"), 200)
	}
	return page
}

// TestOwnLockVisitorLua: a visitor's lock, run by a server started as the
// README says (embedded Redis), reads no file of the server's (its Lua has
// Redis's globals, so loadfile is a nonexistent global as on
// redis-server) (issue 37, item 1).
func TestOwnLockVisitorLua(t *testing.T) {
	t.Parallel()
	// Reading files: a time limit that a loaded machine does not reach.
	_, files := newTestHTTP(t, Config{Lessons: lockCourse(t, "nested-reentry")})
	secret := filepath.Join(t.TempDir(), "app.env")
	if err := os.WriteFile(secret, []byte("TOKEN=never-shown-4711\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, acquire := range []string{
		"return loadfile('" + secret + "')()",
		"local f = io and io.open('" + secret + "') return f and f:read('*a')",
		"return dofile('" + secret + "')",
	} {
		page := lockPage(t, files.URL, acquire)
		if strings.Contains(page, "never-shown-4711") {
			t.Fatalf("%s: the page shows the server's file", acquire)
		}
		if !strings.Contains(page, "nonexistent global variable") {
			t.Errorf("%s: the page does not say the global does not exist", acquire)
		}
	}
}

// TestOwnLockRunawayLeavesHeap: a script that outruns the turn count (code
// compiled at run time looping forever) is stopped within the time limit,
// leaving no process of the sandbox busy and the server's heap where it
// was (issue 37, item 2). Not parallel: the heap is the whole test
// process's, and parallel tests' allocations (CI once saw 327 MB) would
// be counted as this one's.
func TestOwnLockRunawayLeavesHeap(t *testing.T) {
	srv, hs := newTestHTTP(t, Config{ScriptTimeLimit: time.Second, Lessons: lockCourse(t, "nested-reentry")})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	page := parseDOM(t, lockPage(t, hs.URL, runaway+"\n"))
	rows := lockRows(t, page)
	if r := rows["nested-reentry"]; r[0] != "error" || !strings.Contains(r[1], "1s") {
		t.Errorf("lesson 1 under an acquire that loops forever: %v", r)
	}
	// One lesson's overrun is enough: the rest are not run.
	for id, r := range rows {
		if id != "nested-reentry" && r[0] != "skipped" {
			t.Errorf("%s after the overrun: %v", id, r)
		}
	}
	// The step answered; the sandbox's process that looped is gone.
	// (The stopped process is reaped around the page's answer; 10 s is for a
	// loaded machine's reaping, not a timing.)
	deadline := time.Now().Add(10 * time.Second)
	for srv.sandbox.PID() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pid := srv.sandbox.PID(); pid != 0 {
		t.Errorf("the sandbox's process %d still runs 10 s after the page answered", pid)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 256<<20 {
		t.Errorf("the server's heap grew by %d MB", grew>>20)
	}
	getPage(t, hs.URL, "/healthz", 200)
}

// TestOwnLockMemoryBoundSaid: when the sandbox's process was stopped for
// memory, the course table's rows not run say the memory bound, not the
// time bound (a fresh-eyes review of issue 37).
func TestOwnLockMemoryBoundSaid(t *testing.T) {
	t.Parallel()
	// A time limit the memory watch comes well before.
	_, hs := newTestHTTP(t, Config{ScriptTimeLimit: 30 * time.Second, Lessons: lockCourse(t, "nested-reentry")})
	page := parseDOM(t, lockPage(t, hs.URL, "local t, s = {}, string.rep('x', 65536) while true do t[#t + 1] = s .. #t end\n"))
	rows := lockRows(t, page)
	if r := rows["nested-reentry"]; r[0] != "error" || !strings.Contains(r[1], "MiB") {
		t.Fatalf("lesson 1 under an acquire that fills memory: %v", r)
	}
	for id, r := range rows {
		if id != "nested-reentry" && (r[0] != "skipped" || !strings.Contains(r[1], "memory bound")) {
			t.Errorf("%s after the memory bound: %v, want not run (memory bound)", id, r)
		}
	}
}

// runaway is a visitor's acquire that runs long within its turn count:
// each of its 100,000 turns compares two strings of 2 MiB, a built-in the
// key guard does not charge (a backtracking pattern, as it was, is refused
// now however it is called), some seconds in the Lua sandbox.
const runaway = "local a = string.rep('x', 65536) for i = 1, 5 do a = a .. a end local b = a:sub(2) .. 'y' while true do local c = a < b end"
