package sim_test

import (
	"slices"
	"testing"

	"lockstep/sim"
)

// TestSharedContextHolders checks the invariant shared-context-holders: a
// parent and the child it forked with context: inherit both holding the
// lock is reentry (a nested call), never reported; two children of one
// parent both holding run side by side and are, naming both; and
// overlapping-holders, which compares different contexts only, reports
// neither case.
func TestSharedContextHolders(t *testing.T) {
	t.Parallel()
	frames := runChecked(t, "shared.yaml", `
variant: hash-refresh
lease: 30s
actors: [{id: R}]
steps:
  - {actor: R, do: acquire, expect: ACQUIRED}
  - {actor: R, do: fork, child: N, context: inherit}
  - {actor: N, do: acquire, expect: REENTERED}
  - {actor: N, do: release, expect: STILL_HELD}
  - {actor: R, do: release, expect: RELEASED}
  - {actor: R, do: fork, child: P, context: inherit}
  - {actor: R, do: fork, child: S, context: inherit}
  - {actor: P, do: acquire, expect: ACQUIRED}
  - {actor: S, do: acquire, expect: REENTERED, expect_violation: shared-context-holders}
  - {actor: P, do: release, expect: STILL_HELD}
`)
	names := func(f sim.Frame) (out []string) {
		for _, v := range f.Violations {
			out = append(out, v.Name)
		}
		return out
	}
	for i := 1; i < len(frames); i++ {
		got := names(frames[i])
		if slices.Contains(got, sim.InvOverlappingHolders) {
			t.Errorf("step %d: overlapping-holders within one context: %v", i, got)
		}
		if want := i == 9; slices.Contains(got, sim.InvSharedContextHolders) != want {
			t.Errorf("step %d: violations %v, shared-context-holders expected: %v", i, got, want)
		}
	}
	for _, v := range frames[9].Violations {
		if v.Name == sim.InvSharedContextHolders && !slices.Equal(v.Actors, []string{"P", "S"}) {
			t.Errorf("shared-context-holders names %v, want [P S]", v.Actors)
		}
	}
}
