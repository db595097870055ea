package backend_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
)

// TestRedlockLessonOnBothNodeSets runs lesson 20b on three embedded nodes
// and, given the URL of a real Redis, on three redis-server processes the
// store starts for it. The frames are identical; between steps the test
// looks at the started servers themselves: each is a server of its own
// holding what the lesson says (A's key on nodes 1 and 2 only), the
// restart kills node 2's process and starts an empty one elsewhere, and at
// the end no process and no key is left, on the nodes or on the Redis at
// the URL.
func TestRedlockLessonOnBothNodeSets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, err := lessons.ByID("redlock-restart")
	if err != nil {
		t.Fatal(err)
	}
	emb := newStepper(t, openBackend(t, ""), l)
	want := emb.finish()
	if info := emb.store.Info(); info.Nodes != 3 || !info.Embedded || info.NotOn != "" || emb.store.NodeAddrs() != nil {
		t.Errorf("embedded backend: store info %+v, want three embedded nodes", info)
	}

	srv := redistest.Start(t)
	tenant := srv.Client(t)
	be := openBackend(t, srv.URL)
	s := newStepper(t, be, l)
	s.to(1)
	info := s.store.Info()
	addrs := s.store.NodeAddrs()
	if info.Nodes != 3 || info.Embedded || info.NotOn != srv.Addr || info.Version == "" || len(addrs) != 3 || info.Addr != addrs[0] {
		t.Fatalf("store info %+v, nodes %v: want three started nodes, not %s", info, addrs, srv.Addr)
	}
	if slices.Contains(addrs, srv.Addr) || addrs[0] == addrs[1] || addrs[1] == addrs[2] || addrs[0] == addrs[2] {
		t.Fatalf("nodes at %v, want three servers of their own (the URL's is %s)", addrs, srv.Addr)
	}
	for _, w := range []string{"3 private redis-server nodes", "not the Redis at " + srv.Addr} {
		if !strings.Contains(info.String(), w) {
			t.Errorf("store info %q does not say %q", info, w)
		}
	}
	lockKey := s.store.Prefix() + "lock:order:42"
	holds := func(addr string) string { return client(t, addr).Get(ctx, lockKey).Val() }
	token := holds(addrs[0])
	if token == "" || holds(addrs[1]) != token || holds(addrs[2]) != "" {
		t.Fatalf("after step 1 the nodes hold %q, %q, %q: want A's token on nodes 1 and 2 only", token, holds(addrs[1]), holds(addrs[2]))
	}

	// Step 3 restarts node 2: its process is gone, a new one serves, empty.
	s.to(3)
	after := s.store.NodeAddrs()
	if !refused(addrs[1]) || after[1] == addrs[1] || after[0] != addrs[0] || after[2] != addrs[2] {
		t.Fatalf("after the restart the nodes are %v (were %v): want node 2 on a new process", after, addrs)
	}
	if n := client(t, after[1]).DBSize(ctx).Val(); n != 0 {
		t.Errorf("the restarted node holds %d keys, want none", n)
	}
	if holds(after[0]) != token {
		t.Error("after the restart node 1 lost A's key")
	}

	s.finishOnOwnServers("embedded nodes vs started nodes", want, tenant)
	for _, a := range after {
		if !refused(a) {
			t.Errorf("the node at %s still listens after Close", a)
		}
	}
	if info := s.store.Info(); info.Nodes != 3 {
		t.Errorf("store info after Close: %+v", info)
	}
}

// TestNodesWithoutRedisServer: given a URL but no redis-server on PATH, a
// lesson with nodes runs on embedded nodes, and says so; a RedisServer that
// does not exist is an error, not a silent fallback.
func TestNodesWithoutRedisServer(t *testing.T) {
	srv := redistest.Start(t)
	l, err := lessons.ByID("redlock-restart")
	if err != nil {
		t.Fatal(err)
	}
	want := newStepper(t, openBackend(t, ""), l).finish()
	t.Setenv("PATH", t.TempDir())
	s := newStepper(t, openBackend(t, srv.URL), l)
	sameFrames(t, "embedded backend vs fallback nodes", want, s.finish())
	info := s.store.Info()
	if info.Nodes != 3 || !info.Embedded || info.NotOn != srv.Addr || !strings.Contains(info.String(), "no redis-server is on PATH") {
		t.Errorf("store info %+v (%s), want embedded nodes instead of %s", info, info, srv.Addr)
	}
	if m := info.Message(); m.ID != "backend.embedded-nodes-not-on" {
		t.Errorf("store info message %v, want backend.embedded-nodes-not-on", m)
	}
	checkOwnServersOnly(t, srv, l)
}

// TestNodesEveryVariantOnEveryStore runs one timeline on three nodes under
// every variant a lesson with nodes may run, on three embedded nodes, on
// three started redis-server nodes and on the reference model: the frames
// are identical. The timeline wins nodes 1 and 2, re-enters, lets 11 s
// pass (a watchdog renews on every node), restarts node 2 and lets another
// actor win a majority.
func TestNodesEveryVariantOnEveryStore(t *testing.T) {
	t.Parallel()
	redistest.Need(t, "redis-server", "make test")
	emb := openBackend(t, "")
	real := openBackend(t, redistest.Start(t).URL)
	for _, v := range sim.Variants() {
		info, _ := sim.Variant(v)
		if info.TwoStepRelease {
			continue
		}
		l := &sim.Lesson{
			ID: "every-" + v, Variant: v, Lease: 30 * time.Second, Lock: "order:42", Nodes: 3,
			Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
			Steps: []sim.Step{
				{Actor: "A", Do: sim.ActAcquire, Lock: "order:42", Unreachable: []int{3}},
				{Actor: "A", Do: sim.ActAcquire, Lock: "order:42", Unreachable: []int{3}},
				{Do: sim.ActAdvance, By: 11 * time.Second},
				{Do: sim.ActRestart, Node: 2},
				{Actor: "B", Do: sim.ActAcquire, Lock: "order:42"},
				{Actor: "A", Do: sim.ActRelease, Lock: "order:42"},
				{Actor: "A", Do: sim.ActRelease, Lock: "order:42"},
				{Actor: "B", Do: sim.ActRelease, Lock: "order:42"},
			},
		}
		want := newStepper(t, emb, l).finish()
		s := newStepper(t, real, l)
		sameFrames(t, v+": embedded vs started nodes", want, s.finish())
		// Each run's three processes take one of the backend's MaxPairs
		// places until its store is closed.
		if err := s.store.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		model, _ := onModel(t, l)
		sameFrames(t, v+": embedded vs the reference model", want, model)
	}
}

// TestNodesMajorityByOwnerOnEveryStore runs, on three embedded nodes, on
// three started redis-server nodes and on the reference model, the
// timelines of the nodes fixes: a variant that counts in Redis whose nodes
// count differently yet agree on the owner (the release is STILL_HELD, B
// is BUSY); a release that reaches one node, leaving A's token on a
// majority nobody believes in (leaked-hold at the end); a failed acquire
// that unlocks every node it reaches (with setnx-del's bare DEL, deleting
// A's keys); and a lesson whose only step reaches no node, which still runs
// on its nodes. The frames are
// identical.
func TestNodesMajorityByOwnerOnEveryStore(t *testing.T) {
	t.Parallel()
	redistest.Need(t, "redis-server", "make test")
	emb := openBackend(t, "")
	real := openBackend(t, redistest.Start(t).URL)
	lock := "order:42"
	// onThreeNodes is lesson id of variant on three nodes, the lock lock
	// with a 30 s lease.
	onThreeNodes := func(id, variant string, actors []sim.ActorSpec, steps []sim.Step) *sim.Lesson {
		return &sim.Lesson{ID: id, Variant: variant, Lease: 30 * time.Second, Lock: lock, Nodes: 3, Actors: actors, Steps: steps}
	}
	ab := []sim.ActorSpec{{ID: "A"}, {ID: "B"}}
	tests := []struct {
		name  string
		l     *sim.Lesson
		check func(t *testing.T, frames []sim.Frame)
	}{
		{
			name: "by owner",
			l: onThreeNodes("by-owner", "hash-refresh", ab, []sim.Step{
				{Actor: "A", Do: sim.ActAcquire, Lock: lock},
				{Actor: "A", Do: sim.ActAcquire, Lock: lock, Unreachable: []int{1}, Expect: sim.Reentered},
				{Actor: "A", Do: sim.ActRelease, Lock: lock, Unreachable: []int{3}, Expect: sim.StillHeld},
				{Actor: "B", Do: sim.ActAcquire, Lock: lock, Expect: sim.Busy},
			}),
			check: func(t *testing.T, frames []sim.Frame) {
				if a := frames[3].Actors[0]; len(a.Holds) != 1 || !a.Holds[0].InRedis || frames[3].Locks[0].Owner != a.Holds[0].Token {
					t.Errorf("after the release: A %+v, lock %+v: want A's hold in Redis", a, frames[3].Locks[0])
				}
			},
		},
		{
			name: "leak by nobody",
			l: onThreeNodes("leak-nobody", "hash-refresh", ab, []sim.Step{
				{Actor: "A", Do: sim.ActAcquire, Lock: lock},
				{Actor: "A", Do: sim.ActRelease, Lock: lock, Unreachable: []int{2, 3}, Expect: sim.NotOwner},
				{Actor: "B", Do: sim.ActAcquire, Lock: lock, Expect: sim.Busy, ExpectViolations: []string{sim.InvLeakedHold}},
			}),
		},
		{
			name: "undo on every node",
			l: onThreeNodes("undo-del", "setnx-del", ab, []sim.Step{
				{Actor: "A", Do: sim.ActAcquire, Lock: lock, Unreachable: []int{3}, Expect: sim.Acquired},
				{Actor: "B", Do: sim.ActAcquire, Lock: lock, Expect: sim.Busy, ExpectViolations: []string{sim.InvWrongOwnerRelease}},
			}),
			check: func(t *testing.T, frames []sim.Frame) {
				if n := len(frames[2].Calls); n != 6 {
					t.Errorf("B's attempt made %d calls, want an acquire and a release on each of 3 nodes", n)
				}
			},
		},
		{
			name: "no step reaches a node",
			l:    onThreeNodes("no-call", "hash-refresh", []sim.ActorSpec{{ID: "A"}}, []sim.Step{{Actor: "A", Do: sim.ActAcquire, Lock: lock, Nested: true, Expect: sim.NotOwner}}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newStepper(t, emb, tt.l)
			want := e.finish()
			s := newStepper(t, real, tt.l)
			sameFrames(t, "embedded vs started nodes", want, s.finish())
			if info := e.store.Info(); info.Nodes != 3 || !info.Embedded {
				t.Errorf("embedded store info %+v, want three embedded nodes", info)
			}
			if info, addrs := s.store.Info(), s.store.NodeAddrs(); info.Nodes != 3 || info.Embedded || len(addrs) != 3 {
				t.Errorf("store info %+v, nodes %v: want three started nodes", info, addrs)
			}
			if err := s.store.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			model, _ := onModel(t, tt.l)
			sameFrames(t, "embedded vs the reference model", want, model)
			if tt.check != nil {
				tt.check(t, want)
			}
		})
	}
}
