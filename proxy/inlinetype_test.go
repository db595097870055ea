package proxy_test

import (
	"context"
	"testing"
	"time"

	"lockstep/proxy"
)

// TestInlineReadTypes: the read after a command on a lock key asks no
// TYPE (MULTI PTTL GET HGETALL EXEC); the state after each command still
// has the key's type and contents: a String's value and PTTL, a Hash's
// fields, a key absent, and a key of another type (a list: neither GET
// nor HGETALL reads it), read again with TYPE by the lock reader.
func TestInlineReadTypes(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, proxy.Config{RedisURL: up(t), Locks: "lock:*"})
			c := client(t, p, "app", 2)
			ctx := context.Background()
			steps := []struct {
				name string
				run  func() error
				want func(st proxy.LockState) bool
			}{
				{"SET then PEXPIRE of a String", func() error {
					if err := c.Set(ctx, "lock:s", "v1", 0).Err(); err != nil {
						return err
					}
					return c.PExpire(ctx, "lock:s", 50*time.Second).Err()
				}, func(st proxy.LockState) bool {
					return st.Type == "string" && st.Value == "v1" && st.PTTL > 0 && st.PTTL <= 50000
				}},
				{"HSET of a Hash", func() error { return c.HSet(ctx, "lock:h", "owner", "x", "count", "2").Err() },
					func(st proxy.LockState) bool {
						return st.Type == "hash" && len(st.Fields) == 2 && st.Fields["owner"] == "x" && st.Fields["count"] == "2" && st.PTTL == -1
					}},
				{"DEL of the Hash", func() error { return c.Del(ctx, "lock:h").Err() },
					func(st proxy.LockState) bool { return st.Type == "none" && !st.Present() && st.PTTL == -2 }},
				{"RPUSH of a list", func() error { return c.RPush(ctx, "lock:l", "a").Err() },
					func(st proxy.LockState) bool { return st.Type == "list" && st.PTTL == -1 }},
			}
			for _, step := range steps {
				if err := step.run(); err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				var last uint64 // the step's last command: traced before its reply
				for _, e := range p.Snapshot().Events {
					if e.Kind == proxy.EventCommand && len(e.Command.Locks) > 0 {
						last = e.Seq
					}
				}
				var got *proxy.LockState
				eventually(t, "the lock state after "+step.name, func() bool {
					for _, e := range p.Snapshot().Events {
						if e.Kind == proxy.EventLock && e.Lock.Cause == last {
							got = e.Lock
						}
					}
					return got != nil
				})
				if !step.want(*got) {
					t.Errorf("%s: state %+v", step.name, *got)
				}
			}
		})
	}
}
