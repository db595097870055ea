package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

func watchdogAdvance(lease, by time.Duration) *sim.Lesson {
	return &sim.Lesson{ID: "watchdog-flood", Variant: "watchdog", Lease: lease, Lock: "lock", Seed: 1,
		Actors: []sim.ActorSpec{{ID: "A"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Do: sim.ActAdvance, By: by},
		}}
}

// countingStore counts the batches a run sends.
type countingStore struct {
	sim.Store
	batches int
}

func (c *countingStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	c.batches++
	return c.Store.Exec(ctx, b)
}

// TestWatchdogRenewalBound: a 3 ms watchdog lease advanced by 7 days would
// renew every 3 ms (hardening finding 2). The step is refused before it
// sends anything, with a *LimitError naming the bound, and the run is as
// before the step; an advance within the bound runs every renewal.
func TestWatchdogRenewalBound(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{Store: refmodel.New()}
	r, err := sim.NewRunner(watchdogAdvance(3*time.Millisecond, 7*24*time.Hour), store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	sent := store.batches
	_, err = r.Step(ctx)
	var le *sim.LimitError
	if !errors.Is(err, sim.ErrStepTooLarge) || !errors.As(err, &le) {
		t.Fatalf("want a LimitError, got %v", err)
	}
	if le.Code != sim.LimitRenewals || le.Max != sim.MaxRenewalsPerStep || le.Want <= le.Max {
		t.Fatalf("limit error: %+v", le)
	}
	if store.batches != sent || len(r.Frames()) != 2 || r.Done() {
		t.Fatalf("a refused step sent %d batches and left %d frames", store.batches-sent, len(r.Frames()))
	}

	// 1 ms renewals for 999 ms: 999 renewals, within the bound.
	frames, _ := runFrames(t, watchdogAdvance(3*time.Millisecond, 999*time.Millisecond), refmodel.New())
	if n := len(frames[2].Calls); n != 999 {
		t.Fatalf("want 999 renewals, got %d", n)
	}
	// One more renewal is over it.
	r2, err := sim.NewRunner(watchdogAdvance(3*time.Millisecond, 1001*time.Millisecond), refmodel.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Run(ctx); !errors.Is(err, sim.ErrStepTooLarge) {
		t.Fatalf("1001 renewals: want ErrStepTooLarge, got %v", err)
	}
}
