package examples_test

import (
	"testing"

	"lockstep/explore"
	"lockstep/sim"
)

// TestCountKeyFencedSameFrames: lesson 03a (fencing tokens) under the
// count-key lock, on both backends, 40 times. The step that acquires runs
// the user's script on the step's clock (backend/vclock.go) and the
// built-in fencing counter's script beside it; a fresh-eyes review of
// issue 33 saw the counter's PTTL read 1 ms high on redis-server in 3 of
// 12 runs (the built-in script set its lease in a later millisecond than
// the step's). Every run's frames must equal the embedded Redis's.
func TestCountKeyFencedSameFrames(t *testing.T) {
	def, err := sim.LoadVariantFile(own("count-key.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sim.LoadFile("../lessons/03a-stale-owner.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !l.Fencing {
		t.Fatal("lesson 03a has no fencing; the test proves nothing")
	}
	lv, err := explore.AsLock(l, def)
	if err != nil {
		t.Fatal(err)
	}
	bes := backends(t)
	want := framesJSON(t, bes[0], lv)
	for i := 0; i < 40; i++ {
		for _, be := range bes {
			if got := framesJSON(t, be, lv); got != want {
				t.Fatalf("run %d on %s: frames differ from the first run's on %s", i, be.Info(), bes[0].Info())
			}
		}
	}
}
