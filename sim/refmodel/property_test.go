package refmodel_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// defaultChecks is how many lessons TestModelMatchesBackends runs when
// -rapid.checks is not given: enough to cover every variant many times, few
// enough for CI with -race on two cores. Give -rapid.checks=N for more.
const defaultChecks = 150

// setDefaultChecks lowers rapid's default number of checks to n unless the
// command line set -rapid.checks or the environment RAPID_CHECKS.
func setDefaultChecks(t *testing.T, n int) {
	t.Helper()
	f := flag.Lookup("rapid.checks")
	if f == nil {
		return
	}
	set := false
	flag.Visit(func(g *flag.Flag) { set = set || g.Name == "rapid.checks" })
	if _, env := os.LookupEnv("RAPID_CHECKS"); set || env {
		return
	}
	old := f.Value.String()
	if err := flag.Set("rapid.checks", fmt.Sprint(n)); err != nil {
		t.Fatalf("set -rapid.checks: %v", err)
	}
	t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
}

// run is one store's run of a lesson.
type run struct {
	store  string
	frames []sim.Frame
	text   string // sim.FormatFrames in English
	json   any    // the frames' JSON, decoded
}

// runOn runs a copy of l to the end on s.
func runOn(ctx context.Context, name string, l *sim.Lesson, s sim.Store) (run, error) {
	r, err := sim.NewRunner(cloneLesson(l), s)
	if err != nil {
		return run{}, fmt.Errorf("%s: NewRunner: %w", name, err)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		return run{store: name, frames: frames}, fmt.Errorf("%s: Run: %w", name, err)
	}
	raw, err := json.Marshal(frames)
	if err != nil {
		return run{}, fmt.Errorf("%s: encode frames: %w", name, err)
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return run{}, fmt.Errorf("%s: decode frames: %w", name, err)
	}
	return run{store: name, frames: frames, text: sim.FormatFrames(frames, sim.English), json: decoded}, nil
}

// divergence describes how b differs from a, or returns "" when they agree.
func divergence(a, b run) string {
	if a.text == b.text && reflect.DeepEqual(a.json, b.json) {
		return ""
	}
	n := max(len(a.frames), len(b.frames))
	for i := range n {
		if i >= len(a.frames) || i >= len(b.frames) {
			return fmt.Sprintf("%s has %d frames, %s has %d", a.store, len(a.frames), b.store, len(b.frames))
		}
		fa, fb := sim.FormatFrame(a.frames[i], sim.English), sim.FormatFrame(b.frames[i], sim.English)
		ja, _ := json.MarshalIndent(a.frames[i], "", "  ")
		jb, _ := json.MarshalIndent(b.frames[i], "", "  ")
		if fa != fb {
			return fmt.Sprintf("first differing frame: %d (- %s, + %s)\n%s", i, a.store, b.store, lineDiff(fa, fb))
		}
		if string(ja) != string(jb) {
			return fmt.Sprintf("first differing frame: %d, same text, different JSON (- %s, + %s)\n%s", i, a.store, b.store, lineDiff(string(ja), string(jb)))
		}
	}
	return fmt.Sprintf("%s and %s differ, but no single frame does", a.store, b.store)
}

// storeOpener opens a fresh store for one run and returns how to close it.
type storeOpener struct {
	name string
	open func() (sim.Store, func() error, error)
}

// compareAll runs l on every store and fails t on any error or divergence.
func compareAll(t interface {
	Helper()
	Fatalf(string, ...any)
}, ctx context.Context, l *sim.Lesson, stores []storeOpener) []run {
	t.Helper()
	runs := make([]run, 0, len(stores))
	for _, o := range stores {
		s, closeFn, err := o.open()
		if err != nil {
			t.Fatalf("%s: open store: %v", o.name, err)
		}
		r, err := runOn(ctx, o.name, l, s)
		cerr := closeFn()
		if err != nil {
			t.Fatalf("%v\nlesson:\n%s", err, lessonYAML(l))
		}
		if cerr != nil {
			t.Fatalf("%s: close store: %v", o.name, cerr)
		}
		runs = append(runs, r)
	}
	for _, r := range runs[1:] {
		if d := divergence(runs[0], r); d != "" {
			t.Fatalf("divergence between %s and %s\nlesson:\n%s\n%s", runs[0].store, r.store, lessonYAML(l), d)
		}
	}
	return runs
}

// openers returns the three stores: the reference model, the embedded
// backend and the real redis-server at url.
func openers(ctx context.Context, t *testing.T, url string) []storeOpener {
	t.Helper()
	emb := lessontest.Open(t, backend.Config{})
	rb := lessontest.Open(t, backend.Config{URL: url})
	fromBackend := func(b *backend.Backend) func() (sim.Store, func() error, error) {
		return func() (sim.Store, func() error, error) {
			s, err := b.NewStore()
			if err != nil {
				return nil, nil, err
			}
			return s, func() error { return s.Close(ctx) }, nil
		}
	}
	return []storeOpener{
		{"refmodel", func() (sim.Store, func() error, error) { return refmodel.New(), func() error { return nil }, nil }},
		{"embedded", fromBackend(emb)},
		{"redis-server", fromBackend(rb)},
	}
}

// leftoverKeys lists the keys under backend.KeyNamespace on the server, with
// SCAN (never KEYS).
func leftoverKeys(ctx context.Context, t *testing.T, srv *redistest.Server) []string {
	t.Helper()
	var out []string
	it := srv.Client(t).Scan(ctx, 0, backend.KeyNamespace+"*", 100).Iterator()
	for it.Next(ctx) {
		out = append(out, it.Val())
	}
	if err := it.Err(); err != nil {
		t.Fatalf("SCAN: %v", err)
	}
	return out
}

// TestModelMatchesBackends runs random lessons, then the course's own lessons
// (those whose variant the model covers), on the reference model, the
// embedded backend and a real redis-server, and requires identical frames and
// no error; at the end no key may remain under "lockstep:" on the server.
func TestModelMatchesBackends(t *testing.T) {
	setDefaultChecks(t, defaultChecks)
	ctx := t.Context()
	srv := redistest.Start(t)
	stores := openers(ctx, t, srv.URL)
	start := time.Now()
	var nLessons, steps int
	variants := map[string]int{}
	outcomes := map[sim.Outcome]int{}
	violations := map[string]int{}
	calls := map[string]int{} // "script outcome" of every call made
	retried := 0              // idempotent-unlock calls repeating an earlier unlock id
	t.Run("frames", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			l := genLesson(rt)
			runs := compareAll(rt, ctx, l, stores)
			nLessons++
			steps += len(l.Steps)
			variants[l.Variant]++
			unlockIDs := map[string]bool{}
			for _, f := range runs[0].frames[1:] {
				outcomes[f.Outcome]++
				for _, v := range f.Violations {
					violations[v.Name]++
				}
				for _, c := range f.Calls {
					calls[c.Script+" "+string(c.Outcome)]++
					if c.Script == "idempotent-unlock/release" && len(c.Args) == 3 {
						if unlockIDs[c.Args[1]] {
							retried++
						}
						unlockIDs[c.Args[1]] = true
					}
				}
			}
		})
	})
	t.Logf("%d lessons (%d steps) on 3 stores in %s; variants %v; outcomes %v; violations (frames showing one) %v; calls %v; retried unlock ids %d",
		nLessons, steps, time.Since(start).Round(time.Millisecond), variants, outcomes, violations, calls, retried)
	t.Run("course lessons", func(t *testing.T) {
		course, err := lessons.All()
		if err != nil {
			t.Fatalf("load the course: %v", err)
		}
		compared := 0
		for _, l := range course {
			if !slices.Contains(modeledVariants(), l.Variant) {
				t.Logf("%s: variant %s not modeled, skipped", l.File, l.Variant)
				continue
			}
			compareAll(t, ctx, l, stores)
			compared++
		}
		t.Logf("%d of %d course lessons compared", compared, len(course))
	})
	t.Run("no keys left on redis-server", func(t *testing.T) {
		if left := leftoverKeys(ctx, t, srv); len(left) > 0 {
			t.Fatalf("%d keys under %q remain after every store was closed: %s", len(left), backend.KeyNamespace, strings.Join(left, " "))
		}
	})
}

// TestRenderedLessonsLoad keeps the repro printer honest: every generated
// lesson, written out as YAML, loads back to the lesson it came from.
func TestRenderedLessonsLoad(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		l := genLesson(rt)
		src := lessonYAML(l)
		got, err := sim.Load("prop.yaml", []byte(src))
		if err != nil {
			rt.Fatalf("rendered lesson does not load: %v\n%s", err, src)
		}
		want := cloneLesson(l)
		want.File = "prop.yaml"
		for i := range got.Steps {
			got.Steps[i].Pos, got.Steps[i].ActorPos = sim.Pos{}, sim.Pos{}
			if d := got.Steps[i].Do; d == sim.ActAdvance || d == sim.ActClockJump {
				got.Steps[i].Lock = "" // Load gives every step the lesson's lock; these ignore it
			}
			want.Steps[i].Pos = sim.Pos{}
		}
		for i := range got.Actors {
			got.Actors[i].Pos = sim.Pos{}
		}
		for i := range want.Steps {
			if len(want.Steps[i].ExpectViolations) == 0 {
				want.Steps[i].ExpectViolations = got.Steps[i].ExpectViolations
			}
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("round trip changed the lesson\nwant %+v\ngot  %+v\n%s", want, got, src)
		}
	})
}

// relabel is a store that shows every resource's writer as "X": a stand-in
// for a backend that diverges, to check how a divergence is reported.
type relabel struct{ *refmodel.Store }

func (s relabel) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	res, err := s.Store.Exec(ctx, b)
	if err != nil {
		return nil, err
	}
	for i, k := range res.Keys {
		fs := append([]sim.Field(nil), k.Fields...)
		for j := range fs {
			if fs[j].Name == "writer" {
				fs[j].Value = "X"
			}
		}
		res.Keys[i].Fields = fs
	}
	return res, nil
}

// TestDivergenceIsReported checks the report of a divergence: the first
// differing frame, as a line diff of its text.
func TestDivergenceIsReported(t *testing.T) {
	l := &sim.Lesson{ID: "diff", Variant: "hash-nil", Lease: time.Second, Lock: "lock", Seed: 7,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Actor: "A", Do: sim.ActWrite, Lock: "lock", Value: "paid"},
			{Do: sim.ActAdvance, By: time.Millisecond},
		}}
	a, err := runOn(t.Context(), "refmodel", l, refmodel.New())
	if err != nil {
		t.Fatal(err)
	}
	b, err := runOn(t.Context(), "relabel", l, relabel{refmodel.New()})
	if err != nil {
		t.Fatal(err)
	}
	d := divergence(a, b)
	for _, want := range []string{
		"first differing frame: 2 (- refmodel, + relabel)",
		"-    key   resource:lock hash {value=paid writer=A} pttl=600001ms\n+    key   resource:lock hash {value=paid writer=X} pttl=600001ms\n",
		"  == step 2 · t=0ms · A write",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("report lacks %q:\n%s", want, d)
		}
	}
	if d := divergence(a, a); d != "" {
		t.Errorf("a run diverges from itself: %s", d)
	}
}
