package explore

import (
	"slices"
	"strings"

	"lockstep/sim"
)

// Under returns lv, a lesson run under a variant it was not written for
// (AsVariant's copy of lesson l, or l with the learner's own lock), with
// what no longer fits it taken out when any step differs from own (the
// frames of l under its own variant, own[0] the start; FirstDiff: the
// step's outcome, its renewals' outcomes or its violations): the narration,
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

// FirstDiff is the first step (1-based) whose frame in frames differs
// from its frame in own (frames[0] and own[0] are the starts) by Differs,
// 0 when none does; a run shorter than the other differs at its end.
//
// Not only the step's outcome counts: a lesson's narration also tells
// what its watchdog's renewals answered, whose belief a renewal ended and
// which invariants the step breaks, so a run under another lock whose
// renewal answers LOST where the lesson's answered GONE (lesson 16d under
// the touch lock) differs there, and the lesson's text, which has A write
// as a stale owner, is not shown beside a run in which A was told (issue
// 33: a lesson's narration must not contradict its outcomes).
func FirstDiff(frames, own []sim.Frame) int {
	for i := 1; i < len(frames) || i < len(own); i++ {
		if i >= len(frames) || i >= len(own) || Differs(frames[i], own[i]) != DiffNone {
			return i
		}
	}
	return 0
}

// Difference is what differs between two runs' frames of one step, the
// first of these in this order.
type Difference int

// The differences Differs tells apart.
const (
	DiffNone Difference = iota
	// DiffOutcome: the step's outcome (Frame.Outcome).
	DiffOutcome
	// DiffRenewal: what the step's watchdog renewals answered (the set of
	// their calls' outcomes, RENEWED, GONE, LOST...), or whose belief a
	// renewal ended (Frame.Lost).
	DiffRenewal
	// DiffViolations: the invariants the step breaks (name, lock and
	// actors of Frame.Violations).
	DiffViolations
)

// Differs returns what differs between a and b, two runs' frames of the
// same step, DiffNone when nothing a narration tells does. How many
// renewals ran does not count (a lock that renews every lease/2 where the
// lesson's renews every lease/3 tells the same story), what they answered
// does.
func Differs(a, b sim.Frame) Difference {
	switch {
	case a.Outcome != b.Outcome:
		return DiffOutcome
	case !slices.Equal(RenewalOutcomes(a), RenewalOutcomes(b)) || !slices.Equal(lostOf(a), lostOf(b)):
		return DiffRenewal
	case !slices.Equal(violationsOf(a), violationsOf(b)):
		return DiffViolations
	}
	return DiffNone
}

// RenewalOutcomes are the distinct outcomes of the watchdog renewals
// frame f's step made, sorted: the calls of a step that lets time pass
// (advance, clock-jump, long-script), the only steps that renew.
func RenewalOutcomes(f sim.Frame) []sim.Outcome {
	if f.Step == nil {
		return nil
	}
	switch f.Step.Do {
	case sim.ActAdvance, sim.ActClockJump, sim.ActLongScript:
	default:
		return nil
	}
	var out []sim.Outcome
	for _, c := range f.Calls {
		out = append(out, c.Outcome)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lostOf names the beliefs f's renewals ended: actor and lock, sorted.
func lostOf(f sim.Frame) []string {
	var out []string
	for _, l := range f.Lost {
		out = append(out, l.Actor+"\x00"+l.Lock)
	}
	slices.Sort(out)
	return out
}

// violationsOf names f's violations: name, lock and actors, sorted.
func violationsOf(f sim.Frame) []string {
	var out []string
	for _, v := range f.Violations {
		out = append(out, v.Name+"\x00"+v.Lock+"\x00"+strings.Join(v.Actors, ","))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
