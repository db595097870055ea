package proxy_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"lockstep/proxy"
)

// TestChooseLocks: without -locks every suggested key is a lock until the
// page ticks some; then only those keep their values and lock states.
func TestChooseLocks(t *testing.T) {
	t.Parallel()
	p := startProxy(t, proxy.Config{})
	ctx := context.Background()
	c := client(t, p, "app", 2)
	for _, k := range []string{"lock:a", "job:b"} {
		if err := c.SetNX(ctx, k, "tok", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	snap := p.Snapshot()
	if snap.Suggested["lock:a"] != "set-nx" || snap.Suggested["job:b"] != "set-nx" || len(snap.Chosen) != 0 {
		t.Fatalf("suggested %v, chosen %v", snap.Suggested, snap.Chosen)
	}
	if err := p.ChooseLocks([]string{"lock:x"}); !errors.Is(err, proxy.ErrNotSuggested) {
		t.Fatalf("ChooseLocks(never suggested) = %v, want ErrNotSuggested", err)
	}
	if err := p.ChooseLocks([]string{"lock:a"}); err != nil {
		t.Fatal(err)
	}
	if got := p.Snapshot().Chosen; !slices.Equal(got, []string{"lock:a"}) {
		t.Fatalf("chosen = %v", got)
	}
	if err := c.Set(ctx, "job:b", "secret", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "lock:a", "tok2", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	var jobArgs, lockArgs []string
	for _, e := range p.Snapshot().Events {
		if e.Kind == proxy.EventCommand && e.Command.Name == "SET" && len(e.Command.Args) > 2 {
			switch e.Command.Args[1] {
			case "job:b":
				jobArgs = e.Command.Args
			case "lock:a":
				lockArgs = e.Command.Args
			}
		}
	}
	if jobArgs == nil || jobArgs[2] != proxy.Redacted {
		t.Errorf("SET job:b after unticking: args %q, want the value redacted", jobArgs)
	}
	if lockArgs == nil || lockArgs[2] != "tok2" {
		t.Errorf("SET lock:a: args %q, want the value kept", lockArgs)
	}
	if err := p.ChooseLocks(nil); err != nil || len(p.Snapshot().Chosen) != 0 {
		t.Fatalf("ChooseLocks(nil) = %v, chosen %v", err, p.Snapshot().Chosen)
	}

	fixed := startProxy(t, proxy.Config{Locks: "lock:*"})
	if err := fixed.ChooseLocks([]string{"lock:a"}); !errors.Is(err, proxy.ErrLocksFixed) {
		t.Fatalf("ChooseLocks with -locks = %v, want ErrLocksFixed", err)
	}
}
