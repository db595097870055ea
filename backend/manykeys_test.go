package backend_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lockstep/internal/redistest"
	"lockstep/sim"
)

// manyLocks is a lesson in which one actor acquires n locks with fencing and
// writes under each: 3n keys, every one of them read at every step.
func manyLocks(n int) *sim.Lesson {
	l := &sim.Lesson{ID: "many-locks", Variant: "token-count", Lease: 30 * time.Second, Lock: "l0", Fencing: true, Seed: 3,
		Actors: []sim.ActorSpec{{ID: "A"}}}
	for i := range n {
		lock := fmt.Sprintf("l%d", i)
		l.Steps = append(l.Steps,
			sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: lock},
			sim.Step{Actor: "A", Do: sim.ActWrite, Lock: lock, Value: "v"})
	}
	return l
}

// TestEmbeddedManyKeys runs a lesson of 120 keys on the embedded backend,
// past the ~45 at which both ends of miniredis's unbuffered net.Pipe once
// blocked writing (hardening finding 1): the whole run finishes within the
// context's bound, and gives the frames of a real Redis.
func TestEmbeddedManyKeys(t *testing.T) {
	t.Parallel()
	l := manyLocks(40)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	be := openBackend(t, "")
	r, _ := newRunner(t, be, l)
	if n := len(r.Keys()); n != 120 {
		t.Fatalf("want 120 keys, got %d", n)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("embedded run of 120 keys: %v", err)
	}
	if last := frames[len(frames)-1]; last.Outcome != sim.Accepted {
		t.Fatalf("last write: %s", last.Outcome)
	}
	real, _ := run(t, openBackend(t, redistest.Start(t).URL), l, nil)
	if a, b := sim.FormatFrames(frames, sim.English), sim.FormatFrames(real, sim.English); a != b {
		t.Fatalf("frames of 120 keys differ between embedded and real Redis:\n%s\n---\n%s", a, b)
	}
}

// TestRealManyLocks runs 200 locks (600 keys) on a real Redis. Each step's
// transaction restores and reads only the keys its calls name, so it stays
// small however many keys the run has; restoring all of them once made
// the tries of step 68 of a 100-lock run straddle a server millisecond, and
// of 300 locks every try of step 1 (hardening finding 3).
func TestRealManyLocks(t *testing.T) {
	t.Parallel()
	l := manyLocks(200)
	frames, store := run(t, openBackend(t, redistest.Start(t).URL), l, nil)
	if len(frames) != len(l.Steps)+1 {
		t.Fatalf("%d frames for %d steps", len(frames), len(l.Steps))
	}
	for i, f := range frames[1:] {
		if want := []sim.Outcome{sim.Acquired, sim.Accepted}[i%2]; f.Outcome != want {
			t.Fatalf("step %d: want %s, got %s", i+1, want, f.Outcome)
		}
	}
	if err := store.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
