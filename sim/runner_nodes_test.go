package sim_test

import (
	"testing"
	"time"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// nodeOutcomes lists a frame's calls as node and outcome.
type nodeCall struct {
	Node    int
	Script  string
	Outcome sim.Outcome
}

func nodeCalls(f sim.Frame) []nodeCall {
	var out []nodeCall
	for _, c := range f.Calls {
		out = append(out, nodeCall{c.Node, c.Script, c.Outcome})
	}
	return out
}

func sameCalls(t *testing.T, f sim.Frame, want []nodeCall) {
	t.Helper()
	got := nodeCalls(f)
	if len(got) != len(want) {
		t.Fatalf("frame %d: calls %v, want %v", f.Index, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d call %d: %v, want %v", f.Index, i+1, got[i], want[i])
		}
	}
}

// TestRunRedlockLesson runs lesson 20b on the reference model and checks
// what the learner must see: A's majority of two nodes, node 2 empty after
// its restart while A still believes, and B's majority of nodes 2 and 3
// breaking mutual exclusion, each call with its node and its own outcome.
func TestRunRedlockLesson(t *testing.T) {
	l, err := sim.LoadFile("../lessons/20b-redlock-restart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	frames, r := runFrames(t, l, refmodel.New())
	if len(r.Failures()) > 0 {
		t.Fatalf("failures: %v", r.Failures())
	}
	const lock = "lock:order:42"
	sameCalls(t, frames[1], []nodeCall{{1, "local-count/acquire", sim.Acquired}, {2, "local-count/acquire", sim.Acquired}})
	if n := len(frames[1].Nodes); n != 3 {
		t.Fatalf("frame 1 shows %d nodes, want 3", n)
	}
	restart := frames[3]
	if !restart.Nodes[0][0].Exists() || restart.Nodes[1][0].Exists() || restart.Nodes[2][0].Exists() {
		t.Errorf("after the restart: nodes hold %v, want only node 1 to hold A's key", restart.Nodes)
	}
	if k := key(t, restart, lock, false); k.Exists() {
		t.Errorf("after the restart a majority holds %v, want none", k)
	}
	if a := restart.Actors[0]; len(a.Holds) != 1 || a.Holds[0].InRedis {
		t.Errorf("after the restart A: %+v, want a stale belief", a)
	}
	if tr := restart.Locks[0].Transition; tr == nil || tr.ID != sim.OffDiagram {
		t.Errorf("restart transition %+v, want off-diagram", tr)
	}
	b := frames[4]
	sameCalls(t, b, []nodeCall{{1, "local-count/acquire", sim.Busy}, {2, "local-count/acquire", sim.Acquired}, {3, "local-count/acquire", sim.Acquired}})
	if !hasViolation(b, sim.InvOverlappingHolders) {
		t.Error("B's majority reports no overlapping-holders")
	}
	sameCalls(t, frames[5], []nodeCall{{1, "local-count/release", sim.Released}, {2, "local-count/release", sim.NotOwner}, {3, "local-count/release", sim.NotOwner}})
}

// TestRunNodesNoMajority checks that an acquire short of a majority is BUSY
// and undoes its grants, and that the majority's view keeps the PTTL until
// fewer than a majority hold the key.
func TestRunNodesNoMajority(t *testing.T) {
	l := &sim.Lesson{
		ID: "no-majority", Variant: "local-count", Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{3}},
			{Do: sim.ActAdvance, By: 10 * time.Second},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Lease: 5 * time.Second, Unreachable: []int{1}},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Lease: 50 * time.Second, Unreachable: []int{2}},
		},
	}
	frames, r := runFrames(t, l, refmodel.New())
	if len(r.Failures()) > 0 {
		t.Fatalf("failures: %v", r.Failures())
	}
	// B reaches nodes 2 (A's) and 3 (free): one grant of three, undone.
	b := frames[3]
	if b.Outcome != sim.Busy {
		t.Errorf("B's acquire: %s, want BUSY", b.Outcome)
	}
	sameCalls(t, b, []nodeCall{{2, "local-count/acquire", sim.Busy}, {3, "local-count/acquire", sim.Acquired}, {3, "local-count/release", sim.Released}})
	if b.Nodes[2][0].Exists() {
		t.Errorf("node 3 keeps B's failed attempt: %v", b.Nodes[2][0])
	}
	if k := key(t, b, "lock:lock", false); k.PTTL != 20000 {
		t.Errorf("majority PTTL %d, want 20000", k.PTTL)
	}
	// B reaches nodes 1 (A's) and 3 (free) with a longer lease: busy again,
	// and the majority's PTTL is A's, the longest two nodes agree on.
	if f := frames[4]; f.Outcome != sim.Busy || key(t, f, "lock:lock", false).PTTL != 20000 {
		t.Errorf("second attempt: %s, majority %v", f.Outcome, key(t, f, "lock:lock", false))
	}
}

// TestRunNodesEveryVariant runs one timeline on three nodes under every
// variant a lesson with nodes may run, on the reference model: an outermost
// acquire on nodes 1 and 2, a nested acquire, 11 s (a watchdog renews on
// every node), a restart of node 2, another
// actor's majority, and the releases. Whatever the variant, B wins a
// majority while A believes it holds, and every call names its node.
func TestRunNodesEveryVariant(t *testing.T) {
	for _, v := range sim.Variants() {
		info, _ := sim.Variant(v)
		if info.TwoStepRelease {
			continue
		}
		t.Run(v, func(t *testing.T) {
			l := &sim.Lesson{
				ID: "every-" + v, Variant: v, Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
				Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
				Steps: []sim.Step{
					{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{3}, Expect: sim.Acquired},
					{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{3}},
					{Do: sim.ActAdvance, By: 11 * time.Second},
					{Do: sim.ActRestart, Node: 2},
					{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Expect: sim.Acquired, ExpectViolations: []string{sim.InvOverlappingHolders}},
					{Actor: "A", Do: sim.ActRelease, Lock: "lock"},
					{Actor: "A", Do: sim.ActRelease, Lock: "lock"},
					{Actor: "B", Do: sim.ActRelease, Lock: "lock"}, // setnx-del: A's bare DELs took B's keys
				},
			}
			frames, r := runFrames(t, l, refmodel.New())
			for _, f := range r.Failures() {
				t.Error(f)
			}
			if info.Watchdog {
				// The renewal at 10 s goes to every node: nodes 1 and 2 hold
				// A's lock, a majority.
				want := []sim.Outcome{sim.Renewed, sim.Renewed, sim.Gone}
				if got := frames[3].Calls; len(got) != 3 || got[0].Outcome != want[0] || got[1].Outcome != want[1] || got[2].Outcome != want[2] {
					t.Errorf("renewal calls %+v, want one per node: %v", got, want)
				}
			}
			for _, f := range frames[1:] {
				for _, c := range f.Calls {
					if c.Node < 1 || c.Node > 3 {
						t.Errorf("step %d: call %s on node %d", f.Index, c.Script, c.Node)
					}
				}
			}
		})
	}
}
