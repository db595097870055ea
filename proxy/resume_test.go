package proxy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"lockstep/proxy"
)

// TestResume: a paused client's held command goes through when Resume
// ends the pause, long before its duration; the pause's end is traced
// once (the timer finds it ended); resuming a client that is not paused,
// or one that does not exist, is refused by name.
func TestResume(t *testing.T) {
	t.Parallel()
	p := startProxy(t, proxy.Config{Locks: "lock:*"})
	ctx := context.Background()
	c := client(t, p, "sleeper", 2)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := p.Resume("sleeper"); !errors.Is(err, proxy.ErrNotPaused) {
		t.Errorf("Resume of a running client = %v, want ErrNotPaused", err)
	}
	if err := p.Resume("nobody"); !errors.Is(err, proxy.ErrNoClient) {
		t.Errorf("Resume of no client = %v, want ErrNoClient", err)
	}
	// A pause as long as a test run: only Resume can end it in time.
	if err := p.Pause("sleeper", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.SetNX(ctx, "lock:r", "t", time.Minute).Err() }()
	if err := p.Resume("sleeper"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the SET after Resume: %v", err)
	}
	if err := p.Resume("sleeper"); !errors.Is(err, proxy.ErrNotPaused) {
		t.Errorf("a second Resume = %v, want ErrNotPaused", err)
	}
	snap := p.Snapshot()
	ends := faultEvents(snap, proxy.FaultPauseEnd)
	if len(ends) != 1 {
		t.Fatalf("pause-end events %+v, want one", ends)
	}
	for _, e := range snap.Events {
		if e.Command != nil && e.Command.Name == "SET" && e.Command.Sent.Before(ends[0].At) {
			t.Errorf("the SET was sent upstream at %v, before the pause ended at %v", e.Command.Sent, ends[0].At)
		}
	}
	// Paused again, the client can be resumed again: the old timer does
	// not end the new pause.
	if err := p.Pause("sleeper", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := p.Resume("sleeper"); err != nil {
		t.Fatal(err)
	}
}
