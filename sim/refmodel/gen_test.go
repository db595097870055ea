package refmodel_test

import (
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"lockstep/sim"
)

// Actor lifecycle as the generator tracks it (the rules of sim.Validate).
const (
	running = "running"
	paused  = "paused"
	crashed = "crashed"
)

// stepKinds weights the actions the generator draws: SampledFrom picks each
// entry with the same chance and shrinks towards the first.
var stepKinds = []sim.Action{
	sim.ActAcquire, sim.ActAcquire, sim.ActAcquire, sim.ActAcquire,
	sim.ActRelease, sim.ActRelease, sim.ActRelease,
	sim.ActWrite, sim.ActWrite,
	sim.ActAdvance, sim.ActAdvance, sim.ActAdvance,
	sim.ActPause, sim.ActResume, sim.ActResume,
	sim.ActFork, sim.ActFork,
	sim.ActCrash,
}

// genLesson draws a random lesson that sim.Validate accepts: one lock, 2-3
// declared actors, 5-25 steps that respect each actor's lifecycle.
func genLesson(t *rapid.T) *sim.Lesson {
	variant := rapid.SampledFrom(sim.Variants()).Draw(t, "variant")
	fencing := false
	if variant == "token-count" {
		fencing = rapid.Bool().Draw(t, "fencing")
	}
	leaseMS := rapid.Int64Range(100, 5000).Draw(t, "lease_ms")
	l := &sim.Lesson{
		ID:      "prop",
		Title:   sim.Plain("generated"),
		Variant: variant,
		Lease:   time.Duration(leaseMS) * time.Millisecond,
		Fencing: fencing,
		Lock:    rapid.SampledFrom([]string{"lock", "order:42"}).Draw(t, "lock"),
		// Never 0: a lesson file with seed 0 (or none) derives it from the id,
		// and the rendered repro must run the same.
		Seed: rapid.Uint64Min(1).Draw(t, "seed"),
	}
	status := map[string]string{}
	var order []string // actors in creation order
	nActors := rapid.IntRange(2, 3).Draw(t, "actors")
	for i := range nActors {
		id := string(rune('A' + i))
		// Shared instances matter to instance-owner.
		inst := rapid.SampledFrom([]string{"", "svc-1", "svc-2"}).Draw(t, "instance_"+id)
		l.Actors = append(l.Actors, sim.ActorSpec{ID: id, Instance: inst})
		status[id] = running
		order = append(order, id)
	}
	children := 0
	nSteps := rapid.IntRange(5, 25).Draw(t, "steps")
	for i := range nSteps {
		var run, pau []string
		for _, id := range order {
			switch status[id] {
			case running:
				run = append(run, id)
			case paused:
				pau = append(pau, id)
			}
		}
		kind := rapid.SampledFrom(stepKinds).Draw(t, "do")
		switch {
		case kind == sim.ActResume && len(pau) == 0:
			kind = sim.ActAdvance
		case kind != sim.ActResume && kind != sim.ActAdvance && len(run) == 0:
			kind = sim.ActAdvance
			if len(pau) > 0 {
				kind = sim.ActResume
			}
		}
		st := sim.Step{Do: kind, Pos: sim.Pos{Line: i + 1, Col: 1}}
		switch kind {
		case sim.ActAdvance:
			st.By = time.Duration(rapid.OneOf(
				rapid.Int64Range(1, 6000),
				// Land exactly on, or next to, a lease's end.
				rapid.SampledFrom([]int64{leaseMS, leaseMS - 1, leaseMS + 1, 1}),
			).Draw(t, "by_ms")) * time.Millisecond
		case sim.ActResume:
			st.Actor = rapid.SampledFrom(pau).Draw(t, "actor")
			st.Lock = l.Lock // every step but advance names a lock
			status[st.Actor] = running
		default:
			st.Actor = rapid.SampledFrom(run).Draw(t, "actor")
			st.Lock = l.Lock
		}
		switch kind {
		case sim.ActAcquire:
			if rapid.IntRange(0, 4).Draw(t, "own_lease") == 0 {
				st.Lease = time.Duration(rapid.Int64Range(100, 5000).Draw(t, "step_lease_ms")) * time.Millisecond
			}
		case sim.ActWrite:
			st.Value = rapid.SampledFrom([]string{"paid", "shipped", "v3"}).Draw(t, "value")
		case sim.ActPause:
			status[st.Actor] = paused
		case sim.ActCrash:
			status[st.Actor] = crashed
		case sim.ActFork:
			children++
			st.Child = fmt.Sprintf("C%d", children)
			st.Context = rapid.SampledFrom([]string{"inherit", "lost"}).Draw(t, "context")
			status[st.Child] = running
			order = append(order, st.Child)
		}
		// Now and then an expectation, so that checks (and failed ones) are
		// compared too; they never make Run fail.
		if rapid.IntRange(0, 3).Draw(t, "expect") == 0 {
			st.Expect = rapid.SampledFrom(sim.OutcomesFor(kind)).Draw(t, "outcome")
			if rapid.Bool().Draw(t, "expect_violation") {
				st.ExpectViolations = []string{rapid.SampledFrom(sim.Invariants).Draw(t, "violation")}
			}
		}
		l.Steps = append(l.Steps, st)
	}
	if err := sim.Validate(l); err != nil {
		t.Fatalf("generator made an invalid lesson: %v\n%s", err, lessonYAML(l))
	}
	return l
}

// cloneLesson copies l deeply enough that one run cannot affect another.
func cloneLesson(l *sim.Lesson) *sim.Lesson {
	c := *l
	c.Actors = append([]sim.ActorSpec(nil), l.Actors...)
	c.Steps = make([]sim.Step, len(l.Steps))
	for i, s := range l.Steps {
		s.ExpectViolations = append([]string(nil), s.ExpectViolations...)
		c.Steps[i] = s
	}
	return &c
}

// lessonYAML renders l as a lesson file (shared/spec/lesson-format.md) that
// sim.Load reads back to the same lesson, so a failing case can be saved and
// replayed with the CLI.
func lessonYAML(l *sim.Lesson) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\n", l.ID)
	fmt.Fprintf(&b, "title: %q\n", l.Title.In(sim.English))
	fmt.Fprintf(&b, "variant: %s\n", l.Variant)
	fmt.Fprintf(&b, "lease: %dms\n", l.Lease.Milliseconds())
	if l.Fencing {
		b.WriteString("fencing: true\n")
	}
	fmt.Fprintf(&b, "lock: %q\n", l.Lock)
	fmt.Fprintf(&b, "seed: %d\n", l.Seed)
	b.WriteString("actors:\n")
	for _, a := range l.Actors {
		fmt.Fprintf(&b, "  - id: %s\n", a.ID)
		if a.Instance != "" {
			fmt.Fprintf(&b, "    instance: %s\n", a.Instance)
		}
	}
	b.WriteString("steps:\n")
	for _, s := range l.Steps {
		if s.Do == sim.ActAdvance {
			fmt.Fprintf(&b, "  - do: advance\n    by: %dms\n", s.By.Milliseconds())
		} else {
			fmt.Fprintf(&b, "  - actor: %s\n    do: %s\n", s.Actor, s.Do)
		}
		switch s.Do {
		case sim.ActAcquire, sim.ActRelease, sim.ActWrite:
			if s.Lock != l.Lock {
				fmt.Fprintf(&b, "    lock: %q\n", s.Lock)
			}
		}
		if s.Lease > 0 {
			fmt.Fprintf(&b, "    lease: %dms\n", s.Lease.Milliseconds())
		}
		if s.Do == sim.ActWrite {
			fmt.Fprintf(&b, "    value: %q\n", s.Value)
		}
		if s.Do == sim.ActFork {
			fmt.Fprintf(&b, "    child: %s\n    context: %s\n", s.Child, s.Context)
		}
		if s.Expect != "" {
			fmt.Fprintf(&b, "    expect: %s\n", s.Expect)
		}
		if len(s.ExpectViolations) > 0 {
			fmt.Fprintf(&b, "    expect_violation: [%s]\n", strings.Join(s.ExpectViolations, ", "))
		}
	}
	return b.String()
}

// lineDiff is a small line diff of a and b (longest common subsequence):
// lines only in a start with "- ", only in b with "+ ", common ones with "  ".
func lineDiff(a, b string) string {
	x, y := strings.Split(strings.TrimSuffix(a, "\n"), "\n"), strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out.WriteString("  " + x[i] + "\n")
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + y[j] + "\n")
			j++
		default:
			out.WriteString("- " + x[i] + "\n")
			i++
		}
	}
	return out.String()
}
