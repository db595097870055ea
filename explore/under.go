package explore

import (
	"slices"

	"lockstep/sim"
)

// Under returns lv, a lesson run under a variant it was not written for
// (AsVariant's copy of lesson l, or l with the learner's own lock), with
// what no longer fits it taken out when any step's outcome differs from own
// (the frames of l under its own variant, own[0] the start): the narration,
// the "why" question and the misconception callout of every step, and the
// takeaway. A step without narration is narrated by the player from the run
// (Narrate, as drills and the steps a learner adds are) and marked so. The
// title and summary say which variant runs (messages "explore.under-title"
// and "explore.under-summary", rendered by r in every locale). frames are
// lv's run. The lesson's id is l's with "-under-<variant>". It returns the
// new lesson and the first step that differs
// (1-based, 0 when every step came out as in l).
//
// Every step is retold, not only those whose outcome differs: once one
// outcome differs, the lesson's text describes a history that did not
// happen. Later steps say what the differing one did not do (lesson 12
// under hash-refresh: step 8's B acquires as in the lesson, while A1 still
// believes it holds the lock the text says nobody holds), and earlier ones
// foretell it in the lesson's own lock's terms (its steps 1 to 5 speak of a
// grant token that hash-refresh has not, and of the nested acquire that
// step 6 is not); a step's question and callout are about the lesson's
// outcome.
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
		for i := range out.Steps {
			s := &out.Steps[i]
			s.Say, s.Why, s.Because, s.Misconception = nil, nil, nil, nil
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
