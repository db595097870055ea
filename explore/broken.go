package explore

import (
	"slices"

	"lockstep/sim"
)

// BrokenUnder returns the invariants a run of a lesson under another lock
// breaks (frames, the whole run), in the order they first appear, and, of
// those, the ones the lesson's own run (own) breaks too. The course table
// of a learner's lock shows them all, so that a lock exactly as unsafe as
// the lesson's own is not shown as breaking nothing, and it marks the
// shared ones (issue 33; it listed only the invariants own does not break).
func BrokenUnder(frames, own []sim.Frame) (broken, ownToo []string) {
	had := map[string]bool{}
	for _, f := range own {
		for _, v := range f.Violations {
			had[v.Name] = true
		}
	}
	for _, f := range frames {
		for _, v := range f.Violations {
			if slices.Contains(broken, v.Name) {
				continue
			}
			broken = append(broken, v.Name)
			if had[v.Name] {
				ownToo = append(ownToo, v.Name)
			}
		}
	}
	return broken, ownToo
}
