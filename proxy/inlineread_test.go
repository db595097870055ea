package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestReleaseReadBeforeNextAcquire: the state after a release is what
// the release left, however late the lock reader is: a client releases
// (a script, so its state is not known from its arguments) and at once
// acquires again, while the lock reader is held up. Read by the lock
// reader's own connection, the release's state showed the next acquire's
// hold, which the saved lesson then read as REENTERED
// (internal/realclients.TestProxyRedlockLostUnlockReply, now and then
// under load); read right after it on its own connection, it is absent.
func TestReleaseReadBeforeNextAcquire(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{true, false} {
		p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		ctx := context.Background()
		opt := &redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, Protocol: 2, DisableIdentity: true}
		if !shared {
			opt.ClientName = "own" // CLIENT SETNAME: its own upstream connection
		}
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		p.an.handMu.Lock() // the analyzer stops: every command is queued for it
		steps := []func() error{
			func() error { return c.SetNX(ctx, "lock:a", "tok1", time.Minute).Err() },
			func() error { return c.Eval(ctx, releaseLua, []string{"lock:a"}, "tok1").Err() },
			func() error { return c.SetNX(ctx, "lock:a", "tok2", time.Minute).Err() },
		}
		for _, f := range steps {
			if err := f(); err != nil {
				p.an.handMu.Unlock()
				t.Fatal(err)
			}
		}
		p.an.handMu.Unlock()
		var release uint64
		deadline := time.Now().Add(10 * time.Second)
		for {
			var after *LockState
			for _, e := range p.Snapshot().Events {
				if e.Kind == EventCommand && e.Command.Name == "EVAL" {
					release = e.Seq
				}
				if e.Kind == EventLock && release != 0 && e.Lock.Cause == release {
					after = e.Lock
				}
			}
			if after != nil {
				if after.Present() {
					t.Errorf("shared %v: the release's state %+v, want the key absent (the next acquire's hold read as the release's)", shared, *after)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("shared %v: no lock state after the release", shared)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestInlineReadKeepsWatch: a lock key read while the client watches keys
// is not read on its connection (the read's EXEC would end the client's
// WATCH): a transaction after another client changed the watched key
// still fails, as it does on Redis directly.
func TestInlineReadKeepsWatch(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx := context.Background()
	opt := &redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, Protocol: 2, DisableIdentity: true}
	a, b := redis.NewClient(opt), redis.NewClient(opt)
	t.Cleanup(func() { a.Close(); b.Close() })
	err = a.Watch(ctx, func(tx *redis.Tx) error {
		if err := tx.Get(ctx, "lock:w").Err(); err != nil && err != redis.Nil {
			return err
		}
		if err := b.Set(ctx, "lock:w", "b", time.Minute).Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, "lock:w", "a", time.Minute)
			return nil
		})
		return err
	}, "lock:w")
	if err != redis.TxFailedErr {
		t.Errorf("the transaction after another client's SET of the watched key: %v, want %v", err, redis.TxFailedErr)
	}
	if v, err := b.Get(ctx, "lock:w").Result(); err != nil || v != "b" {
		t.Errorf("lock:w is %q (%v), want b's", v, err)
	}
}
