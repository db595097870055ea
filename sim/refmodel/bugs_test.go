package refmodel_test

import (
	"context"
	"reflect"
	"testing"

	"time"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// multiCallBatch is two Execs on one store: the first caches
// hash-nil/acquire's script on the server; the second runs it again together
// with resource/write, which the server has not seen yet (NOSCRIPT).
func multiCallBatch(ctx context.Context, t *testing.T, s sim.Store, prior bool) sim.KeyState {
	t.Helper()
	read := []sim.KeyRef{{Name: "lock:M", Type: sim.TypeHash}, {Name: "resource:M", Type: sim.TypeHash}}
	acquire := sim.Call{Script: sim.ScriptByName("hash-nil/acquire"), Keys: []string{"lock:M"}, Args: []string{"t1", "60000"}}
	write := sim.Call{Script: sim.ScriptByName("resource/write"), Keys: []string{"resource:M"}, Args: []string{"paid", "A", "60000"}}
	b1 := &sim.Batch{Calls: []sim.Call{acquire}, Read: read}
	if prior {
		b1.Prior = []sim.KeyState{sim.Absent("lock:M"), sim.Absent("resource:M")}
	}
	r1, err := s.Exec(ctx, b1)
	if err != nil {
		t.Fatalf("first Exec: %v", err)
	}
	b2 := &sim.Batch{Calls: []sim.Call{acquire, write}, Read: read}
	if prior {
		b2.Prior = r1.Keys
	}
	r2, err := s.Exec(ctx, b2)
	if err != nil {
		t.Fatalf("second Exec: %v", err)
	}
	return r2.Keys[0]
}

// TestNoScriptResendRunsEachCallOnce: when a call of a multi-call batch gets
// NOSCRIPT, the store resends the whole transaction with EVAL; the calls
// before it had already run, and the restore of Prior at the head of the
// resend (on every store, embedded included) must undo them, so each call
// takes effect once. A Store's contract requires Prior to hold every run key.
func TestNoScriptResendRunsEachCallOnce(t *testing.T) {
	ctx := t.Context()
	want := multiCallBatch(ctx, t, refmodel.New(), true)
	if w, _ := want.Field("t1"); w != "2" {
		t.Fatalf("reference model: t1 = %s, want 2", w)
	}
	s := lessontest.Store(t, lessontest.Open(t, backend.Config{}))
	if got := multiCallBatch(ctx, t, s, true); !reflect.DeepEqual(got, want) {
		t.Errorf("embedded: lock after two acquires %+v, want %+v (the first call of the NOSCRIPT batch ran twice)", got, want)
	}
	srv := redistest.Start(t) // a fresh server has cached no script yet
	rs := lessontest.Store(t, lessontest.Open(t, backend.Config{URL: srv.URL}))
	if got := multiCallBatch(ctx, t, rs, true); !reflect.DeepEqual(got, want) {
		t.Errorf("redis-server: lock after two acquires %+v, want %+v", got, want)
	}
}

// subMillisecondLesson is a hand-built lesson whose lease is not a whole
// number of milliseconds: Load refuses it ("Redis leases count whole
// milliseconds"), and so does Validate for a step's own lease.
func subMillisecondLesson() *sim.Lesson {
	return &sim.Lesson{
		ID: "sub-ms", Variant: "local-count", Lease: 500 * time.Microsecond, Lock: "lock", Seed: 1,
		Actors: []sim.ActorSpec{{ID: "A"}},
		Steps:  []sim.Step{{Actor: "A", Do: sim.ActAcquire, Lock: "lock"}},
	}
}

// TestValidateRefusesSubMillisecondDurations: Redis leases count whole
// milliseconds, so Validate must refuse a lesson lease or an advance that is
// not one (else the lease would become "0" ms and SET ... PX 0 an error).
func TestValidateRefusesSubMillisecondDurations(t *testing.T) {
	l := subMillisecondLesson()
	if err := sim.Validate(l); err == nil {
		r, err := sim.NewRunner(l, refmodel.New())
		if err != nil {
			t.Fatalf("NewRunner: %v", err)
		}
		_, runErr := r.Run(t.Context())
		t.Errorf("Validate accepted lease %s (Load rejects it); Run then returned %v", l.Lease, runErr)
	}
	l = subMillisecondLesson()
	l.Lease = time.Second
	l.Steps = []sim.Step{{Do: sim.ActAdvance, By: 1500 * time.Microsecond}}
	if err := sim.Validate(l); err == nil {
		t.Errorf("Validate accepted advance by %s (Load rejects it; the runner would move the clock by 1ms)", l.Steps[0].By)
	}
}
