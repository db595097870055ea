package explore_test

import (
	"path/filepath"
	"testing"

	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/sim"
)

// TestUnderRetellsWhenARenewalDiffers: lesson 16d (its own lock the
// watchdog, whose overdue renewal at step 8 answers GONE and leaves A
// believing, so that A writes as a stale owner at step 9) under the touch
// lock of examples/variants, whose extend answers 0, read as LOST, and
// ends A's belief there. Every step's outcome is the same (A's write at
// step 9 is ACCEPTED under both), yet the lesson's narration ("A, never
// told, writes as a stale owner") would contradict the run: the run
// differs at step 8 (explore.Differs: the renewal), and Under drops the
// narration of every step and the takeaway. At step 9 the runs differ by
// the stale-write the lesson's own lock breaks and touch does not.
func TestUnderRetellsWhenARenewalDiffers(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	l, err := sim.LoadFile(filepath.Join("..", "lessons", "16d-renewal-after-takeover.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	def, err := sim.LoadVariantFile(filepath.Join("..", "examples", "variants", "touch.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	own := run(t, be, l)
	lv, err := explore.AsLock(l, def)
	if err != nil {
		t.Fatal(err)
	}
	frames := run(t, be, lv)
	for i := 1; i < len(frames) && i < len(own); i++ {
		if frames[i].Outcome != own[i].Outcome {
			t.Fatalf("step %d: %s under touch, %s under its own lock: the test wants the same outcomes", i, frames[i].Outcome, own[i].Outcome)
		}
	}
	if d := explore.Differs(frames[8], own[8]); d != explore.DiffRenewal {
		t.Errorf("step 8: difference %d, want DiffRenewal (LOST against GONE)", d)
	}
	if got, want := explore.RenewalOutcomes(frames[8]), explore.RenewalOutcomes(own[8]); len(got) != 1 || got[0] != sim.Lost || len(want) != 1 || want[0] != sim.Gone {
		t.Errorf("step 8's renewals: %v under touch, %v under its own lock; want [LOST] and [GONE]", got, want)
	}
	if d := explore.Differs(frames[9], own[9]); d != explore.DiffViolations {
		t.Errorf("step 9: difference %d, want DiffViolations (stale-write under the lesson's own lock only)", d)
	}
	u, first := explore.Under(catalogtest.New(t), l, lv, frames, own)
	if first != 8 {
		t.Fatalf("first difference at step %d, want 8", first)
	}
	for i, st := range u.Steps {
		if st.Say != nil || st.Why != nil || st.Misconception != nil {
			t.Errorf("step %d keeps the lesson's narration under a run it contradicts", i+1)
		}
	}
	if u.Takeaway != nil {
		t.Error("the lesson's takeaway is kept")
	}
	if explore.Differs(own[8], own[8]) != explore.DiffNone || explore.FirstDiff(own, own) != 0 {
		t.Error("a run differs from itself")
	}
}
