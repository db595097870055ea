package explore_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// embedded opens the embedded backend once per test.
func embedded(t *testing.T) *backend.Backend {
	t.Helper()
	return lessontest.Open(t, backend.Config{})
}

func run(t *testing.T, be *backend.Backend, l *sim.Lesson) []sim.Frame {
	t.Helper()
	frames, err := sim.RunFrames(context.Background(), l, opener(be))
	if err != nil {
		t.Fatalf("%s: %v", l.ID, err)
	}
	return frames
}

func opener(be *backend.Backend) explore.StoreOpener {
	return func() (sim.Store, func(context.Context) error, error) {
		st, err := be.NewStore()
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	}
}

// TestEveryChoiceForks takes every lesson of the course, every step of it
// and every action the menu offers there: each must fork, run to its end,
// and keep the outcomes of the steps before it.
func TestEveryChoiceForks(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	for _, l := range lessontest.Course(t) {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			everyChoiceForks(t, be, l)
		})
	}
}

// everyChoiceForks is TestEveryChoiceForks for one lesson.
func everyChoiceForks(t *testing.T, be *backend.Backend, l *sim.Lesson) {
	frames := run(t, be, l)
	for at := range frames {
		for _, c := range explore.Choices(l, frames[at]) {
			st, err := c.Spec.Step(l, len(l.Steps))
			if err != nil {
				t.Fatalf("%s step %d: %+v: %v", l.ID, at, c.Spec, err)
			}
			f, err := explore.Fork(l, at, st)
			if err != nil {
				t.Fatalf("%s step %d: %+v: %v", l.ID, at, c.Spec, err)
			}
			got := run(t, be, f)
			if len(got) != at+2 {
				t.Fatalf("%s fork at %d: %d frames", l.ID, at, len(got))
			}
			for i := 1; i <= at; i++ {
				if got[i].Outcome != frames[i].Outcome || !reflect.DeepEqual(got[i].Locks, locksOf(frames[i].Locks, got[i].Locks)) {
					t.Fatalf("%s fork at %d (%+v): step %d changed: %s, want %s", l.ID, at, c.Spec, i, got[i].Outcome, frames[i].Outcome)
				}
			}
			if got[at+1].Say != nil {
				t.Fatalf("a forked step has no narration of its own")
			}
			if explore.Narrate(f, &f.Steps[at], got[at], got[at+1]).ID == "" {
				t.Fatalf("%s fork at %d (%+v): no narration", l.ID, at, c.Spec)
			}
		}
	}
}

// locksOf returns the locks of all whose names are in want, in all's order:
// a fork that drops the steps naming a lock (lesson 06a's {order:42}, 20e's
// order:43) does not show that lock, which the whole lesson shows from its
// first frame.
func locksOf(all, want []sim.LockView) []sim.LockView {
	var out []sim.LockView
	for _, l := range all {
		if slices.ContainsFunc(want, func(w sim.LockView) bool { return w.Name == l.Name }) {
			out = append(out, l)
		}
	}
	return out
}

func TestForkRefusesImpossibleSteps(t *testing.T) {
	t.Parallel()
	l := lesson(t, "stale-owner")
	// Step 3 pauses A: after it, A may only resume.
	_, err := explore.Fork(l, 3, sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: l.Lock})
	if !errors.Is(err, explore.ErrBadStep) {
		t.Fatalf("acquire by a paused actor: %v", err)
	}
	if _, err := explore.Fork(l, len(l.Steps)+1, sim.Step{Do: sim.ActAdvance, By: 1e9}); !errors.Is(err, explore.ErrBadStep) {
		t.Fatalf("fork past the end: %v", err)
	}
	for _, spec := range []explore.StepSpec{
		{Do: "jump"},
		{Do: sim.ActAcquire},
		{Do: sim.ActAdvance, Actor: "A", ByMS: 5},
		{Do: sim.ActAdvance, ByMS: 0},
		{Do: sim.ActAdvance, ByMS: explore.MaxAdvanceMS + 1},
		{Do: sim.ActAcquire, Actor: "A", Lock: "a\tb"},
		{Do: sim.ActPause, Actor: "A", Unreplicated: true},
		{Do: sim.ActWrite, Actor: "A"},
		{Do: sim.ActFork, Actor: "A", Child: "A-1", Context: "maybe"},
		{Do: sim.ActFork, Actor: "A", Child: "1x", Context: "lost"},
		{Do: sim.ActWrite, Actor: "A", Value: "x", ReplyLost: true},
		{Do: sim.ActFork, Actor: "A", Child: "B", Context: "inherit"}, // B runs already (issue 17)
	} {
		// StepSpec.Step checks explore's bounds, Fork the lesson rules.
		st, err := spec.Step(l, len(l.Steps))
		if err == nil {
			_, err = explore.Fork(l, 2, st)
		}
		var se *explore.StepError
		if !errors.Is(err, explore.ErrBadStep) || !errors.As(err, &se) {
			t.Errorf("%+v: %v", spec, err)
		}
	}
}

// TestForkDropsUnbornChildren: a declared actor that only a dropped fork
// step creates must not turn into an actor of the fork.
func TestForkDropsUnbornChildren(t *testing.T) {
	t.Parallel()
	for _, l := range lessontest.Course(t) {
		for i, s := range l.Steps {
			if s.Do != sim.ActFork {
				continue
			}
			f, err := explore.Fork(l, i, sim.Step{Do: sim.ActAdvance, By: 1e9})
			if err != nil {
				t.Fatalf("%s: %v", l.ID, err)
			}
			for _, a := range f.Actors {
				if a.ID == s.Child {
					t.Fatalf("%s: fork before step %d keeps its child %s", l.ID, i+1, s.Child)
				}
			}
		}
	}
}

func TestUndo(t *testing.T) {
	t.Parallel()
	l := lesson(t, "stale-owner")
	u := explore.Undo(l)
	if len(u.Steps) != len(l.Steps)-1 || len(l.Steps) == len(u.Steps) {
		t.Fatalf("undo: %d steps of %d", len(u.Steps), len(l.Steps))
	}
	empty := &sim.Lesson{}
	if explore.Undo(empty) != empty {
		t.Fatal("undo of nothing")
	}
}

func TestSandbox(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	l, err := explore.Sandbox(catalogtest.New(t), explore.SandboxConfig{Variant: "token-count", LeaseMS: 10000, Actors: 3, Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Actors) != 3 || l.Lock != "lock" || len(l.Steps) != 0 {
		t.Fatalf("sandbox %+v", l)
	}
	// Build A acquire, B acquire (BUSY), advance past the lease, B acquire.
	frames := run(t, be, l)
	for _, spec := range []explore.StepSpec{
		{Actor: "A", Do: sim.ActAcquire}, {Actor: "B", Do: sim.ActAcquire}, {Do: sim.ActAdvance, ByMS: 11000}, {Actor: "B", Do: sim.ActAcquire},
	} {
		st, err := spec.Step(l, len(l.Steps))
		if err != nil {
			t.Fatal(err)
		}
		if l, err = explore.Fork(l, len(l.Steps), st); err != nil {
			t.Fatal(err)
		}
		frames = run(t, be, l)
	}
	want := []sim.Outcome{sim.Acquired, sim.Busy, sim.OK, sim.Acquired}
	for i, w := range want {
		if frames[i+1].Outcome != w {
			t.Fatalf("step %d: %s, want %s", i+1, frames[i+1].Outcome, w)
		}
	}
	if l.ID != explore.SandboxID {
		t.Fatalf("a sandbox keeps its id: %q", l.ID)
	}
	for _, c := range []explore.SandboxConfig{
		{Variant: "nope", LeaseMS: 1, Actors: 1},
		{Variant: "token-count", LeaseMS: 0, Actors: 1},
		{Variant: "token-count", LeaseMS: 1, Actors: 0},
		{Variant: "token-count", LeaseMS: 1, Actors: explore.MaxActors + 1},
		{Variant: "token-count", LeaseMS: 1, Actors: 1, Lock: "a\nb"},
	} {
		if _, err := explore.Sandbox(catalogtest.New(t), c); !errors.Is(err, explore.ErrBadStep) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	// Lesson 13 re-acquires an expired hold silently under hash-refresh;
	// token-count answers LOST at the same step.
	l := lesson(t, "nested-after-expiry-silent")
	c, err := explore.Compare(context.Background(), l, "hash-refresh", "token-count", opener(be))
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstDiff == 0 {
		t.Fatal("hash-refresh and token-count agree on every step of nested-after-expiry-silent")
	}
	if c.A.Frames[c.FirstDiff].Outcome == c.B.Frames[c.FirstDiff].Outcome {
		t.Fatalf("step %d marked as differing", c.FirstDiff)
	}
	for i := 1; i < c.FirstDiff; i++ {
		if c.A.Frames[i].Outcome != c.B.Frames[i].Outcome {
			t.Fatalf("step %d differs before the first difference %d", i, c.FirstDiff)
		}
	}
	same, err := explore.Compare(context.Background(), l, l.Variant, l.Variant, opener(be))
	if err != nil {
		t.Fatal(err)
	}
	if same.FirstDiff != 0 || len(same.Diffs) != 0 {
		t.Fatalf("a variant differs from itself at %d", same.FirstDiff)
	}
	if _, err := explore.Compare(context.Background(), l, "hash-refresh", "nope", opener(be)); !errors.Is(err, explore.ErrBadStep) {
		t.Fatalf("unknown variant: %v", err)
	}
}

// TestStripRestore: a fork's share code leaves out what its lesson holds,
// and the texts come back from the lesson.
func TestStripRestore(t *testing.T) {
	t.Parallel()
	l := lesson(t, "stale-owner")
	f, err := explore.Fork(l, 4, sim.Step{Actor: "B", Do: sim.ActRelease, Lock: l.Lock})
	if err != nil {
		t.Fatal(err)
	}
	o := explore.Origin{Lesson: l.ID, At: 4}
	short, err := explore.Encode(explore.Strip(f, o, l), o, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	long, err := explore.Encode(f, o, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(short)*2 > len(long) {
		t.Fatalf("stripped code %d bytes, full %d", len(short), len(long))
	}
	back, o2, err := explore.Decode(short, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := explore.Restore(back, o2, l)
	for i := range 4 {
		if !reflect.DeepEqual(got.Steps[i].Say, l.Steps[i].Say) {
			t.Fatalf("step %d narration not restored", i+1)
		}
	}
	if !reflect.DeepEqual(got.Title, l.Title) || !reflect.DeepEqual(got.Actors[0].Name, l.Actors[0].Name) {
		t.Fatal("title or names not restored")
	}
	// Another version of the lesson (a step changed): the link still runs,
	// without the texts.
	other := *l
	other.Steps = append([]sim.Step(nil), l.Steps...)
	other.Steps[0].Lease = 5e9
	if r := explore.Restore(back, o2, &other); len(r.Steps[0].Say) != 0 {
		t.Fatal("texts restored from a lesson that does not match")
	}
}

func lesson(t *testing.T, id string) *sim.Lesson {
	t.Helper()
	for _, l := range lessontest.Course(t) {
		if l.ID == id {
			return l
		}
	}
	t.Fatalf("no lesson %q", id)
	return nil
}

// TestForExport: an exported fork or sandbox is a complete lesson of the
// course (every text in every language, a source, a group, every outcome
// asserted, a unique id) that loads back and runs to the same outcomes.
func TestForExport(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	base := lesson(t, "stale-owner")
	fork, err := explore.Fork(base, 3, sim.Step{Actor: "A", Do: sim.ActResume, Lock: base.Lock})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := explore.Sandbox(catalogtest.New(t), explore.SandboxConfig{Variant: "hash-refresh", LeaseMS: 5000, Actors: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []explore.StepSpec{{Actor: "A", Do: sim.ActAcquire}, {Actor: "A", Do: sim.ActFork, Child: "A-1", Context: "inherit"}, {Actor: "A-1", Do: sim.ActAcquire}, {Do: sim.ActAdvance, ByMS: 6000}} {
		st, err := spec.Step(sb, len(sb.Steps))
		if err != nil {
			t.Fatal(err)
		}
		if sb, err = explore.Fork(sb, len(sb.Steps), st); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]bool{}
	for _, c := range []struct {
		l    *sim.Lesson
		o    explore.Origin
		base *sim.Lesson
	}{{fork, explore.Origin{Lesson: base.ID, At: 3}, base}, {sb, explore.Origin{}, nil}} {
		frames := run(t, be, c.l)
		x := explore.ForExport(catalogtest.New(t), c.l, frames, c.o, c.base)
		if ids[x.ID] || x.ID == c.l.ID {
			t.Fatalf("export id %q is not unique", x.ID)
		}
		ids[x.ID] = true
		lessontest.Complete(t, x.ID, "title", x.Title)
		lessontest.Complete(t, x.ID, "summary", x.Summary)
		lessontest.Complete(t, x.ID, "takeaway", x.Takeaway)
		if x.Source == "" || x.Group == "" {
			t.Errorf("%s: source %q group %q", x.ID, x.Source, x.Group)
		}
		for _, a := range x.Actors {
			lessontest.Complete(t, x.ID, "actor "+a.ID, a.Name)
		}
		for i, s := range x.Steps {
			lessontest.Complete(t, x.ID, "say", s.Say)
			if len(sim.OutcomesFor(s.Do)) > 1 && s.Expect != frames[i+1].Outcome {
				t.Errorf("%s step %d expects %q, the run gave %s", x.ID, i+1, s.Expect, frames[i+1].Outcome)
			}
		}
		if c.base != nil && reflect.DeepEqual(x.Summary, c.base.Summary) {
			t.Error("a fork keeps its lesson's summary")
		}
		src, err := sim.MarshalLesson(x)
		if err != nil {
			t.Fatal(err)
		}
		back, err := sim.Load(x.ID+".yaml", src)
		if err != nil {
			t.Fatalf("exported %s does not load: %v\n%s", x.ID, err, src)
		}
		// The same frames: only the texts and expectations the export adds
		// (say, check) and file lines differ.
		again := run(t, be, back)
		if len(again) != len(frames) {
			t.Fatalf("%s: %d frames after export, %d before", x.ID, len(again), len(frames))
		}
		for i := range frames {
			a, b := again[i], frames[i]
			for _, f := range []*sim.Frame{&a, &b} {
				f.Say, f.Check = nil, nil
				if f.Step != nil {
					st := *f.Step
					st.Line = 0
					f.Step = &st
				}
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s step %d differs after export:\n%+v\n%+v", x.ID, i, a, b)
			}
			if c := again[i].Check; c != nil && !c.OK {
				t.Fatalf("%s step %d: the exported expectation fails: %+v", x.ID, i, c)
			}
		}
	}
}

// TestCutLinksSayCutShort: a link cut anywhere says that it is cut short,
// not that it is damaged, so the learner knows to copy it again in full.
func TestCutLinksSayCutShort(t *testing.T) {
	t.Parallel()
	l := lesson(t, "stale-owner")
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for n := len("1.") + 1; n < len(code); n++ {
		_, _, err := explore.Decode(code[:n], sim.Options{})
		if !errors.Is(err, explore.ErrBadLink) || !strings.Contains(err.Error(), "cut short") {
			t.Fatalf("cut at %d of %d: %v", n, len(code), err)
		}
		var le *explore.LinkError
		if !errors.As(err, &le) || le.Problem != explore.LinkCutShort {
			t.Fatalf("cut at %d of %d: problem %+v, want LinkCutShort", n, len(code), le)
		}
	}
}

// TestStepSpecProblems: what StepSpec.Step refuses names the step (the
// fork point's next) and the field, with a message code: a duration out of
// explore's bounds, and a field that sim.Validate's table says the action
// does not take (which a lesson file would be refused for too).
func TestStepSpecProblems(t *testing.T) {
	t.Parallel()
	l := lesson(t, "stale-owner")
	for _, c := range []struct {
		spec       explore.StepSpec
		path, code string
	}{
		{explore.StepSpec{Actor: "A", Do: sim.ActLongScript, ByMS: -5}, "steps[3].by_ms", "explore.step.by"},
		{explore.StepSpec{Actor: "A", Do: sim.ActLongScript, ByMS: explore.MaxAdvanceMS + 1}, "steps[3].by_ms", "explore.step.by"},
		{explore.StepSpec{Do: sim.ActAdvance, ByMS: -5}, "steps[3].by_ms", "explore.step.by"},
		{explore.StepSpec{Actor: "A", Do: sim.ActAcquire, LeaseMS: explore.MaxLeaseMS + 1}, "steps[3].lease_ms", "explore.step.lease"},
		{explore.StepSpec{Actor: "A", Do: sim.ActLongScript, ByMS: 1000, Lock: "x"}, "steps[3].lock", "lesson.field-not-applicable"},
		{explore.StepSpec{Do: sim.ActAdvance, ByMS: 1000, Lock: "x"}, "steps[3].lock", "lesson.field-not-applicable"},
		{explore.StepSpec{Actor: "A", Do: sim.ActPause, LeaseMS: 5}, "steps[3].lease_ms", "lesson.field-not-applicable"},
	} {
		_, err := c.spec.Step(l, 2)
		var se *explore.StepError
		if !errors.Is(err, explore.ErrBadStep) || !errors.As(err, &se) {
			t.Errorf("%+v: %v", c.spec, err)
			continue
		}
		if len(se.Problems) != 1 || se.Problems[0].Path != c.path || se.Problems[0].Problem.ID != c.code {
			t.Errorf("%+v: problems %+v, want one %s at %s", c.spec, se.Problems, c.code, c.path)
		}
	}
	// The same field in a lesson file is refused by the same table.
	_, err := sim.Load("x.yaml", []byte("variant: token-count\nlease: 30s\nlock: lock\nactors: [{id: A, name: A}]\nsteps: [{actor: A, do: long-script, by: 1s, lock: x}]\n"))
	var les sim.LoadErrors
	if !errors.As(err, &les) || len(les) == 0 || les[0].Problem.ID != "lesson.field-not-applicable" {
		t.Errorf("lesson file with lock on long-script: %v", err)
	}
}

// TestForkDropsTheNote: a lesson's note describes its own timeline (16c's
// says the script takes 25 s), so a fork that leaves that timeline carries
// none, on the fork itself and on the fork decoded from its share code
// against the lesson (Restore); a timeline that is the lesson's steps keeps
// it.
func TestForkDropsTheNote(t *testing.T) {
	t.Parallel()
	l := lesson(t, "long-script-blocks")
	if len(l.Note) == 0 || l.Steps[2].Do != sim.ActLongScript {
		t.Fatalf("16c has no note or no long script at step 3")
	}
	st, err := explore.StepSpec{Actor: "R", Do: sim.ActLongScript, ByMS: 1000}.Step(l, 2)
	if err != nil {
		t.Fatal(err)
	}
	f, err := explore.Fork(l, 2, st)
	if err != nil {
		t.Fatal(err)
	}
	o := explore.Origin{Lesson: l.ID, At: 2}
	restored := explore.Restore(explore.Strip(f, o, l), o, l)
	if len(f.Note) != 0 || len(restored.Note) != 0 {
		t.Errorf("a fork with a 1 s script keeps the note %v (restored: %v)", f.Note, restored.Note)
	}
	// Undo back to the fork point leaves the lesson's timeline too.
	if back := explore.Restore(explore.Undo(f), o, l); len(back.Note) != 0 {
		t.Errorf("the fork point's timeline has the note %v", back.Note)
	}
	// The lesson's own last step again: the lesson's timeline, its note.
	last := len(l.Steps) - 1
	same, err := explore.Fork(l, last, l.Steps[last])
	if err != nil {
		t.Fatal(err)
	}
	whole := explore.Origin{Lesson: l.ID, At: last}
	if !reflect.DeepEqual(same.Note, l.Note) || !reflect.DeepEqual(explore.Restore(explore.Strip(same, whole, l), whole, l).Note, l.Note) {
		t.Errorf("the lesson's own steps lost the note")
	}
}
