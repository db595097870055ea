//go:build unix

package classbus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
)

// TestRedisBusHungServer: a redis-server that stops answering without
// closing its connections (SIGSTOP) is found by the bus's PINGs; when it
// answers again the subscriptions made before end with ErrInterrupted and
// new ones work.
func TestRedisBusHungServer(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true,
		DialTimeout: time.Second, ReadTimeout: 500 * time.Millisecond, MaxRetries: 0})
	t.Cleanup(func() { c.Close() })
	bus := NewRedis(c, RedisOptions{HealthInterval: 200 * time.Millisecond})
	t.Cleanup(func() { bus.Close() })
	sub := subscribe(t, bus, "ABC")
	srv.Pause(t)
	eventually(t, "Err reports the hung connection", func() bool { return errors.Is(bus.Err(), ErrUnavailable) })
	if err := bus.Publish(context.Background(), "ABC", []byte("lost")); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Publish to a hung Redis: %v, want ErrUnavailable", err)
	}
	srv.Resume(t)
	if err := ended(t, sub); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("after the server answers again: %v, want ErrInterrupted", err)
	}
	eventually(t, "Err is nil again", func() bool { return bus.Err() == nil })
	sub = subscribe(t, bus, "ABC")
	if err := bus.Publish(context.Background(), "ABC", []byte("after")); err != nil {
		t.Fatal(err)
	}
	if m, _ := next(t, sub); string(m) != "after" {
		t.Fatalf("after the hang: %q", m)
	}
}
