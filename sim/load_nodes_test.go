package sim_test

import (
	"strings"
	"testing"
	"time"

	"lockstep/sim"
)

// nodesHeader starts a lesson on three nodes: two actors, A and B, and the
// steps key, so that the first step line a case adds is line 9.
const nodesHeader = `variant: local-count
lease: 30s
nodes: 3
actors:
  - id: A
  - id: B
lock: order:42
steps:
`

// withNodesSteps returns nodesHeader followed by lines, the first of which
// is line 9.
func withNodesSteps(lines ...string) string {
	return nodesHeader + strings.Join(lines, "\n") + "\n"
}

// TestLoadNodes reads the lesson field nodes, the step field unreachable on
// acquire and release, and the restart action with its node.
func TestLoadNodes(t *testing.T) {
	src := withNodesSteps(
		"  - {actor: A, do: acquire, unreachable: [3], expect: ACQUIRED}",
		"  - do: restart",
		"    node: 2",
		"  - {actor: B, do: acquire, expect: ACQUIRED}",
		"  - {actor: A, do: release, unreachable: [1, 3]}",
	)
	l := mustLoad(t, "t.yaml", src)
	if l.Nodes != 3 {
		t.Errorf("Nodes = %d, want 3", l.Nodes)
	}
	if got := l.Steps[0].Unreachable; len(got) != 1 || got[0] != 3 {
		t.Errorf("step 1 unreachable %v, want [3]", got)
	}
	if s := l.Steps[1]; s.Do != sim.ActRestart || s.Node != 2 || s.Actor != "" || s.Pos != (sim.Pos{Line: 10, Col: 5}) {
		t.Errorf("restart step: %+v", s)
	}
	if got := l.Steps[3].Unreachable; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("step 4 unreachable %v, want [1 3]", got)
	}
	if got := sim.OutcomesFor(sim.ActRestart); len(got) != 1 || got[0] != sim.OK {
		t.Errorf("OutcomesFor(restart) = %v, want [OK]", got)
	}
	if sim.Quorum(3) != 2 || sim.Quorum(4) != 3 || sim.Quorum(5) != 3 {
		t.Errorf("Quorum(3, 4, 5) = %d, %d, %d, want 2, 3, 3", sim.Quorum(3), sim.Quorum(4), sim.Quorum(5))
	}
}

// TestLoadNodesErrors pins each problem with the new fields and action, with
// the line and column of the offending token.
func TestLoadNodesErrors(t *testing.T) {
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "restart without nodes",
			src:  withSteps("  - do: restart", "    node: 1"),
			want: []string{`t.yaml:7:5: step 1: restart needs nodes to restart; add nodes: 3 to the lesson`},
		},
		{
			name: "unreachable without nodes",
			src:  withSteps("  - actor: A", "    do: acquire", "    unreachable: [2]"),
			want: []string{`t.yaml:9:18: step 1: unreachable names nodes; add nodes: 3 to the lesson`},
		},
		{
			name: "restart without its node",
			src:  withNodesSteps("  - do: restart"),
			want: []string{`t.yaml:9:5: restart: missing required field "node"`},
		},
		{
			name: "a node the lesson does not have",
			src:  withNodesSteps("  - do: restart", "    node: 4", "  - {actor: A, do: acquire, unreachable: [0, 2, 2]}"),
			want: []string{
				`t.yaml:10:11: step 1: node 4: the lesson has nodes 1 to 3`,
				`t.yaml:11:43: step 2: node 0: the lesson has nodes 1 to 3`,
				`t.yaml:11:49: step 2: unreachable names node 2 twice`,
			},
		},
		{
			name: "node not a number",
			src:  withNodesSteps("  - do: restart", "    node: two"),
			want: []string{`t.yaml:10:11: node: want a whole number, got "two"`},
		},
		{
			name: "restart with an actor",
			src:  withNodesSteps("  - {actor: A, do: restart, node: 1}"),
			want: []string{`t.yaml:9:6: field "actor" does not apply to restart`},
		},
		{
			name: "unreachable on a pause",
			src:  withNodesSteps("  - {actor: A, do: pause, unreachable: [1]}"),
			want: []string{`t.yaml:9:27: field "unreachable" does not apply to pause`},
		},
		{
			name: "too few nodes",
			src:  doc("variant: local-count", "lease: 30s", "nodes: 2", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:8: nodes: want 3 to 7 independent Redis servers, got 2`},
		},
		{
			name: "nodes with a two-step release",
			src:  doc("variant: get-then-del", "lease: 30s", "nodes: 3", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:8: nodes: the get-then-del variant's release is a GET, then a DEL in a later step, which a majority of nodes cannot share`},
		},
		{
			name: "nodes and a replica",
			src:  doc("variant: local-count", "lease: 30s", "nodes: 3", "replica: true", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:8: nodes: Redlock's nodes are independent primaries; a lesson has either nodes or replica: true`},
		},
		{
			name: "nodes and fencing",
			src:  doc("variant: local-count", "lease: 30s", "fencing: true", "nodes: 3", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:4:8: nodes: a fencing counter on several nodes would need a server of its own; leave fencing out`},
		},
		{
			name: "a write on nodes",
			src:  withNodesSteps("  - {actor: A, do: acquire}", "  - {actor: A, do: write, value: x}"),
			want: []string{`t.yaml:10:6: step 2: a lesson on several nodes has no resource to write to`},
		},
		{
			name: "a long script on nodes",
			src:  withNodesSteps("  - {actor: A, do: acquire}", "  - {actor: B, do: long-script, by: 5s}"),
			want: []string{`t.yaml:10:6: step 2: a long script busies one server; a lesson on several nodes has no node for it`},
		},
		{
			name: "every node unreachable",
			src:  withNodesSteps("  - {actor: A, do: acquire, unreachable: [1, 2, 3]}", "  - {actor: A, do: release, unreachable: [3, 1, 2]}", "  - {actor: A, do: release, unreachable: [3, 1]}"),
			want: []string{
				`t.yaml:9:42: step 1: unreachable names every node: no node answers, and there is nothing to teach; leave at least one node reachable`,
				`t.yaml:10:42: step 2: unreachable names every node: no node answers, and there is nothing to teach; leave at least one node reachable`,
			},
		},
		{
			name: "a failover on nodes",
			src:  withNodesSteps("  - {actor: A, do: acquire}", "  - {do: failover}"),
			want: []string{`t.yaml:10:6: step 2: a lesson with nodes has no replica to fail over to; restart a node with do: restart and node: N instead`},
		},
		{
			name: "node written as a string",
			src:  withNodesSteps("  - do: restart", `    node: "2"`, `  - {actor: A, do: acquire, unreachable: ["1"]}`),
			want: []string{
				`t.yaml:10:11: node: want a whole number, got "2"`,
				`t.yaml:11:43: unreachable: want a whole number, got "1"`,
			},
		},
		{
			name: "nodes written as a string",
			src:  doc("variant: local-count", "lease: 30s", `nodes: "3"`, "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:8: nodes: want a whole number, got "3"`},
		},
	})
}

// nodesLesson is a lesson on three nodes built in code that Validate
// accepts.
func nodesLesson() *sim.Lesson {
	return &sim.Lesson{
		ID: "hand-nodes", Variant: "local-count", Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{3}},
			{Do: sim.ActRestart, Node: 2},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock"},
		},
	}
}

// TestValidateNodes applies the same rules to lessons built in code, which
// carry no positions.
func TestValidateNodes(t *testing.T) {
	checkValidate(t, nodesLesson, []validateCase{
		{
			name:   "no nodes",
			change: func(l *sim.Lesson) { l.Nodes = 0 },
			want: []string{
				`steps[1].unreachable: unreachable names nodes; add nodes: 3 to the lesson`,
				`steps[2].do: restart needs nodes to restart; add nodes: 3 to the lesson`,
			},
		},
		{
			name:   "too many nodes",
			change: func(l *sim.Lesson) { l.Nodes = 8 },
			want:   []string{`nodes: want 3 to 7 independent Redis servers, got 8`},
		},
		{
			name:   "restart of node 0",
			change: func(l *sim.Lesson) { l.Steps[1].Node = 0 },
			want:   []string{`steps[2].node: restart: missing required field "node"`},
		},
		{
			name:   "unreachable node 9",
			change: func(l *sim.Lesson) { l.Steps[0].Unreachable = []int{9} },
			want:   []string{`steps[1].unreachable[1]: node 9: the lesson has nodes 1 to 3`},
		},
	})
}
