package catalog_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/drill"
	"lockstep/explore"
	"lockstep/internal/lessontest"
	"lockstep/lessons"
	"lockstep/sim"
)

// jbo is the made-up locale of testdata/jbo (Lojban, which Lockstep does not
// speak; every text marked "[jbo] ").
const jbo = sim.Locale("jbo")

// madeUp is the catalogue with the made-up locale added from its one file.
func madeUp(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(os.DirFS("testdata/jbo"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMadeUpLocale adds a language as one catalogue file and checks that
// the catalogue offers it, that lessons may be written in it, and that the
// texts of sim, drill and explore render in it. When this fails because a
// message was added, regenerate testdata/jbo/all.jbo.toml from the English
// files (its header says how).
func TestMadeUpLocale(t *testing.T) {
	t.Parallel()
	c := madeUp(t)
	if !c.Has(jbo) || c.Locales()[0] != sim.English {
		t.Fatalf("locales %v: want English first and jbo", c.Locales())
	}
	if miss := c.MissingIn(jbo); len(miss) > 0 {
		t.Fatalf("the jbo file lacks %v", miss)
	}
	in := func(what, s string) {
		t.Helper()
		if !strings.HasPrefix(s, "[jbo] ") || strings.Contains(s, catalog.Missing) {
			t.Errorf("%s: %q is not the jbo text", what, s)
		}
	}

	// The loader accepts the catalogue's locales when given them.
	src := []byte("variant: token-count\nlease: 30s\ntitle: {en: Hi, jbo: Hoi}\nsteps: [{do: advance, by: 1s}]\n")
	if _, err := sim.Load("t.yaml", src); err == nil {
		t.Fatal("the lesson format's own locales took jbo")
	}
	l, err := sim.Options{Locales: c.Locales()}.Load("t.yaml", src)
	if err != nil || l.Title.In(jbo) != "Hoi" {
		t.Fatalf("load with the catalogue's locales: %v", err)
	}

	// sim: violations, the diagram, the sequence diagram, problems.
	staleOwner, err := lessons.ByID("stale-owner")
	if err != nil {
		t.Fatal(err)
	}
	be := lessontest.Open(t, backend.Config{})
	open := func() (sim.Store, func(context.Context) error, error) {
		st, err := be.NewStore()
		return st, func(ctx context.Context) error { return st.Close(ctx) }, err
	}
	// The frames of a run, by way of explore's Compare of a variant with itself.
	run := func(l *sim.Lesson) []sim.Frame {
		t.Helper()
		c, err := explore.Compare(context.Background(), l, l.Variant, l.Variant, open)
		if err != nil {
			t.Fatal(err)
		}
		return c.A.Frames
	}
	stale := run(staleOwner)
	violations := 0
	for _, f := range stale {
		for _, v := range f.Violations {
			violations++
			in(v.Name, c.Render(jbo, v.Detail))
		}
	}
	if violations == 0 {
		t.Fatal("the stale-owner lesson reported no violation")
	}
	if mm := sim.SequenceDiagram(staleOwner, stale, jbo, c); !strings.Contains(mm, "[jbo] paused") {
		t.Errorf("the sequence diagram has no jbo words:\n%s", mm)
	}
	for _, s := range sim.LockStates {
		in(string(s), c.Render(jbo, sim.StateNames[s]))
	}
	for _, e := range sim.Diagram {
		in(e.ID, c.Render(jbo, e.Label))
	}
	_, err = sim.Load("t.yaml", []byte("variant: nope\nlease: 30s\nsteps: [{do: advance, by: 1s}]\n"))
	in("a loader error", strings.TrimPrefix(c.Error(jbo, err), "t.yaml:1:10: "))

	// drill: levels, titles and narration, in every locale of the catalogue.
	for _, lv := range drill.Levels {
		in(lv.ID, c.Render(jbo, lv.Title))
	}
	d, err := drill.Generate(context.Background(), c, "leases", 7)
	if err != nil {
		t.Fatal(err)
	}
	in("drill title", d.Title.In(jbo))
	for i, st := range d.Steps {
		in("drill step "+string(rune('1'+i)), st.Say.In(jbo))
	}

	// explore: sandboxes, forks, narration, step errors.
	sb, err := explore.Sandbox(c, explore.SandboxConfig{Variant: "watchdog", LeaseMS: 3000, Actors: 2})
	if err != nil {
		t.Fatal(err)
	}
	in("sandbox title", sb.Title.In(jbo))
	in("worker name", sb.Actors[0].Name.In(jbo))
	st, err := explore.StepSpec{Actor: "A", Do: sim.ActCrash}.Step(sb, len(sb.Steps))
	if err != nil {
		t.Fatal(err)
	}
	crashed, err := explore.Fork(sb, 0, st)
	if err != nil {
		t.Fatal(err)
	}
	frames := run(crashed)
	in("explore narration", c.Render(jbo, explore.Narrate(crashed, &crashed.Steps[0], frames[0], frames[1])))
	in("fork title", c.Render(jbo, explore.ForkTitle(staleOwner, 2)))
	x := explore.ForExport(c, crashed, frames, explore.Origin{}, nil)
	in("exported summary", x.Summary.In(jbo))
	in("exported takeaway", x.Takeaway.In(jbo))
	in("exported narration", x.Steps[0].Say.In(jbo))
	file, err := sim.MarshalLesson(x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (sim.Options{Locales: c.Locales()}).Load("x.yaml", file); err != nil {
		t.Errorf("the exported timeline does not load with the catalogue's locales: %v", err)
	}
	_, err = explore.Fork(crashed, 1, sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: "lock"})
	in("a step error", c.Error(jbo, err))
}
