package explore_test

import (
	"errors"
	"slices"
	"testing"

	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// pauseOf is a step that pauses l's first actor.
func pauseOf(t *testing.T, l *sim.Lesson) sim.Step { return stepOf(t, l, sim.ActPause) }

// stepOf is a step of l's first actor.
func stepOf(t *testing.T, l *sim.Lesson, do sim.Action) sim.Step {
	t.Helper()
	st, err := explore.StepSpec{Actor: l.Actors[0].ID, Do: do}.Step(l, len(l.Steps))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func courseLesson(t *testing.T, id string) *sim.Lesson {
	t.Helper()
	i := slices.IndexFunc(lessontest.Course(t), func(l *sim.Lesson) bool { return l.ID == id })
	if i < 0 {
		t.Fatalf("no lesson %s", id)
	}
	return lessontest.Course(t)[i]
}

// A course lesson forked becomes a fork with its origin; undo goes back to
// the fork point and no further; the lesson itself is never changed.
func TestTimelineForkAndUndoFloor(t *testing.T) {
	t.Parallel()
	l := courseLesson(t, "nested-reentry")
	steps := len(l.Steps)
	c := explore.Course(l)
	if c.Explore() || c.CanUndo() || c.UndoFloor() != 0 {
		t.Fatalf("a course lesson: explore %v, can undo %v, floor %d", c.Explore(), c.CanUndo(), c.UndoFloor())
	}
	if _, err := c.Undo(); !errors.Is(err, explore.ErrNothingToUndo) {
		t.Fatalf("undo of a course lesson: %v", err)
	}
	f, err := c.Fork(2, pauseOf(t, l))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != explore.KindFork || f.Origin != (explore.Origin{Lesson: l.ID, At: 2}) || len(f.Lesson.Steps) != 3 {
		t.Fatalf("fork at 2: kind %s, origin %+v, %d steps", f.Kind, f.Origin, len(f.Lesson.Steps))
	}
	if f.UndoFloor() != 2 || !f.CanUndo() {
		t.Fatalf("fork at 2: floor %d, can undo %v", f.UndoFloor(), f.CanUndo())
	}
	// A later fork keeps the origin; one before the fork point moves it.
	later, err := f.Fork(3, stepOf(t, f.Lesson, sim.ActResume))
	if err != nil {
		t.Fatal(err)
	}
	if later.Origin.At != 2 || len(later.Lesson.Steps) != 4 {
		t.Fatalf("fork at 3 of a fork at 2: origin %+v, %d steps", later.Origin, len(later.Lesson.Steps))
	}
	earlier, err := later.Fork(1, pauseOf(t, l))
	if err != nil {
		t.Fatal(err)
	}
	if earlier.Origin.At != 1 || earlier.UndoFloor() != 1 {
		t.Fatalf("fork at 1 of a fork at 2: origin %+v", earlier.Origin)
	}
	u, err := later.Undo()
	if err != nil || len(u.Lesson.Steps) != 3 || u.Kind != explore.KindFork {
		t.Fatalf("undo: %v, %d steps, kind %s", err, len(u.Lesson.Steps), u.Kind)
	}
	if u, err = u.Undo(); err != nil || len(u.Lesson.Steps) != 2 || u.CanUndo() {
		t.Fatalf("undo to the fork point: %v, %d steps, can undo %v", err, len(u.Lesson.Steps), u.CanUndo())
	}
	if _, err := u.Undo(); !errors.Is(err, explore.ErrUndoFloor) {
		t.Fatalf("undo below the fork point: %v", err)
	}
	if len(l.Steps) != steps {
		t.Fatalf("the course lesson has %d steps after forking, had %d", len(l.Steps), steps)
	}
}

// A sandbox keeps its kind when forked, has no floor, and undoes to empty.
func TestTimelineSandboxUndoesToEmpty(t *testing.T) {
	t.Parallel()
	l, err := explore.Sandbox(catalogtest.New(t), explore.SandboxConfig{Variant: "token-count", LeaseMS: 30000, Actors: 2, Lock: "order:42"})
	if err != nil {
		t.Fatal(err)
	}
	s := explore.Shared(l, explore.Origin{})
	if s.Kind != explore.KindSandbox || !s.Explore() || s.CanUndo() {
		t.Fatalf("an empty sandbox: kind %s, explore %v, can undo %v", s.Kind, s.Explore(), s.CanUndo())
	}
	f, err := s.Fork(0, pauseOf(t, l))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != explore.KindSandbox || f.Origin != (explore.Origin{}) || !f.CanUndo() {
		t.Fatalf("a sandbox with a step: kind %s, origin %+v, can undo %v", f.Kind, f.Origin, f.CanUndo())
	}
	u, err := f.Undo()
	if err != nil || len(u.Lesson.Steps) != 0 {
		t.Fatalf("undo: %v, %d steps", err, len(u.Lesson.Steps))
	}
	if _, err := u.Undo(); !errors.Is(err, explore.ErrNothingToUndo) {
		t.Fatalf("undo of an empty sandbox: %v", err)
	}
}

// A share code's timeline has its kind from what it holds.
func TestTimelineShared(t *testing.T) {
	t.Parallel()
	l := courseLesson(t, "nested-reentry")
	for _, c := range []struct {
		id   string
		o    explore.Origin
		want explore.Kind
	}{
		{"nested-reentry-fork", explore.Origin{Lesson: "nested-reentry", At: 2}, explore.KindFork},
		{explore.SandboxID, explore.Origin{}, explore.KindSandbox},
		{"my-lesson", explore.Origin{}, explore.KindImport},
		{"token-count-stale-write", explore.Origin{Search: "token-count"}, explore.KindSearch},
	} {
		cp := *l
		cp.ID = c.id
		if got := explore.Shared(&cp, c.o); got.Kind != c.want || got.Origin != c.o {
			t.Errorf("%s %+v: kind %s origin %+v, want %s", c.id, c.o, got.Kind, got.Origin, c.want)
		}
	}
	// A search result's origin survives its share code.
	cp := *l
	cp.ID = "token-count-stale-write"
	code, err := explore.Encode(&cp, explore.Origin{Search: "token-count"}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, o, err := explore.Decode(code, sim.Options{})
	if err != nil || o != (explore.Origin{Search: "token-count"}) || explore.Shared(back, o).Kind != explore.KindSearch {
		t.Errorf("search result: origin %+v, err %v", o, err)
	}
	if d := explore.Drill(l); d.Explore() || d.Kind.String() != "drill" {
		t.Errorf("a drill: explore %v, kind %s", d.Explore(), d.Kind)
	}
}
