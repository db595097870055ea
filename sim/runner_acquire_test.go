package sim_test

import (
	"testing"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// TestAcquireNested checks seed 001's nested_acquire (step field nested):
// without a grant token in the context it answers NOT_OWNER and sends
// nothing; with one it is a nested acquire like any other.
func TestAcquireNested(t *testing.T) {
	t.Parallel()
	frames := runChecked(t, "nested.yaml", `
variant: token-count
lease: 30s
actors: [{id: A}]
steps:
  - {actor: A, do: fork, child: A2, context: lost}
  - {actor: A2, do: acquire, nested: true, expect: NOT_OWNER}
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: A, do: fork, child: A1, context: inherit}
  - {actor: A1, do: acquire, nested: true, expect: REENTERED}
  - {actor: A2, do: acquire, nested: true, expect: NOT_OWNER}
`)
	for _, i := range []int{2, 6} {
		if f := frames[i]; len(f.Calls) != 0 || !f.Step.Nested {
			t.Errorf("step %d: a nested acquire without a token made calls %v (nested %v)", i, f.Calls, f.Step.Nested)
		}
	}
	if got := lockOf(frames[6], "lock"); got.Count != 2 {
		t.Errorf("step 6 changed the lock: count %d, want 2", got.Count)
	}
}

// TestAcquireReplyLost checks reply_lost on acquire: Redis runs the call,
// the client sees TIMED_OUT and believes nothing new, and its next acquire
// is an ordinary one. Under the token design the retry draws a fresh token
// and is BUSY on its own lock; under a Hash of context ids it re-enters a
// hold the client never knew it had, and the counts disagree.
func TestAcquireReplyLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		variant string
		retry   sim.Outcome
		inv     string
	}{
		{"token-count", sim.Busy, ""},
		{"hash-refresh", sim.Reentered, sim.InvCountMismatch},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			frames := runChecked(t, "lost.yaml", `
variant: `+tc.variant+`
lease: 30s
actors: [{id: A}]
steps:
  - {actor: A, do: acquire, reply_lost: true, expect: TIMED_OUT}
  - {actor: A, do: acquire, expect: `+string(tc.retry)+`}
`)
			f1 := frames[1]
			if len(f1.Calls) != 1 || f1.Calls[0].Outcome != sim.Acquired {
				t.Fatalf("step 1: calls %+v, want the acquire Redis ran (ACQUIRED)", f1.Calls)
			}
			if lk := lockOf(f1, "lock"); lk.State != sim.HeldOnce || len(lk.Holders) != 0 {
				t.Errorf("step 1: lock %+v, want held once with no actor believing it holds it", lk)
			}
			if h := f1.Actors[0].Holds; len(h) != 0 {
				t.Errorf("step 1: A believes %+v after a lost reply", h)
			}
			if got := hasViolation(frames[2], sim.InvCountMismatch); got != (tc.inv != "") {
				t.Errorf("step 2: count-mismatch reported %v, want %v", got, tc.inv != "")
			}
		})
	}
}

// runChecked loads lesson src (named file) and runs it on the reference
// model, failing t on a load or run error and on every failed expectation.
func runChecked(t *testing.T, file, src string) []sim.Frame {
	t.Helper()
	frames, r := runFrames(t, mustLoad(t, file, src), refmodel.New())
	for _, f := range r.Failures() {
		t.Error(f)
	}
	return frames
}

func lockOf(f sim.Frame, name string) sim.LockView {
	for _, l := range f.Locks {
		if l.Name == name {
			return l
		}
	}
	return sim.LockView{}
}
