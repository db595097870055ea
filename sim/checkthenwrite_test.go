package sim_test

import (
	"testing"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// TestCheckThenWriteLoads reads the lesson field check_then_write and the
// action finish-write (issue 39, missing topic 1).
func TestCheckThenWriteLoads(t *testing.T) {
	l := mustLoad(t, "t.yaml", doc("variant: token-count", "lease: 30s", "fencing: true", "check_then_write: true",
		"actors: [{id: A}]", "steps: [{actor: A, do: write, value: v}, {actor: A, do: finish-write}]"))
	if !l.CheckThenWrite || l.Steps[1].Do != sim.ActFinishWrite {
		t.Errorf("check_then_write %v, step 2 %s: want true, finish-write", l.CheckThenWrite, l.Steps[1].Do)
	}
}

// TestCheckThenWriteErrors pins the problems of the field and the action.
func TestCheckThenWriteErrors(t *testing.T) {
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "check_then_write without fencing",
			src:  doc("variant: token-count", "lease: 30s", "check_then_write: true", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:19: check_then_write: the resource has no fencing token to check; add fencing: true`},
		},
		{
			name: "finish-write without check_then_write",
			src:  withSteps("  - {actor: A, do: finish-write}"),
			want: []string{`t.yaml:7:20: step 1: finish-write sends the second round trip of a check_then_write resource; add check_then_write: true to the lesson`},
		},
	})
}

// TestCheckThenWriteOutcomes runs the two round trips: a check with a token
// lower than the resource's highest is REJECTED and leaves nothing to
// finish; a finish-write with no check pending sends nothing; a check that
// passes is PENDING, and its write lands at finish-write even after a newer
// hold's write, moving the resource's highest token back (stale-write).
func TestCheckThenWriteOutcomes(t *testing.T) {
	l := mustLoad(t, "t.yaml", doc("variant: token-count", "lease: 1s", "fencing: true", "check_then_write: true",
		"actors: [{id: A}, {id: B}]", "steps:",
		"  - {actor: A, do: acquire, expect: ACQUIRED}",
		"  - {actor: A, do: write, value: a1, expect: PENDING}",
		"  - {do: advance, by: 2s}",
		"  - {actor: B, do: acquire, expect: ACQUIRED}",
		"  - {actor: B, do: write, value: b, expect: PENDING}",
		"  - {actor: B, do: finish-write, expect: ACCEPTED}",
		"  - {actor: B, do: finish-write, expect: REJECTED}",
		"  - {actor: A, do: finish-write, expect: ACCEPTED, expect_violation: stale-write}",
		"  - {actor: A, do: write, value: a2, expect: PENDING}",
		"  - {actor: B, do: write, value: b2, expect: PENDING}",
		"  - {actor: B, do: finish-write, expect: ACCEPTED}",
		"  - {actor: A, do: finish-write, expect: ACCEPTED}",
		"  - {actor: B, do: write, value: b3, expect: PENDING}",
		"  - {actor: B, do: finish-write, expect: ACCEPTED}",
		"  - {actor: A, do: write, value: a3, expect: REJECTED}",
		"  - {actor: A, do: finish-write, expect: REJECTED}",
	))
	frames, _ := runFrames(t, l, refmodel.New())
	for i, f := range frames[1:] {
		if f.Check != nil && !f.Check.OK {
			t.Errorf("step %d: %s, want %s, violations %v missing", i+1, f.Outcome, f.Check.Expect, f.Check.Missing)
		}
	}
	for _, i := range []int{7, 16} {
		if n := len(frames[i].Calls); n != 0 {
			t.Errorf("step %d: a finish-write with no check pending made %d calls, want 0", i, n)
		}
	}
	if f := fieldOf(key(t, frames[8], "resource:lock", false), "fence"); f != "1" {
		t.Errorf("after the stale write the resource's fence is %q, want 1 (moved back from 2)", f)
	}
}

func fieldOf(k sim.KeyState, name string) string {
	for _, f := range k.Fields {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}
