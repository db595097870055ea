package sim_test

import (
	"testing"
	"time"
)

// TestLoadAdditions39 reads the fields issue 39's lessons added: the
// lesson fields cluster and fencing_counter_ttl, the acquire field
// keep_partial and a clock-jump's node.
func TestLoadAdditions39(t *testing.T) {
	l := mustLoad(t, "t.yaml", doc("variant: token-count", "lease: 30s", "fencing: true", "fencing_counter_ttl: 60s", "cluster: true", "steps: [{do: advance, by: 1s}]"))
	if !l.Cluster || l.FencingCounterTTL != 60*time.Second {
		t.Errorf("cluster %v, fencing_counter_ttl %v: want true, 60s", l.Cluster, l.FencingCounterTTL)
	}
	l = mustLoad(t, "t.yaml", withNodesSteps(
		"  - {actor: A, do: acquire, unreachable: [2, 3], keep_partial: true}",
		"  - {do: clock-jump, node: 2, by: 5s}",
	))
	if !l.Steps[0].KeepPartial || l.Steps[1].Node != 2 {
		t.Errorf("keep_partial %v, clock-jump node %d: want true, 2", l.Steps[0].KeepPartial, l.Steps[1].Node)
	}
}

// TestLoadAdditions39Errors pins each problem with those fields.
func TestLoadAdditions39Errors(t *testing.T) {
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "fencing_counter_ttl without fencing",
			src:  doc("variant: token-count", "lease: 30s", "fencing_counter_ttl: 60s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:22: fencing_counter_ttl: the lesson issues no fencing token; add fencing: true`},
		},
		{
			name: "fencing_counter_ttl not above zero",
			src:  doc("variant: token-count", "lease: 30s", "fencing: true", "fencing_counter_ttl: 0s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:4:22: fencing_counter_ttl: duration must be greater than zero, got 0s`},
		},
		{
			name: "cluster and nodes",
			src:  doc("variant: local-count", "lease: 30s", "cluster: true", "nodes: 3", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:4:8: nodes: Redlock's nodes are independent primaries, not one Redis Cluster; a lesson has either nodes or cluster: true`},
		},
		{
			name: "keep_partial without nodes",
			src:  withSteps("  - {actor: A, do: acquire, keep_partial: true}"),
			want: []string{`t.yaml:7:43: step 1: keep_partial keeps the nodes a failed majority took; add nodes: 3 to the lesson`},
		},
		{
			name: "keep_partial on a release",
			src:  withNodesSteps("  - {actor: A, do: release, keep_partial: true}"),
			want: []string{`t.yaml:9:29: field "keep_partial" does not apply to release`},
		},
		{
			name: "clock-jump node without nodes",
			src:  withSteps("  - {do: clock-jump, node: 1, by: 5s}"),
			want: []string{`t.yaml:7:28: step 1: a clock jump on one node needs nodes; add nodes: 3 to the lesson, or leave node out to jump the server's clock`},
		},
		{
			name: "clock-jump on a node the lesson does not have",
			src:  withNodesSteps("  - {do: clock-jump, node: 4, by: 5s}"),
			want: []string{`t.yaml:9:28: step 1: node 4: the lesson has nodes 1 to 3`},
		},
	})
}
