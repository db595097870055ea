package drill_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/drill"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

func levelIDs() []string {
	var out []string
	for _, l := range drill.Levels {
		out = append(out, l.ID)
	}
	return out
}

// tb is what runOn needs of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// runOn runs l on a fresh store of b and returns its frames.
func runOn(ctx context.Context, t tb, b *backend.Backend, l *sim.Lesson) []sim.Frame {
	t.Helper()
	st, err := b.NewStore()
	if err != nil {
		t.Fatalf("new store: %v", err)
	}
	defer func() {
		if err := st.Close(context.WithoutCancel(ctx)); err != nil {
			t.Errorf("close store: %v", err)
		}
	}()
	r, err := sim.NewRunner(l, st)
	if err != nil {
		t.Fatalf("%s: %v", l.ID, err)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("%s on %s: %v", l.ID, b.Info(), err)
	}
	return frames
}

// TestDrillsAgreeWithRunner is the property test of the generator: for any
// level and seed, the drill is valid, 2-3 actors and 5-8 steps long, uses
// only its level's actions, and every outcome it expects (the outcomes the
// player reveals) is the outcome the runner gives on the embedded backend and
// on a real redis-server, whose frames are identical.
func TestDrillsAgreeWithRunner(t *testing.T) {
	ctx := t.Context()
	cat := catalogtest.New(t)
	srv := redistest.Start(t)
	emb := lessontest.Open(t, backend.Config{})
	real := lessontest.Open(t, backend.Config{URL: srv.URL})
	outcomes := map[sim.Outcome]int{}
	rapid.Check(t, func(rt *rapid.T) {
		level := rapid.SampledFrom(levelIDs()).Draw(rt, "level")
		seed := rapid.Uint64Range(0, drill.MaxSeed).Draw(rt, "seed")
		l, err := drill.Generate(ctx, cat, level, seed)
		if err != nil {
			rt.Fatalf("generate %s %d: %v", level, seed, err)
		}
		if err := sim.Validate(l); err != nil {
			rt.Fatalf("%s: invalid: %v", l.ID, err)
		}
		if n := len(l.Actors); n < 2 || n > 3 {
			rt.Fatalf("%s: %d actors", l.ID, n)
		}
		if n := len(l.Steps); n < 5 || n > 8 {
			rt.Fatalf("%s: %d steps", l.ID, n)
		}
		lv, _ := drill.LevelByID(level)
		if l.Variant != lv.Variant {
			rt.Fatalf("%s: variant %s, want %s", l.ID, l.Variant, lv.Variant)
		}
		for i, st := range l.Steps {
			if !slices.Contains(lv.Actions, st.Do) {
				rt.Fatalf("%s: step %d uses %s, not an action of level %s", l.ID, i+1, st.Do, level)
			}
			if !st.Say.Complete(cat.Locales()) {
				rt.Fatalf("%s: step %d narration is not in every locale: %v", l.ID, i+1, st.Say)
			}
		}
		fe := runOn(ctx, rt, emb, l)
		fr := runOn(ctx, rt, real, l)
		if !reflect.DeepEqual(fe, fr) {
			a, _ := json.Marshal(fe)
			b, _ := json.Marshal(fr)
			rt.Fatalf("%s: frames differ between backends\nembedded: %s\nredis:    %s", l.ID, a, b)
		}
		for i, st := range l.Steps {
			f := fe[i+1]
			outcomes[f.Outcome]++
			if len(sim.OutcomesFor(st.Do)) > 1 {
				if st.Expect != f.Outcome {
					rt.Fatalf("%s: step %d (%s %s): drill expects %s, runner gave %s", l.ID, i+1, st.Actor, st.Do, st.Expect, f.Outcome)
				}
				if !slices.Contains(sim.OutcomesFor(st.Do), f.Outcome) {
					rt.Fatalf("%s: step %d: outcome %s is not among the choices %v", l.ID, i+1, f.Outcome, sim.OutcomesFor(st.Do))
				}
			}
			if f.Check != nil && !f.Check.OK {
				rt.Fatalf("%s: step %d: check failed: %+v", l.ID, i+1, *f.Check)
			}
		}
	})
	t.Logf("outcomes seen: %v", outcomes)
}

func TestGenerateIsDeterministic(t *testing.T) {
	ctx := t.Context()
	cat := catalogtest.New(t)
	for _, lv := range drill.Levels {
		for _, seed := range []uint64{0, 1, 42, drill.MaxSeed} {
			a, err := drill.Generate(ctx, cat, lv.ID, seed)
			if err != nil {
				t.Fatal(err)
			}
			b, err := drill.Generate(ctx, cat, lv.ID, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: two generations differ", a.ID)
			}
		}
	}
	a, _ := drill.Generate(ctx, cat, "leases", 1)
	b, _ := drill.Generate(ctx, cat, "leases", 2)
	if reflect.DeepEqual(a.Steps, b.Steps) {
		t.Errorf("seeds 1 and 2 gave the same steps")
	}
}

func TestIDs(t *testing.T) {
	for _, lv := range drill.Levels {
		id := drill.ID(lv.ID, 42)
		level, seed, ok := drill.ParseID(id)
		if !ok || level != lv.ID || seed != 42 {
			t.Errorf("ParseID(%q) = %q, %d, %v", id, level, seed, ok)
		}
	}
	for _, bad := range []string{"", "drill-", "drill-leases", "drill-leases-", "drill-nope-1", "drill-leases-x",
		"drill-leases-01", "drill-leases-4294967296", "stale-owner", "drill-leases--1"} {
		if _, _, ok := drill.ParseID(bad); ok {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
	if _, err := drill.Generate(t.Context(), catalogtest.New(t), "nope", 1); err == nil {
		t.Errorf("Generate of an unknown level: no error")
	}
	if _, err := drill.Generate(t.Context(), catalogtest.New(t), "leases", drill.MaxSeed+1); err == nil {
		t.Errorf("Generate of a seed over MaxSeed: no error")
	}
}

func TestLevelsAreComplete(t *testing.T) {
	for _, lv := range drill.Levels {
		cat := catalogtest.New(t)
		for _, loc := range cat.Locales() {
			for _, m := range []sim.Msg{lv.Title, lv.Summary} {
				if s := cat.Render(loc, m); s == "" || strings.Contains(s, catalog.Missing) {
					t.Errorf("level %s: %s in %s: %q", lv.ID, m.ID, loc, s)
				}
			}
		}
		if _, ok := sim.Variant(lv.Variant); !ok {
			t.Errorf("level %s: unknown variant %s", lv.ID, lv.Variant)
		}
	}
}
