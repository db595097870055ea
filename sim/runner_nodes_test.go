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
	// The failed attempt unlocks every node it reaches (Redlock: even those
	// it believes it did not lock): node 2's release finds A's token.
	sameCalls(t, b, []nodeCall{{2, "local-count/acquire", sim.Busy}, {3, "local-count/acquire", sim.Acquired}, {2, "local-count/release", sim.NotOwner}, {3, "local-count/release", sim.Released}})
	if !b.Nodes[1][0].Exists() {
		t.Errorf("B's undo deleted A's key on node 2")
	}
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

// TestRunNodesUndoWithoutCompare: setnx-del's release is a bare DEL, so
// B's failed attempt, which unlocks every node it reaches, deletes A's keys
// on the nodes that refused B: wrong-owner-release.
func TestRunNodesUndoWithoutCompare(t *testing.T) {
	l := &sim.Lesson{
		ID: "undo-del", Variant: "setnx-del", Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{3}, Expect: sim.Acquired},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Expect: sim.Busy, ExpectViolations: []string{sim.InvWrongOwnerRelease}},
		},
	}
	frames, r := runFrames(t, l, refmodel.New())
	for _, f := range r.Failures() {
		t.Error(f)
	}
	b := frames[2]
	for n, keys := range b.Nodes {
		if keys[0].Exists() {
			t.Errorf("node %d keeps %v after B's DELs", n+1, keys[0])
		}
	}
	if hasViolation(frames[1], sim.InvWrongOwnerRelease) {
		t.Error("wrong-owner-release on A's acquire")
	}
}

// TestRunNodesMajorityByOwner runs a variant that counts in Redis on three
// nodes whose counts differ: a nested acquire misses node 1, and the
// release misses node 3, so node 2 keeps A at 1 and node 3 at 2. A's owner
// id is on a majority: the majority's view holds A (count 1, the count two
// nodes keep), the release is STILL_HELD, A's belief rests on Redis, the
// diagram has a transition, and B is BUSY.
func TestRunNodesMajorityByOwner(t *testing.T) {
	l := &sim.Lesson{
		ID: "by-owner", Variant: "hash-refresh", Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Unreachable: []int{1}},
			{Actor: "A", Do: sim.ActRelease, Lock: "lock", Unreachable: []int{3}},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock"},
		},
	}
	frames, r := runFrames(t, l, refmodel.New())
	if len(r.Failures()) > 0 {
		t.Fatalf("failures: %v", r.Failures())
	}
	if f := frames[2]; f.Outcome != sim.Reentered {
		t.Fatalf("nested acquire: %s, want REENTERED", f.Outcome)
	}
	rel := frames[3]
	if rel.Outcome != sim.StillHeld {
		t.Errorf("release: %s, want STILL_HELD (a majority keeps A's hold)", rel.Outcome)
	}
	k := key(t, rel, "lock:lock", false)
	a := rel.Actors[0]
	if len(a.Holds) != 1 || a.Holds[0].Count != 1 || !a.Holds[0].InRedis {
		t.Fatalf("after the release A: %+v, want count 1 in Redis", a)
	}
	if k.Type != sim.TypeHash || len(k.Fields) != 1 || k.Fields[0].Name != a.Holds[0].Token || k.Fields[0].Value != "1" {
		t.Errorf("after the release the majority holds %+v, want A's owner id at 1", k)
	}
	if lv := rel.Locks[0]; lv.Owner != a.Holds[0].Token || lv.Count != 1 || lv.Transition == nil || lv.Transition.ID == sim.OffDiagram {
		t.Errorf("after the release the lock view is %+v (transition %+v), want A's at 1 on the diagram", lv, lv.Transition)
	}
	if f := frames[4]; f.Outcome != sim.Busy {
		t.Errorf("B's acquire: %s, want BUSY", f.Outcome)
	}
}

// TestRunNodesLeakByNobody checks leaked-hold for a hold a majority keeps
// that nobody believes in: A's release reaches only node 1 (NOT_OWNER, and
// A lets go), nodes 2 and 3 keep A's token, B is BUSY, and at the end the
// leak names A.
func TestRunNodesLeakByNobody(t *testing.T) {
	for _, v := range []string{"local-count", "hash-refresh"} {
		t.Run(v, func(t *testing.T) {
			l := &sim.Lesson{
				ID: "leak-nobody", Variant: v, Lease: 30 * time.Second, Lock: "lock", Nodes: 3,
				Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
				Steps: []sim.Step{
					{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
					{Actor: "A", Do: sim.ActRelease, Lock: "lock", Unreachable: []int{2, 3}, Expect: sim.NotOwner},
					{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Expect: sim.Busy},
				},
			}
			frames, r := runFrames(t, l, refmodel.New())
			for _, f := range r.Failures() {
				t.Error(f)
			}
			end := frames[len(frames)-1]
			var leak *sim.Violation
			for i, v := range end.Violations {
				if v.Name == sim.InvLeakedHold {
					leak = &end.Violations[i]
				}
			}
			if leak == nil || len(leak.Actors) != 1 || leak.Actors[0] != "A" {
				t.Fatalf("at the end: violations %+v, want leaked-hold naming A", end.Violations)
			}
			if hasViolation(frames[2], sim.InvLeakedHold) {
				t.Error("leaked-hold before the lesson's end")
			}
		})
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
