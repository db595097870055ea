package backend_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/lessons"
	"lockstep/sim"
)

// runStore runs l to its end on st and returns its frames.
func runStore(t *testing.T, st *backend.Store, l *sim.Lesson) []sim.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := sim.NewRunner(l, st)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("%s: %v", l.ID, err)
	}
	return frames
}

// TestSandboxRunsLessonsWithSeveralServers: every lesson with a replica or
// with several nodes runs a learner's lock (the Redisson example's
// variant file) in the Lua sandbox, on servers the sandbox's process
// starts for the run, with the frames of the in-process embedded run; the
// store says it runs on an embedded pair or embedded nodes (a fresh-eyes
// review of issue 37: such lessons refused a visitor's lock), the two
// Redlock lessons that once differed from run to run included (the
// sandbox's miniredis moves TTLs only at each step's restore, and a step
// there is not sent again when it straddles a millisecond).
func TestSandboxRunsLessonsWithSeveralServers(t *testing.T) {
	def, err := sim.LoadVariantFile(filepath.Join("..", "examples", "variants", "redisson-rlock.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	emb := openBackend(t, "")
	ran := 0
	defer func() { t.Logf("%d lessons ran", ran) }()
	for _, l := range all {
		if !l.Replica && l.Nodes == 0 {
			continue
		}
		lv, err := explore.AsLock(l, def)
		if err != nil {
			t.Logf("%s: not under %s: %v", l.ID, def.Name, err)
			continue
		}
		st, err := emb.NewStore()
		if err != nil {
			t.Fatal(err)
		}
		want := runStore(t, st, lv)
		st.Close(context.Background())
		sst, err := sb.NewStore(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got := runStore(t, sst, lv)
		info := sst.Info()
		if err := sst.Close(context.Background()); err != nil {
			t.Errorf("%s: close: %v", l.ID, err)
		}
		sameFrames(t, l.ID+": in-process embedded vs the Lua sandbox", want, got)
		switch {
		case l.Replica && (info.Pair != backend.PairEmbedded || !info.Embedded):
			t.Errorf("%s: the sandbox's store says %+v, want an embedded pair", l.ID, info)
		case l.Nodes > 0 && (info.Nodes != l.Nodes || !info.Embedded):
			t.Errorf("%s: the sandbox's store says %+v, want %d embedded nodes", l.ID, info, l.Nodes)
		}
		ran++
	}
	if ran < 2 {
		t.Fatalf("%d lessons with a replica or nodes ran under %s, want the course's", ran, def.Name)
	}
}
