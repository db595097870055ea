package proxy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"lockstep/proxy"
	"lockstep/sim"

	"github.com/redis/go-redis/v9"
)

// TestSaveReleaseByAnotherConnection: a hold that expired, a second
// acquire, and a release of the second hold sent on a third connection
// with the holder's token. The saved lesson says what it cannot express
// and replays with the same outcomes on the embedded Redis.
func TestSaveReleaseByAnotherConnection(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := up(t)
			p := startProxy(t, proxy.Config{RedisURL: url})
			ctx := context.Background()
			a, b, c := client(t, p, "a", 2), client(t, p, "b", 3), client(t, p, "c", 2)
			if !a.SetNX(ctx, "lock:o", "tokA", 100*time.Millisecond).Val() {
				t.Fatal("a")
			}
			eventually(t, "expiry", func() bool { return len(findings(p.Snapshot(), proxy.FindingLeaseExpired)) == 1 })
			if !b.SetNX(ctx, "lock:o", "tokB", time.Minute).Val() {
				t.Fatal("b")
			}
			if n, _ := c.Eval(ctx, releaseScript, []string{"lock:o"}, "tokB").Int(); n != 1 {
				t.Fatal("c's release")
			}
			eventually(t, "release-by-other", func() bool { return len(findings(p.Snapshot(), proxy.FindingReleaseByOther)) == 1 })
			saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: "other"})
			if err != nil {
				t.Fatal(err)
			}
			if len(saved.Missing) != 1 || !strings.Contains(saved.Missing[0], "released the hold") {
				t.Errorf("missing %v", saved.Missing)
			}
			proxy.ReplaySaved(t, saved, url)
		})
	}
}

// TestSaveWithoutReleaseReplays: clients that acquired and let their
// leases run out, with no release the proxy saw, save a variant whose
// release is a placeholder that says so: the lesson loads and replays
// (before, the variant had no release section and did not load:
// `missing required field "release"`), and the save says what is missing.
func TestSaveWithoutReleaseReplays(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := up(t)
			p := startProxy(t, proxy.Config{RedisURL: url})
			ctx := context.Background()
			a, b := client(t, p, "a", 2), client(t, p, "b", 2)
			if !a.SetNX(ctx, "lock:n", "tokA", 100*time.Millisecond).Val() {
				t.Fatal("a")
			}
			eventually(t, "expiry", func() bool { return len(findings(p.Snapshot(), proxy.FindingLeaseExpired)) == 1 })
			if !b.SetNX(ctx, "lock:n", "tokB", 100*time.Millisecond).Val() {
				t.Fatal("b")
			}
			saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: "norelease"})
			if err != nil {
				t.Fatal(err)
			}
			said := false
			for _, m := range saved.Missing {
				said = said || strings.Contains(m, "no release was seen")
			}
			if !said {
				t.Errorf("missing %q: want the absent release said", saved.Missing)
			}
			proxy.ReplaySaved(t, saved, url)
		})
	}
}

// Redisson-style scripts (a Hash of owner to hold count; nil on success,
// the PTTL when busy), in this test's own words.
const (
	hashAcquire = `if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])`
	hashRelease = `if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then return nil end
local n = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if n > 0 then redis.call('pexpire', KEYS[1], ARGV[1]) return 0 end
redis.call('del', KEYS[1])
return 1`
)

// TestSaveHashLockBusyReplays: a Redisson-style lock whose acquire answers
// a busy lock with its PTTL. The saved variant maps those integers to BUSY
// as a pattern, so a replay's other PTTL still means BUSY (before, it kept
// the values the trace saw, 30000 and 29994, and the replay stopped on its
// own: "replied (integer) 29991, which this reply map does not list"), and
// the re-entering acquire keeps the lease the client sent (it was saved as
// the PTTL read after it, 29995 ms). On a redis-server only: miniredis
// serves each connection in a goroutine of its own, so the read the proxy
// sends right after a's last release (inlineread.go) may run after b's
// acquire on another connection, and the analyzer then sees b's acquire
// take a hold that had not ended (lease-expired and overlap, in about one
// run of four); a redis-server runs a connection's pipeline whole.
func TestSaveHashLockBusyReplays(t *testing.T) {
	for name, up := range map[string]func(t *testing.T) string{"redis-server": upstreams(t)["redis-server"]} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := up(t)
			p := startProxy(t, proxy.Config{RedisURL: url})
			ctx := context.Background()
			a, b := client(t, p, "a", 2), client(t, p, "b", 2)
			acquire := func(c *redis.Client, owner string) (int64, bool) {
				n, err := c.Eval(ctx, hashAcquire, []string{"lock:h"}, 30000, owner).Int64()
				if errors.Is(err, redis.Nil) {
					return 0, true
				}
				if err != nil {
					t.Fatal(err)
				}
				return n, false
			}
			release := func(c *redis.Client, owner string) {
				if err := c.Eval(ctx, hashRelease, []string{"lock:h"}, 30000, owner).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok := acquire(a, "u1:1"); !ok {
				t.Fatal("a")
			}
			time.Sleep(5 * time.Millisecond)
			if _, ok := acquire(a, "u1:1"); !ok {
				t.Fatal("a again")
			}
			for range 2 {
				time.Sleep(5 * time.Millisecond)
				if pttl, ok := acquire(b, "u2:1"); ok || pttl <= 0 {
					t.Fatalf("b: %d %v, want busy with a PTTL", pttl, ok)
				}
			}
			release(a, "u1:1")
			// Its reply 0 took one hold of two: the lock shows a count of
			// 1 (it was kept at 2, the 0 read as "not owner").
			eventually(t, "a's count of 1", func() bool {
				for _, l := range p.Snapshot().Redis.Locks {
					if l.Key == "lock:h" && l.Fields["u1:1"] == "1" {
						return true
					}
				}
				return false
			})
			release(a, "u1:1")
			if _, ok := acquire(b, "u2:1"); !ok {
				t.Fatal("b after a's releases")
			}
			eventually(t, "b's hold", func() bool {
				for _, l := range p.Snapshot().Redis.Locks {
					if l.Key == "lock:h" && l.Holder != "" {
						return true
					}
				}
				return false
			})
			saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: "hash"})
			if err != nil {
				t.Fatal(err)
			}
			l := proxy.ReplaySaved(t, saved, url)
			for i, st := range l.Steps {
				if st.Do == sim.ActAcquire && st.Lease != 0 && st.Lease != 30*time.Second {
					t.Errorf("step %d: lease %s, want the 30s the client sent", i+1, st.Lease)
				}
			}
			if l.Lease != 30*time.Second {
				t.Errorf("the lesson's lease %s, want 30s", l.Lease)
			}
		})
	}
}
