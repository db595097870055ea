package refmodel_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"lockstep/internal/lessontest"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// Actor lifecycle as the generator tracks it (the rules of sim.Validate).
const (
	running = "running"
	paused  = "paused"
	crashed = "crashed"
	exited  = "exited"
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
	sim.ActFinishRelease,
	sim.ActExit,
	sim.ActClockJump,
	sim.ActLongScript,
}

// twoStepKinds is stepKinds for a variant whose release takes two steps
// (get-then-del): finish-release comes up as often as release, so that a
// pending check is often finished, sometimes late.
var twoStepKinds = append(slices.Clone(stepKinds), sim.ActFinishRelease, sim.ActFinishRelease)

// requiredVariants are the variants the model must cover: the spec's
// (docs/lesson-format.md, "Variants") and the additions of
// lessons/README.md. TestRequiredVariantsAreModeled also requires every
// variant of sim.Variants() to be covered.
var requiredVariants = []string{
	"get-then-del", "hash-nil", "hash-refresh", "idempotent-unlock", "instance-owner",
	"local-count", "setnx-del", "token-count", "watchdog",
}

// modeledVariants returns the variants of sim.Variants() whose every script
// refmodel models, sorted. A variant added later with scripts of its own is
// left out until the model learns them (TestRequiredVariantsAreModeled fails
// meanwhile).
func modeledVariants() []string {
	var out []string
	for _, name := range sim.Variants() {
		info, _ := sim.Variant(name)
		ok := true
		for _, sc := range info.Scripts {
			ok = ok && slices.Contains(refmodel.Scripts(), sc.Name)
		}
		if ok {
			out = append(out, name)
		}
	}
	return out
}

// durationMS draws a clock move in whole ms: 1ms..6s, or exactly on (or next
// to) a lease's end.
func durationMS(t *rapid.T, leaseMS int64, label string) time.Duration {
	return time.Duration(rapid.OneOf(
		rapid.Int64Range(1, 6000),
		rapid.SampledFrom([]int64{leaseMS, leaseMS - 1, leaseMS + 1, 1}),
	).Draw(t, label)) * time.Millisecond
}

// genLesson draws a random lesson that sim.Validate accepts: one lock, 2-3
// declared actors (some sharing a request id), 5-25 steps that respect each
// actor's lifecycle, using every action but failover (and no replica).
func genLesson(t *rapid.T) *sim.Lesson {
	variant := rapid.SampledFrom(modeledVariants()).Draw(t, "variant")
	// Every variant may fence (spec: fencing is a lesson option); those whose
	// acquire script issues no token get one from resource/fence.
	fencing := rapid.Bool().Draw(t, "fencing")
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
	// A fenced resource may check the token in one call and write in the
	// next (check_then_write): its writes then take a finish-write.
	l.CheckThenWrite = fencing && rapid.Bool().Draw(t, "check_then_write")
	status := map[string]string{}
	var order []string // actors in creation order
	nActors := rapid.IntRange(2, 3).Draw(t, "actors")
	for i := range nActors {
		id := string(rune('A' + i))
		// Shared instances matter to instance-owner and watchdog, shared
		// request ids to hash-refresh (two tasks on one reused thread id).
		inst := rapid.SampledFrom([]string{"", "svc-1", "svc-2"}).Draw(t, "instance_"+id)
		req := rapid.SampledFrom([]string{"", "", "thread-1", "thread-2"}).Draw(t, "request_id_"+id)
		l.Actors = append(l.Actors, sim.ActorSpec{ID: id, Instance: inst, RequestID: req})
		status[id] = running
		order = append(order, id)
	}
	kinds := stepKinds
	info, _ := sim.Variant(variant)
	if info.TwoStepRelease {
		kinds = twoStepKinds
	}
	if l.CheckThenWrite {
		kinds = append(slices.Clone(kinds), sim.ActFinishWrite)
	}
	// followUp is the step the latest release calls for, until its actor
	// takes it: the retry (another release) of a release whose reply was
	// lost, or the finish-release of a two-step release's check, which may be
	// pending. At each step it comes with a chance of one in three. (Other
	// actors' finish-release steps answer NOT_OWNER with no call.)
	var followUp struct {
		actor string
		do    sim.Action
	}
	children := 0
	nSteps := rapid.IntRange(5, 25).Draw(t, "steps")
	for i := range nSteps {
		run, pau := lessontest.ByStatus(order, status, running, paused)
		kind := rapid.SampledFrom(kinds).Draw(t, "do")
		follow := followUp.actor != "" && status[followUp.actor] == running && rapid.IntRange(0, 2).Draw(t, "follow_up") == 0
		if follow {
			kind = followUp.do
		}
		clock := kind == sim.ActAdvance || kind == sim.ActClockJump // steps with no actor
		switch {
		case kind == sim.ActResume && len(pau) == 0:
			kind = sim.ActAdvance
		case kind != sim.ActResume && !clock && len(run) == 0:
			kind = sim.ActAdvance
			if len(pau) > 0 {
				kind = sim.ActResume
			}
		}
		st := sim.Step{Do: kind, Pos: sim.Pos{Line: i + 1, Col: 1}}
		switch kind {
		case sim.ActAdvance:
			st.By = durationMS(t, leaseMS, "by_ms")
		case sim.ActClockJump:
			st.By = durationMS(t, leaseMS, "jump_ms")
		case sim.ActResume:
			st.Actor = rapid.SampledFrom(pau).Draw(t, "actor")
			st.Lock = l.Lock // every step but advance and clock-jump names a lock
			status[st.Actor] = running
		default:
			st.Actor = rapid.SampledFrom(run).Draw(t, "actor")
			if follow {
				st.Actor, followUp.actor = followUp.actor, ""
			}
			st.Lock = l.Lock
		}
		switch kind {
		case sim.ActAcquire:
			if rapid.IntRange(0, 4).Draw(t, "own_lease") == 0 {
				st.Lease = time.Duration(rapid.Int64Range(100, 5000).Draw(t, "step_lease_ms")) * time.Millisecond
			}
		case sim.ActRelease:
			st.ReplyLost = rapid.IntRange(0, 3).Draw(t, "reply_lost") == 0
			followUp.actor, followUp.do = "", ""
			switch {
			case st.ReplyLost:
				followUp.actor, followUp.do = st.Actor, sim.ActRelease
			case info.TwoStepRelease:
				followUp.actor, followUp.do = st.Actor, sim.ActFinishRelease
			}
		case sim.ActWrite:
			st.Value = rapid.SampledFrom([]string{"paid", "shipped", "v3"}).Draw(t, "value")
			if l.CheckThenWrite {
				followUp.actor, followUp.do = st.Actor, sim.ActFinishWrite
			}
		case sim.ActFinishWrite:
			if followUp.do == sim.ActFinishWrite && followUp.actor == st.Actor {
				followUp.actor, followUp.do = "", ""
			}
		case sim.ActLongScript:
			st.By = durationMS(t, leaseMS, "script_ms")
		case sim.ActPause:
			status[st.Actor] = paused
		case sim.ActCrash:
			status[st.Actor] = crashed
		case sim.ActExit:
			status[st.Actor] = exited
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

// lessonYAML renders l as a lesson file (docs/lesson-format.md and
// the additions of lessons/README.md) that sim.Load reads back to the same
// lesson, so a failing case can be saved and replayed with the CLI.
func lessonYAML(l *sim.Lesson) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\n", l.ID)
	fmt.Fprintf(&b, "title: %q\n", l.Title.In(sim.English))
	fmt.Fprintf(&b, "variant: %s\n", l.Variant)
	fmt.Fprintf(&b, "lease: %dms\n", l.Lease.Milliseconds())
	if l.Fencing {
		b.WriteString("fencing: true\n")
	}
	if l.CheckThenWrite {
		b.WriteString("check_then_write: true\n")
	}
	if l.Replica {
		b.WriteString("replica: true\n")
	}
	fmt.Fprintf(&b, "lock: %q\n", l.Lock)
	fmt.Fprintf(&b, "seed: %d\n", l.Seed)
	b.WriteString("actors:\n")
	for _, a := range l.Actors {
		fmt.Fprintf(&b, "  - id: %s\n", a.ID)
		if a.Instance != "" {
			fmt.Fprintf(&b, "    instance: %s\n", a.Instance)
		}
		if a.RequestID != "" {
			fmt.Fprintf(&b, "    request_id: %s\n", a.RequestID)
		}
	}
	b.WriteString("steps:\n")
	for _, s := range l.Steps {
		switch s.Do {
		case sim.ActAdvance, sim.ActClockJump:
			fmt.Fprintf(&b, "  - do: %s\n    by: %dms\n", s.Do, s.By.Milliseconds())
		case sim.ActFailover:
			fmt.Fprintf(&b, "  - do: %s\n", s.Do)
		default:
			fmt.Fprintf(&b, "  - actor: %s\n    do: %s\n", s.Actor, s.Do)
		}
		switch s.Do {
		case sim.ActAcquire, sim.ActRelease, sim.ActWrite, sim.ActFinishRelease, sim.ActFinishWrite:
			if s.Lock != l.Lock {
				fmt.Fprintf(&b, "    lock: %q\n", s.Lock)
			}
		}
		if s.Lease > 0 {
			fmt.Fprintf(&b, "    lease: %dms\n", s.Lease.Milliseconds())
		}
		if s.ReplyLost {
			b.WriteString("    reply_lost: true\n")
		}
		if s.Unreplicated {
			b.WriteString("    unreplicated: true\n")
		}
		if s.Do == sim.ActWrite {
			fmt.Fprintf(&b, "    value: %q\n", s.Value)
		}
		if s.Do == sim.ActFork {
			fmt.Fprintf(&b, "    child: %s\n    context: %s\n", s.Child, s.Context)
		}
		if s.Do == sim.ActLongScript {
			fmt.Fprintf(&b, "    by: %dms\n", s.By.Milliseconds())
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
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + x[i] + "\n")
			i++
		default:
			out.WriteString("+ " + y[j] + "\n")
			j++
		}
	}
	return out.String()
}
