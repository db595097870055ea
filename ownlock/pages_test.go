package ownlock

import (
	"slices"
	"testing"

	"lockstep/sim"
)

// TestEmptyFormAndBrokenFrom: the empty form has a slot per script; the
// invariants a lock breaks are those its run breaks from the first
// differing step that the lesson's own run does not.
func TestEmptyFormAndBrokenFrom(t *testing.T) {
	t.Parallel()
	if f := EmptyForm(); len(f.Scripts) != maxLockScripts || f.Variant != "" {
		t.Fatalf("empty form %+v", f)
	}
	v := func(names ...string) sim.Frame {
		var f sim.Frame
		for _, n := range names {
			f.Violations = append(f.Violations, sim.Violation{Name: n})
		}
		return f
	}
	own := []sim.Frame{v(), v("stale-write")}
	frames := []sim.Frame{v("overlapping-holders"), v("stale-write", "leaked-hold"), v("leaked-hold", "count-mismatch")}
	if got := brokenFrom(frames, own, 1); !slices.Equal(got, []string{"leaked-hold", "count-mismatch"}) {
		t.Fatalf("brokenFrom: %v", got)
	}
}
