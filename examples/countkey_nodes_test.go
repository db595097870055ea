package examples_test

import (
	"errors"
	"testing"

	"lockstep/explore"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// TestCountKeyOnNodes: lesson 20b (Redlock, three nodes) under the
// count-key lock, whose hold count lives in a second key. Each node's
// count is read from that node's keys, so A's first acquire, which makes
// the count 1 on nodes 1 and 2, is ACQUIRED (it read as REENTERED, from
// the majority's view before the step) and the lock key is shown held by A;
// B's acquire after node 2's restart wins a majority, ACQUIRED too. The
// same on both backends.
func TestCountKeyOnNodes(t *testing.T) {
	def, err := sim.LoadVariantFile(own("count-key.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sim.LoadFile("../lessons/20b-redlock-restart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lv, err := explore.AsLock(l, def)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, be := range backends(t) {
		frames, _ := lessontest.Run(t, be, lv)
		if len(frames) < 5 {
			t.Fatalf("%s: %d frames", be.Info(), len(frames))
		}
		for _, step := range []int{1, 4} {
			if frames[step].Outcome != sim.Acquired {
				t.Errorf("%s: step %d reads %s, want ACQUIRED", be.Info(), step, frames[step].Outcome)
			}
		}
		if k, ok := keyIn(frames[1], "lock:order:42"); !ok || !k.Exists() {
			t.Errorf("%s: step 1 shows the lock key %+v, want it held by A on a majority", be.Info(), k)
		}
		if k, _ := keyIn(frames[1], "lock:order:42:count"); k.Value != "1" {
			t.Errorf("%s: step 1 shows the count key %+v, want 1", be.Info(), k)
		}
		runs = append(runs, framesJSON(t, be, lv))
	}
	if runs[0] != runs[1] {
		t.Error("the backends' frames differ")
	}
}

// TestCountKeyNeverWritten: a variant file that declares a count key
// (lock.count) its scripts never write; its acquire replies held. The run
// stops at the first acquire with an error that names the declaration
// (line 5, column 8 of the file: lock.count) and the count key, on both
// backends, where the step once read as a silent REENTERED.
func TestCountKeyNeverWritten(t *testing.T) {
	l := lessonOn(t, mustRead(t, own("count-unwritten.variant.yaml")), "  - {actor: A, do: acquire}\n")
	for _, be := range backends(t) {
		_, _, err := run(t, be, l)
		var he *sim.HeldWithoutCountError
		if !errors.As(err, &he) {
			t.Fatalf("%s: want a HeldWithoutCountError, got %v", be.Info(), err)
		}
		if he.Pos.Line != 5 || he.Count != "lock:lock:count" {
			t.Errorf("%s: error at %d:%d for count key %q, want line 5 and lock:lock:count: %v", be.Info(), he.Pos.Line, he.Pos.Col, he.Count, err)
		}
		if m := he.Message(); m.ID != "variant.held-no-count-key" {
			t.Errorf("message %s", m.ID)
		}
	}
}
