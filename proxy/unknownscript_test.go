package proxy

import (
	"context"
	"strings"
	"testing"
)

// TestUnknownScriptRelease: an application's release script was loaded
// before the proxy started, so the proxy sees EVALSHA of a body it never
// saw. That EVALSHA deleting the key while its lease has seconds left is
// the holder's release, not its lease running out (a false lease-expired
// before); the saved variant says the script's body is missing rather
// than "no release was seen".
func TestUnknownScriptRelease(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		body := `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`
		outside := dialRaw(t, p.upAddr) // loaded before the proxy saw anything
		sha := outside.pipeline(t, []string{"SCRIPT", "LOAD", body})[0]
		sha = strings.Trim(sha, `"`)
		a := dialRaw(t, p.Addr())
		if got := a.pipeline(t, cmd("SET lock:u tokA NX PX 10000")); got[0] != "OK" {
			t.Fatalf("SET answered %q", got)
		}
		if got := a.pipeline(t, []string{"EVALSHA", sha, "1", "lock:u", "tokA"}); got[0] != "(integer) 1" {
			t.Fatalf("EVALSHA answered %q", got)
		}
		settle(p)
		snap := p.Snapshot()
		if len(snap.Findings) != 0 {
			t.Errorf("findings %+v, want none: the holder's own script deleted the key, 10 s before its lease ran out", snap.Findings)
		}
		if st, ok := lockOf(snap, "lock:u"); !ok || st.Present() {
			t.Errorf("lock:u %+v, want absent", st)
		}
		saved, err := p.SaveLesson(context.Background(), SaveOptions{ID: "unknown-script"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range saved.Missing {
			found = found || strings.Contains(m, sha)
		}
		if !found {
			t.Errorf("saved's missing %q: want the release script %s named as never seen", saved.Missing, sha)
		}
	})
}
