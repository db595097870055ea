package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// runFrames runs l on s to the end, failing the test on a run error.
func runFrames(t *testing.T, l *sim.Lesson, s sim.Store) ([]sim.Frame, *sim.Runner) {
	t.Helper()
	r, err := sim.NewRunner(l, s)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return frames, r
}

// key returns the frame's key name (or, with replica, the replica's).
func key(t *testing.T, f sim.Frame, name string, replica bool) sim.KeyState {
	t.Helper()
	keys := f.Keys
	if replica {
		keys = f.Replica
	}
	for _, k := range keys {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("frame %d has no key %s (replica %v)", f.Index, name, replica)
	return sim.KeyState{}
}

func hasViolation(f sim.Frame, name string) bool {
	for _, v := range f.Violations {
		if v.Name == name {
			return true
		}
	}
	return false
}

// TestRunFailoverLesson runs lesson 20 on the reference model and checks
// what the learner must see: the replica missing A's unreplicated acquire,
// the lock Idle after the failover while A still believes, and B's acquire
// breaking mutual exclusion.
func TestRunFailoverLesson(t *testing.T) {
	l, err := sim.LoadFile("../lessons/20-failover.yaml")
	if err != nil {
		t.Fatal(err)
	}
	frames, r := runFrames(t, l, refmodel.New())
	for _, f := range r.Failures() {
		t.Error(f)
	}
	if frames[0].Replica == nil {
		t.Error("frame 0 of a lesson with a replica shows no replica")
	}
	// Step 4: A's acquire is on the primary only.
	f4 := frames[4]
	if !f4.Step.Unreplicated || !key(t, f4, "lock:order:42", false).Exists() || key(t, f4, "lock:order:42", true).Exists() {
		t.Errorf("step 4: want the lock on the primary only; primary %v, replica %v", f4.Keys, f4.Replica)
	}
	if a, b := key(t, f4, "fence:order:42", false).Value, key(t, f4, "fence:order:42", true).Value; a != "2" || b != "1" {
		t.Errorf("step 4: fencing counter %s on the primary, %s on the replica; want 2 and 1", a, b)
	}
	// Step 5: the failover.
	f5 := frames[5]
	if f5.Replica != nil {
		t.Errorf("step 5: the promoted replica is no replica any more, yet the frame shows %v", f5.Replica)
	}
	lv := f5.Locks[0]
	if lv.State != sim.Idle || lv.Transition == nil || lv.Transition.ID != sim.OffDiagram {
		t.Errorf("step 5: lock %+v, want idle by an off-diagram transition", lv)
	}
	a := f5.Actors[0]
	if a.ID != "A" || len(a.Holds) != 1 || a.Holds[0].Count != 1 || a.Holds[0].InRedis {
		t.Errorf("step 5: A %+v, want a belief in one hold that Redis does not keep", a)
	}
	if v := key(t, f5, "fence:order:42", false).Value; v != "1" {
		t.Errorf("step 5: fencing counter %s, want the replica's 1", v)
	}
	// Step 6: B acquires on the promoted replica.
	f6 := frames[6]
	if f6.Outcome != sim.Acquired || !hasViolation(f6, sim.InvOverlappingHolders) {
		t.Errorf("step 6: %s, violations %v; want ACQUIRED with overlapping-holders", f6.Outcome, f6.Violations)
	}
}

// replicaSteps is a lesson with a replica on token-count, lease 10 s.
func replicaSteps(steps ...sim.Step) *sim.Lesson {
	for i := range steps {
		if steps[i].Lock == "" && steps[i].Do != sim.ActAdvance && steps[i].Do != sim.ActClockJump && steps[i].Do != sim.ActFailover {
			steps[i].Lock = "lock"
		}
	}
	return &sim.Lesson{ID: "replica", Variant: "token-count", Lease: 10 * time.Second, Lock: "lock", Replica: true, Seed: 3,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}}, Steps: steps}
}

// replicaScenarios are lessons with a replica that exercise what the replica
// keeps and what the failover loses.
var replicaScenarios = map[string]*sim.Lesson{
	// A later replicated write carries the earlier unreplicated one along.
	"catch-up": replicaSteps(
		sim.Step{Actor: "A", Do: sim.ActAcquire, Unreplicated: true},
		sim.Step{Actor: "A", Do: sim.ActAcquire},
		sim.Step{Do: sim.ActFailover},
		sim.Step{Actor: "A", Do: sim.ActRelease},
		sim.Step{Actor: "A", Do: sim.ActRelease},
	),
	// An unreplicated release: the promoted replica brings the hold back.
	"resurrect": replicaSteps(
		sim.Step{Actor: "A", Do: sim.ActAcquire},
		sim.Step{Actor: "A", Do: sim.ActRelease, Unreplicated: true},
		sim.Step{Do: sim.ActFailover},
		sim.Step{Actor: "B", Do: sim.ActAcquire},
	),
	// Time runs on the replica too: its older lease ends first.
	"decay": replicaSteps(
		sim.Step{Actor: "A", Do: sim.ActAcquire},
		sim.Step{Do: sim.ActAdvance, By: 4 * time.Second},
		sim.Step{Actor: "A", Do: sim.ActAcquire, Unreplicated: true},
		sim.Step{Do: sim.ActClockJump, By: 3 * time.Second},
		sim.Step{Do: sim.ActAdvance, By: 4 * time.Second},
		sim.Step{Do: sim.ActFailover},
		sim.Step{Actor: "A", Do: sim.ActAcquire},
		sim.Step{Actor: "B", Do: sim.ActAcquire},
	),
}

// TestRunReplicaScenarios checks the replica's state through catch-up,
// lost releases and passing time, on the reference model.
func TestRunReplicaScenarios(t *testing.T) {
	t.Run("catch-up", func(t *testing.T) {
		frames, _ := runFrames(t, replicaScenarios["catch-up"], refmodel.New())
		if f := frames[2]; key(t, f, "lock:lock", true).Fields[0].Value != "2" {
			t.Errorf("step 2: the replica holds %v, want count 2", f.Replica)
		}
		f := frames[3]
		if f.Locks[0].State != sim.HeldMany || len(f.Locks[0].Holders) != 1 || f.Locks[0].Transition != nil {
			t.Errorf("failover after catching up: lock %+v, want A's hold unchanged", f.Locks[0])
		}
		if frames[5].Outcome != sim.Released {
			t.Errorf("last release: %s", frames[5].Outcome)
		}
	})
	t.Run("resurrect", func(t *testing.T) {
		frames, r := runFrames(t, replicaScenarios["resurrect"], refmodel.New())
		f := frames[3]
		if f.Locks[0].State != sim.HeldOnce || len(f.Locks[0].Holders) != 0 || f.Locks[0].Transition == nil || f.Locks[0].Transition.ID != sim.OffDiagram {
			t.Errorf("failover: lock %+v, want A's released hold back, believed by nobody", f.Locks[0])
		}
		if frames[4].Outcome != sim.Busy {
			t.Errorf("B's acquire on the resurrected hold: %s, want BUSY", frames[4].Outcome)
		}
		if len(r.Failures()) != 0 {
			t.Error(r.Failures())
		}
	})
	t.Run("decay", func(t *testing.T) {
		frames, _ := runFrames(t, replicaScenarios["decay"], refmodel.New())
		if k := key(t, frames[2], "lock:lock", true); k.PTTL != 6000 {
			t.Errorf("after 4 s the replica's lease has %d ms, want 6000", k.PTTL)
		}
		if k := key(t, frames[4], "lock:lock", true); k.PTTL != 3000 {
			t.Errorf("after the clock jump the replica's lease has %d ms, want 3000", k.PTTL)
		}
		f := frames[5]
		if !key(t, f, "lock:lock", false).Exists() || key(t, f, "lock:lock", true).Exists() {
			t.Errorf("after 11 s: primary %v, replica %v; want the lease alive on the primary only", f.Keys, f.Replica)
		}
		if frames[6].Locks[0].State != sim.Idle || frames[7].Outcome != sim.Lost || frames[8].Outcome != sim.Acquired {
			t.Errorf("after the failover: %s, %s, %s; want idle, LOST, ACQUIRED", frames[6].Locks[0].State, frames[7].Outcome, frames[8].Outcome)
		}
	})
}

// flakyStore fails the failover batch once, after the model has done it.
type flakyStore struct {
	*refmodel.Store
	failed bool
}

var errFlaky = errors.New("connection lost")

func (s *flakyStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	if b.Replica == sim.Failover && !s.failed {
		s.failed = true
		return nil, errFlaky
	}
	return s.Store.Exec(ctx, b)
}

// TestRunFailoverRetry: a failover step whose batch fails leaves the runner
// as it was (the replica's state included), and trying again gives the frames
// of a run that never failed.
func TestRunFailoverRetry(t *testing.T) {
	l := replicaScenarios["resurrect"]
	want, _ := runFrames(t, l, refmodel.New())
	r, err := sim.NewRunner(l, &flakyStore{Store: refmodel.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 2 {
		if _, err := r.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Step(ctx); !errors.Is(err, errFlaky) {
		t.Fatalf("failover on a failing store: %v", err)
	}
	got, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English); a != b {
		t.Errorf("frames after a retried failover differ:\n%s\n---\n%s", a, b)
	}
}
