package explore

import (
	"errors"
	"fmt"

	"lockstep/sim"
)

// Kind is what a timeline is and where it comes from. It is set when the
// timeline is made and carried with it, so that "is this a course lesson?"
// never depends on which *sim.Lesson a caller happens to hold.
type Kind int

// The kinds of timeline. The zero Kind is none: a Timeline always has one.
const (
	// KindLesson is a course lesson, as the course has it.
	KindLesson Kind = iota + 1
	// KindDrill is a drill (package drill), generated from its level and seed.
	KindDrill
	// KindFork is a course lesson's or a drill's first Origin.At steps,
	// then the steps a learner added.
	KindFork
	// KindSandbox starts from an empty sandbox (Sandbox).
	KindSandbox
	// KindImport is a lesson file a learner imported.
	KindImport
	// KindSearch is a timeline a search found.
	KindSearch
	// KindOwnLock is a timeline of the learner's own lock.
	KindOwnLock
	// KindUnder is a lesson's steps run under another variant than its own
	// (Origin.Under names the lesson): a column of Compare, a course lesson
	// under the learner's own lock.
	KindUnder
)

var kindNames = map[Kind]string{
	KindLesson: "lesson", KindDrill: "drill", KindFork: "fork", KindSandbox: "sandbox",
	KindImport: "import", KindSearch: "search", KindOwnLock: "own-lock", KindUnder: "under",
}

// String is the kind's name ("lesson", "fork", …).
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Timeline is what a player runs: a lesson's steps, its kind, and for a
// fork the lesson and step it forks (Origin). Its methods return new
// Timelines; the Lesson is never changed in place.
type Timeline struct {
	Kind   Kind
	Lesson *sim.Lesson
	Origin Origin // set for KindFork, KindSearch and KindUnder only
}

// Course is course lesson l as a Timeline.
func Course(l *sim.Lesson) Timeline { return Timeline{Kind: KindLesson, Lesson: l} }

// Drill is drill l as a Timeline.
func Drill(l *sim.Lesson) Timeline { return Timeline{Kind: KindDrill, Lesson: l} }

// Shared is the Timeline of a decoded share code (Decode's lesson and
// origin): a lesson under another variant when o names one (Under), else a
// fork when o names a lesson, else a search result when o names a search,
// else a sandbox by its id, else an import.
func Shared(l *sim.Lesson, o Origin) Timeline {
	switch {
	case o.Under != "":
		return Timeline{Kind: KindUnder, Lesson: l, Origin: o}
	case o.Lesson != "":
		return Timeline{Kind: KindFork, Lesson: l, Origin: o}
	case o.Search != "":
		return Timeline{Kind: KindSearch, Lesson: l, Origin: o}
	case l.VariantDef != nil && !l.VariantDef.Builtin:
		return Timeline{Kind: KindOwnLock, Lesson: l}
	case l.ID == SandboxID:
		return Timeline{Kind: KindSandbox, Lesson: l}
	}
	return Timeline{Kind: KindImport, Lesson: l}
}

// Explore reports whether t is made in explore mode (everything but a
// course lesson and a drill): it has a share code, and Undo applies.
func (t Timeline) Explore() bool { return t.Kind != KindLesson && t.Kind != KindDrill }

// UndoFloor is how many of t's first steps Undo cannot take back: a fork's
// steps from its lesson (Origin.At; the lesson is where they come from),
// whether or not a server has that lesson; 0 for any other kind.
func (t Timeline) UndoFloor() int {
	if t.Kind != KindFork {
		return 0
	}
	return t.Origin.At
}

// CanUndo reports whether Undo has a step to take back.
func (t Timeline) CanUndo() bool { return t.Explore() && len(t.Lesson.Steps) > t.UndoFloor() }

// Errors of Undo, for errors.Is.
var (
	// ErrNothingToUndo: t is a course lesson or a drill, or has no step.
	ErrNothingToUndo = errors.New("explore: nothing to undo")
	// ErrUndoFloor: every step left is the fork's lesson's (UndoFloor).
	ErrUndoFloor = errors.New("explore: the fork's steps are its lesson's")
)

// Fork continues t after step at (0..len(steps)) with st, dropping the
// later steps (package-level Fork). A course lesson or a drill becomes a
// fork of it at at; a fork forked before its origin's step keeps only the
// lesson's steps up to at; a sandbox, an import and the others keep their
// kind. Errors wrap ErrBadStep.
func (t Timeline) Fork(at int, st sim.Step) (Timeline, error) {
	l, err := Fork(t.Lesson, at, st)
	if err != nil {
		return Timeline{}, err
	}
	out := Timeline{Kind: t.Kind, Lesson: l, Origin: t.Origin}
	switch {
	case !t.Explore():
		out.Kind, out.Origin = KindFork, Origin{Lesson: t.Lesson.ID, At: at}
	case t.Kind == KindFork && at < t.Origin.At:
		out.Origin.At = at
	}
	return out, nil
}

// Undo drops t's last step. It returns an error wrapping ErrNothingToUndo
// or ErrUndoFloor when there is no step it may take back.
func (t Timeline) Undo() (Timeline, error) {
	if !t.Explore() || len(t.Lesson.Steps) == 0 {
		return Timeline{}, fmt.Errorf("%w: a %s has no step added in explore mode", ErrNothingToUndo, t.Kind)
	}
	if !t.CanUndo() {
		return Timeline{}, fmt.Errorf("%w: its %d steps are lesson %s's", ErrUndoFloor, len(t.Lesson.Steps), t.Origin.Lesson)
	}
	out := t
	out.Lesson = Undo(t.Lesson)
	return out, nil
}
