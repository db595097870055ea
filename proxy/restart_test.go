package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRestartNoObserverBehind: after RestartUpstream the lock reader's
// connection, which died with the old embedded Redis, is dialed again
// before it reads: no observer-behind fault (error EOF) that no one
// injected, at the restart's reads or at the next command on a lock key.
func TestRestartNoObserverBehind(t *testing.T) {
	t.Parallel()
	p := startOn(t, false, Config{Locks: "lock:*"})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { c.Close() })
	if err := c.SetNX(ctx, "lock:a", "token-1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	settle(p)
	p.an.fault(ctx, Event{}, []string{"lock:a"}) // the lock reader reads, on its own connection
	for range 2 {
		if err := p.RestartUpstream(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, "lock:a").Result(); err != redis.Nil {
			t.Fatalf("GET lock:a after the restart: %q, %v; want nil", v, err)
		}
		if err := c.SetNX(ctx, "lock:a", "token-2", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		settle(p)
	}
	restarts := 0
	for _, e := range p.Snapshot().Events {
		if e.Kind != EventFault {
			continue
		}
		switch e.Fault.Kind {
		case FaultRestart:
			restarts++
		case FaultObserverBehind:
			t.Errorf("an observer-behind fault after a restart: %+v, error %q", *e.Fault, e.Error)
		}
	}
	if restarts != 2 {
		t.Errorf("%d restart events, want 2", restarts)
	}
}
