package sim_test

import (
	"strings"
	"testing"
	"time"

	"lockstep/sim"
)

// withReplicaSteps returns header with "replica: true" after its lease,
// followed by lines, the first of which is line 8.
func withReplicaSteps(lines ...string) string {
	return strings.Replace(withSteps(lines...), "\nlease: 30s\n", "\nlease: 30s\nreplica: true\n", 1)
}

// TestLoadFailover reads the lesson field replica, the step field
// unreplicated on each action that takes it, and the failover action.
func TestLoadFailover(t *testing.T) {
	src := withReplicaSteps(
		"  - {actor: B, do: acquire, expect: ACQUIRED}",
		"  - {actor: B, do: write, value: packed, unreplicated: false, expect: ACCEPTED}",
		"  - {actor: B, do: release, unreplicated: true, expect: RELEASED}",
		"  - actor: A",
		"    do: acquire",
		"    unreplicated: true",
		"  - {actor: A, do: write, value: paid, unreplicated: true}",
		"  - do: failover",
		"    expect: OK",
		"    say: {en: The primary dies., zh-CN: 主节点宕机。, zh-TW: 主節點當機。}",
		"  - {actor: B, do: acquire, expect: ACQUIRED}",
	)
	l := mustLoad(t, "t.yaml", src)
	if err := sim.Validate(l); err != nil {
		t.Fatalf("Validate of a loaded lesson: %v", err)
	}
	if !l.Replica {
		t.Error("Replica = false, want true")
	}
	want := []struct {
		do           sim.Action
		unreplicated bool
	}{
		{sim.ActAcquire, false}, {sim.ActWrite, false}, {sim.ActRelease, true},
		{sim.ActAcquire, true}, {sim.ActWrite, true}, {sim.ActFailover, false}, {sim.ActAcquire, false},
	}
	if len(l.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(l.Steps), len(want))
	}
	for i, w := range want {
		s := l.Steps[i]
		if s.Do != w.do || s.Unreplicated != w.unreplicated {
			t.Errorf("step %d: do %s unreplicated %v, want %s %v", i+1, s.Do, s.Unreplicated, w.do, w.unreplicated)
		}
	}
	f := l.Steps[5]
	if f.Actor != "" || f.Expect != sim.OK || f.Say[sim.English] != "The primary dies." || f.Pos != (sim.Pos{Line: 15, Col: 5}) {
		t.Errorf("failover step: %+v", f)
	}
	if got := sim.OutcomesFor(sim.ActFailover); len(got) != 1 || got[0] != sim.OK {
		t.Errorf("OutcomesFor(failover) = %v, want [OK]", got)
	}
}

// TestLoadFailoverErrors pins each problem with the new fields and action,
// with the line and column of the offending token.
func TestLoadFailoverErrors(t *testing.T) {
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "failover without a replica",
			src:  withSteps("  - actor: A", "    do: acquire", "  - do: failover"),
			want: []string{`t.yaml:9:5: step 2: failover needs a replica to promote; add replica: true to the lesson`},
		},
		{
			name: "unreplicated without a replica",
			src:  withSteps("  - actor: A", "    do: acquire", "    unreplicated: true"),
			want: []string{`t.yaml:9:19: step 1: unreplicated needs a replica that misses the write; add replica: true to the lesson`},
		},
		{
			name: "unreplicated false without a replica is no problem, but replica false is no replica",
			src:  doc("variant: token-count", "lease: 30s", "replica: false", "actors: [{id: A}]", "steps:", "  - {actor: A, do: acquire, unreplicated: false}", "  - {do: failover}"),
			want: []string{`t.yaml:7:6: step 2: failover needs a replica to promote; add replica: true to the lesson`},
		},
		{
			name: "two failovers",
			src:  withReplicaSteps("  - do: failover", "  - actor: A", "    do: acquire", "  - do: failover"),
			want: []string{`t.yaml:11:5: step 3: a lesson fails over at most once (step 1 already did)`},
		},
		{
			name: "unreplicated after the failover",
			src:  withReplicaSteps("  - do: failover", "  - actor: A", "    do: acquire", "    unreplicated: true"),
			want: []string{`t.yaml:11:19: step 2: unreplicated after the failover at step 1: the promoted replica has no replica of its own`},
		},
		{
			name: "unreplicated on an action that writes nothing",
			src:  withReplicaSteps("  - actor: A", "    do: pause", "    unreplicated: true"),
			want: []string{`t.yaml:10:5: field "unreplicated" does not apply to pause`},
		},
		{
			name: "unreplicated on an advance",
			src:  withReplicaSteps("  - do: advance", "    by: 1s", "    unreplicated: true"),
			want: []string{`t.yaml:10:5: field "unreplicated" does not apply to advance`},
		},
		{
			name: "failover with an actor",
			src:  withReplicaSteps("  - actor: A", "    do: failover"),
			want: []string{`t.yaml:8:5: field "actor" does not apply to failover`},
		},
		{
			name: "failover with a lock",
			src:  withReplicaSteps("  - do: failover", "    lock: other"),
			want: []string{`t.yaml:9:5: field "lock" does not apply to failover`},
		},
		{
			name: "failover expecting a lock outcome",
			src:  withReplicaSteps("  - do: failover", "    expect: ACQUIRED"),
			want: []string{`t.yaml:9:13: unknown outcome "ACQUIRED" for failover (want one of OK)`},
		},
		{
			name: "replica not a boolean",
			src:  doc("variant: token-count", "lease: 30s", "replica: yes please", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:10: replica: want true or false, got "yes please"`},
		},
		{
			name: "unreplicated not a boolean",
			src:  withReplicaSteps("  - actor: A", "    do: write", "    value: x", "    unreplicated: 1"),
			want: []string{`t.yaml:11:19: unreplicated: want true or false, got "1"`},
		},
		{
			name: "every problem at once, in file order",
			src: withSteps(
				"  - {actor: A, do: acquire, unreplicated: true}",
				"  - do: failover",
				"  - {actor: B, do: release, unreplicated: true}",
				"  - do: failover",
			),
			want: []string{
				`t.yaml:7:43: step 1: unreplicated needs a replica that misses the write; add replica: true to the lesson`,
				`t.yaml:8:5: step 2: failover needs a replica to promote; add replica: true to the lesson`,
				`t.yaml:9:43: step 3: unreplicated needs a replica that misses the write; add replica: true to the lesson`,
				`t.yaml:10:5: step 4: failover needs a replica to promote; add replica: true to the lesson`,
			},
		},
	})
}

// replicaLesson is a lesson with a replica built in code that Validate
// accepts.
func replicaLesson() *sim.Lesson {
	return &sim.Lesson{
		ID: "hand-replica", Variant: "token-count", Lease: 30 * time.Second, Lock: "lock", Replica: true,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreplicated: true},
			{Do: sim.ActFailover},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock"},
		},
	}
}

// TestValidateFailover applies the same rules to lessons built in code, which
// carry no positions.
func TestValidateFailover(t *testing.T) {
	checkValidate(t, replicaLesson, []validateCase{
		{
			name:   "no replica",
			change: func(l *sim.Lesson) { l.Replica = false },
			want: []string{
				`steps[1].unreplicated: unreplicated needs a replica that misses the write; add replica: true to the lesson`,
				`steps[2].do: failover needs a replica to promote; add replica: true to the lesson`,
			},
		},
		{
			name: "second failover, at its position",
			change: func(l *sim.Lesson) {
				l.Steps = append(l.Steps, sim.Step{Do: sim.ActFailover, Pos: sim.Pos{Line: 20, Col: 5}})
			},
			want: []string{`<lesson>:20:5: step 4: a lesson fails over at most once (step 2 already did)`},
		},
		{
			name:   "unreplicated after the failover",
			change: func(l *sim.Lesson) { l.Steps[2].Unreplicated = true },
			want:   []string{`steps[3].unreplicated: unreplicated after the failover at step 2: the promoted replica has no replica of its own`},
		},
		{
			name: "unreplicated on a pause",
			change: func(l *sim.Lesson) {
				l.Steps = append(l.Steps, sim.Step{Actor: "A", Do: sim.ActPause, Lock: "lock", Unreplicated: true})
			},
			want: []string{
				`steps[4].unreplicated: field "unreplicated" does not apply to pause`,
			},
		},
	})
	// A failover step needs no lock, and NewRunner takes it.
	l := replicaLesson()
	l.Steps[1].Lock = ""
	if err := sim.Validate(l); err != nil {
		t.Errorf("failover without a lock: %v", err)
	}
}
