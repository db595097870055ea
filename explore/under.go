package explore

import (
	"slices"

	"lockstep/sim"
)

// Under returns lv, a lesson run under a variant it was not written for
// (AsVariant's copy of lesson l, or l with the learner's own lock), with
// what no longer fits it taken out: the narration of every step from the
// first whose outcome differs from own (the frames of l under its own
// variant, own[0] the start) to the end, and the takeaway when any step
// differs. A step without narration is narrated by the player from the run
// (Narrate, as drills and the steps a learner adds are) and marked so. The
// title and summary say which variant runs (messages "explore.under-title"
// and "explore.under-summary", rendered by r in every locale). frames are
// lv's run. The lesson's id is l's with "-under-<variant>". It returns the
// new lesson and the first step that differs
// (1-based, 0 when every step came out as in l).
//
// Every later step is retold too, not only those whose outcome differs:
// once one outcome differs, the lesson's text describes a history that did
// not happen (lesson 12 under hash-refresh: step 8's B acquires as in the
// lesson, while A1 still believes it holds the lock the text says nobody
// holds).
func Under(r sim.Renderer, l, lv *sim.Lesson, frames, own []sim.Frame) (*sim.Lesson, int) {
	first := FirstDiff(frames, own)
	out := *lv
	// An id of its own: the player keeps a learner's progress by lesson
	// id, and a run under another lock is not the lesson's (Origin.Under
	// names the lesson).
	if id := l.ID + "-under-" + lv.Variant; sim.ValidLessonID(id) {
		out.ID = id
	}
	out.Steps = slices.Clone(lv.Steps)
	if first > 0 {
		for i := first - 1; i < len(out.Steps); i++ {
			out.Steps[i].Say = nil
		}
		out.Takeaway = nil
	}
	out.Title = sim.TextOf(r, sim.M("explore.under-title", "Title", l.Title, "Variant", lv.Variant))
	if first > 0 {
		out.Summary = sim.TextOf(r, sim.M("explore.under-summary", "Title", l.Title, "Own", l.Variant, "Variant", lv.Variant, "Step", first))
	} else {
		out.Summary = sim.TextOf(r, sim.M("explore.under-summary.same", "Title", l.Title, "Own", l.Variant, "Variant", lv.Variant))
	}
	return &out, first
}

// FirstDiff is the first step (1-based) whose outcome in frames differs
// from its outcome in own (frames[0] and own[0] are the starts), 0 when
// none does; a run shorter than the other differs at its end.
func FirstDiff(frames, own []sim.Frame) int {
	for i := 1; i < len(frames) || i < len(own); i++ {
		if i >= len(frames) || i >= len(own) || frames[i].Outcome != own[i].Outcome {
			return i
		}
	}
	return 0
}
