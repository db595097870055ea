package sim_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

func branchRunner(t *testing.T, fencing bool) *sim.Runner {
	t.Helper()
	l := &sim.Lesson{ID: "b", Variant: "token-count", Lease: 30 * time.Second, Fencing: fencing, Lock: "lock", Seed: 7,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}}}
	r, err := sim.NewBranchRunner(l, refmodel.New(), sim.BranchOptions{Writes: true, Horizon: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// store is what a search store does: it holds whatever state the runner
// hands it. refmodel.Store ignores Prior, so Put it first.
type store struct{ m *refmodel.Store }

func (s store) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	for _, k := range b.Prior {
		s.m.Put(k)
	}
	return s.m.Exec(ctx, b)
}
func (s store) Advance(ctx context.Context, d time.Duration) error { return s.m.Advance(ctx, d) }

func extend(t *testing.T, r *sim.Runner, steps ...sim.Step) sim.Frame {
	t.Helper()
	var f sim.Frame
	for _, st := range steps {
		var err error
		if f, err = r.Extend(context.Background(), &st); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

var (
	acqA = sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: "lock"}
	relA = sim.Step{Actor: "A", Do: sim.ActRelease, Lock: "lock"}
	acqB = sim.Step{Actor: "B", Do: sim.ActAcquire, Lock: "lock"}
)

// Restoring a branch twice gives the same step twice, tokens included.
func TestBranchRestoreRepeats(t *testing.T) {
	l := &sim.Lesson{ID: "b", Variant: "token-count", Lease: 30 * time.Second, Lock: "lock", Seed: 7, Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}}}
	r, err := sim.NewBranchRunner(l, store{refmodel.New()}, sim.BranchOptions{Horizon: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	extend(t, r, acqA)
	b := r.Branch()
	first := extend(t, r, acqB, relA)
	r.Restore(b)
	again := extend(t, r, acqB, relA)
	if !reflect.DeepEqual(first, again) {
		t.Errorf("after Restore:\n%+v\nfirst:\n%+v", again, first)
	}
	if first.Index != 3 {
		t.Errorf("index %d, want 3", first.Index)
	}
}

// StateKey: tokens by identity, holds by order.
func TestStateKey(t *testing.T) {
	fencing := false
	key := func(steps ...sim.Step) string {
		r := branchRunner(t, fencing)
		if len(steps) > 0 {
			extend(t, r, steps...)
		}
		return r.StateKey(60_000)
	}
	root := key()
	if got := key(acqA, relA); got != root {
		t.Errorf("acquire+release is not back at the start:\n%s\nstart:\n%s", got, root)
	}
	// A second hold of A draws another token and another fencing token and
	// hold number: the same state by identity and order.
	fencing = true
	if a, b := key(acqA), key(acqA, relA, acqA); a != b {
		t.Errorf("a fresh hold differs by more than its token:\n%s\nvs\n%s", a, b)
	}
	if a, b := key(acqA), key(acqB); a == b {
		t.Errorf("A's hold and B's hold share a key:\n%s", a)
	}
	if a, b := key(acqA), key(acqA, sim.Step{Do: sim.ActAdvance, By: time.Second}); a == b {
		t.Error("a second off the lease changes nothing in the key")
	}
}
