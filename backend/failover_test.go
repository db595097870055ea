package backend_test

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

func failoverLesson(t *testing.T) *sim.Lesson {
	t.Helper()
	l, err := lessons.ByID("failover")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// stepper runs a lesson one step at a time on a fresh store of be.
type stepper struct {
	t     *testing.T
	store *backend.Store
	r     *sim.Runner
}

func newStepper(t *testing.T, be *backend.Backend, l *sim.Lesson) *stepper {
	t.Helper()
	r, store := newRunner(t, be, l)
	return &stepper{t: t, store: store, r: r}
}

// to runs steps until n have run.
func (s *stepper) to(n int) {
	s.t.Helper()
	for len(s.r.Frames())-1 < n {
		if _, err := s.r.Step(context.Background()); err != nil {
			s.t.Fatal(err)
		}
	}
}

func (s *stepper) finish() []sim.Frame {
	s.t.Helper()
	s.to(len(s.r.Lesson().Steps))
	for _, f := range s.r.Failures() {
		s.t.Error(f)
	}
	return s.r.Frames()
}

// finishOnOwnServers steps s, a run on servers of its own that a Redis at a
// URL (tenant, a client of it) was given for, to its end; checks its
// frames are want (what names the two runs), that it wrote nothing to the
// Redis at the URL, and closes its store.
func (s *stepper) finishOnOwnServers(what string, want []sim.Frame, tenant *redis.Client) {
	s.t.Helper()
	sameFrames(s.t, what, want, s.finish())
	if keys := scan(s.t, tenant, "*"); len(keys) > 0 {
		s.t.Errorf("the run wrote to the Redis at the URL: %v", keys)
	}
	if err := s.store.Close(context.Background()); err != nil {
		s.t.Fatal(err)
	}
}

func client(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: 0})
	t.Cleanup(func() { c.Close() })
	return c
}

// replicationInfo returns fields of INFO replication at c.
func replicationInfo(t *testing.T, c *redis.Client, fields ...string) map[string]string {
	t.Helper()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok {
			out[k] = v
		}
	}
	for _, f := range fields {
		if _, ok := out[f]; !ok {
			out[f] = "(none)"
		}
	}
	return out
}

// refused reports whether nothing listens at addr any more.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return true
}

// onModel runs l to its end on the reference model (refmodel) and returns
// its frames and the expectations that did not hold; an error fails the
// test.
func onModel(t *testing.T, l *sim.Lesson) ([]sim.Frame, []sim.Failure) {
	t.Helper()
	r, err := sim.NewRunner(l, refmodel.New())
	if err != nil {
		t.Fatal(err)
	}
	frames, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return frames, r.Failures()
}

func sameFrames(t *testing.T, what string, want, got []sim.Frame) {
	t.Helper()
	if a, b := sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English); a != b {
		t.Fatalf("%s: frames differ:\n%s\n---\n%s", what, a, b)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Fatalf("%s: frames differ in JSON", what)
	}
}

// TestFailoverLessonOnBothPairs runs lesson 20 on the embedded pair and,
// given the URL of a real Redis, on the pair of redis-server processes the
// store starts for it. The frames are identical; between steps the test
// looks at the started servers themselves: the replica is a real replica
// that receives the replicated steps, it really lacks the unreplicated
// acquire, the primary is gone after the failover, and at the end neither
// process nor any key is left, on the pair or on the Redis at the URL.
func TestFailoverLessonOnBothPairs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := failoverLesson(t)
	emb := newStepper(t, openBackend(t, ""), l)
	want := emb.finish()
	if info := emb.store.Info(); info.Pair != backend.PairEmbedded || info.NotOn != "" {
		t.Errorf("embedded backend: store info %+v, want an embedded pair", info)
	}

	srv := redistest.Start(t)
	tenant := srv.Client(t)
	be := openBackend(t, srv.URL)
	s := newStepper(t, be, l)
	if info := s.store.Info(); info != be.Info() {
		t.Errorf("before the first step the store runs on %v, want the backend's %v", info, be.Info())
	}
	s.to(1)
	info := s.store.Info()
	if info.Pair != backend.PairStarted || info.NotOn != srv.Addr || info.Addr == srv.Addr || info.ReplicaAddr == "" || info.Version == "" {
		t.Fatalf("store info %+v, want a started pair that is not %s", info, srv.Addr)
	}
	for _, want := range []string{"private primary+replica redis-server pair", info.Addr, info.ReplicaAddr, "not the Redis at " + srv.Addr} {
		if !strings.Contains(info.String(), want) {
			t.Errorf("store info %q does not say %q", info, want)
		}
	}
	primary, replica := client(t, info.Addr), client(t, info.ReplicaAddr)
	lockKey, fenceKey := s.store.Prefix()+"lock:order:42", s.store.Prefix()+"fence:order:42"

	// Step 1 is replicated: the replica follows the primary and has B's
	// hold, which only replication can have put there.
	rep := replicationInfo(t, replica, "role", "master_link_status", "master_port")
	if rep["role"] != "slave" || rep["master_link_status"] != "up" || "127.0.0.1:"+rep["master_port"] != info.Addr {
		t.Fatalf("after step 1 the replica reports %v, want a linked replica of %s", rep, info.Addr)
	}
	if got := replicationInfo(t, primary)["connected_slaves"]; got != "1" {
		t.Errorf("the primary has %s replicas, want 1", got)
	}
	if owner := replica.HGet(ctx, lockKey, "owner").Val(); owner == "" {
		t.Error("after step 1 the replica lacks B's hold")
	}

	// Step 4 is unreplicated: the primary has A's hold and fencing token 2,
	// the replica, cut off, still has the state after B's release.
	s.to(4)
	if n := primary.Exists(ctx, lockKey).Val(); n != 1 {
		t.Error("after step 4 the primary lacks A's hold")
	}
	if got := primary.Get(ctx, fenceKey).Val(); got != "2" {
		t.Errorf("after step 4 the primary's fencing counter is %q, want 2", got)
	}
	if n := replica.Exists(ctx, lockKey).Val(); n != 0 {
		t.Error("after step 4 the replica has A's unreplicated hold")
	}
	if got := replica.Get(ctx, fenceKey).Val(); got != "1" {
		t.Errorf("after step 4 the replica's fencing counter is %q, want 1", got)
	}

	// Step 5: the primary is killed and the replica promoted.
	s.to(5)
	if !refused(info.Addr) {
		t.Error("after the failover the primary still listens")
	}
	if role := replicationInfo(t, replica)["role"]; role != "master" {
		t.Errorf("after the failover the replica's role is %s, want master", role)
	}

	s.finishOnOwnServers("embedded pair vs started pair", want, tenant)
	if !refused(info.Addr) || !refused(info.ReplicaAddr) {
		t.Errorf("a redis-server of the pair still listens after Close (%s, %s)", info.Addr, info.ReplicaAddr)
	}
	if keys := scan(t, tenant, "*"); len(keys) > 0 {
		t.Errorf("keys left on the Redis at the URL: %v", keys)
	}
}

// TestReplicaScenariosAgree runs the lessons of testdata/replica on the
// reference model, the embedded pair and a started pair: catch-up after lag,
// a release lost in the failover, time and clock jumps on the replica, a
// watchdog renewal that links a cut-off replica again. All three give the
// same frames, and every expectation holds.
func TestReplicaScenariosAgree(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/replica/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	real := openBackend(t, redistest.Start(t).URL)
	emb := openBackend(t, "")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			l, err := sim.LoadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, failures := onModel(t, l)
			for _, f := range failures {
				t.Error(f)
			}
			sameFrames(t, "reference model vs embedded pair", want, newStepper(t, emb, l).finish())
			s := newStepper(t, real, l)
			sameFrames(t, "reference model vs started pair", want, s.finish())
			if s.store.Info().Pair != backend.PairStarted {
				t.Errorf("ran on %v, want a started pair", s.store.Info())
			}
		})
	}
}

// TestStartedPairVerifiesReplication: the failover checks the promoted
// replica against what the lesson says it holds, so a write that reached the
// replica although the lesson says it never did, or one that vanished from
// it, stops the run with an error instead of giving wrong frames.
func TestStartedPairVerifiesReplication(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	be := openBackend(t, redistest.Start(t).URL)
	tests := []struct {
		name   string
		tamper func(c *redis.Client, prefix string) error
		want   string
	}{
		{
			name: "the unreplicated hold reached the replica",
			tamper: func(c *redis.Client, prefix string) error {
				if err := c.HSet(ctx, prefix+"lock:order:42", "owner", "t-leaked", "count", "1").Err(); err != nil {
					return err
				}
				return c.PExpire(ctx, prefix+"lock:order:42", time.Minute).Err()
			},
			want: "replication delivered something the lesson says it never did",
		},
		{
			name:   "the fencing counter vanished from the replica",
			tamper: func(c *redis.Client, prefix string) error { return c.Del(ctx, prefix+"fence:order:42").Err() },
			want:   "the replica lacks " + "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStepper(t, be, failoverLesson(t))
			s.to(4) // A's unreplicated acquire: the replica is cut off, and writable
			info := s.store.Info()
			if err := tt.tamper(client(t, info.ReplicaAddr), s.store.Prefix()); err != nil {
				t.Fatal(err)
			}
			_, err := s.r.Step(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("failover: want an error saying %q, got %v", tt.want, err)
			}
			if err := s.store.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if !refused(info.Addr) || !refused(info.ReplicaAddr) {
				t.Error("a redis-server of the pair still listens after Close")
			}
		})
	}
}

// TestReplicaWithoutRedisServer: given a URL but no redis-server on PATH, a
// lesson with a replica runs on an embedded pair, and says so; a
// RedisServer that does not exist is an error, not a silent fallback.
func TestReplicaWithoutRedisServer(t *testing.T) {
	srv := redistest.Start(t)
	l := failoverLesson(t)
	want := newStepper(t, openBackend(t, ""), l).finish()
	t.Setenv("PATH", t.TempDir())
	s := newStepper(t, openBackend(t, srv.URL), l)
	sameFrames(t, "embedded backend vs fallback pair", want, s.finish())
	info := s.store.Info()
	if info.Pair != backend.PairEmbedded || info.NotOn != srv.Addr || !strings.Contains(info.String(), "no redis-server is on PATH") {
		t.Errorf("store info %+v (%s), want an embedded pair instead of %s", info, info, srv.Addr)
	}
	checkOwnServersOnly(t, srv, l)
}

// TestStartedPairsBounded: with MaxPairs 1, a second run with a replica
// waits for the first one's pair to end, and fails naming the bound when
// its context ends first (hardening finding 5).
func TestStartedPairsBounded(t *testing.T) {
	t.Parallel()
	redistest.Need(t, "redis-server", "make test")
	srv := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: srv.URL, MaxPairs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	l := failoverLesson(t)
	first := newStepper(t, be, l)
	first.to(1)
	if first.store.Info().Pair != backend.PairStarted {
		t.Fatalf("first run: %+v", first.store.Info())
	}
	second, err := be.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(context.Background())
	r, err := sim.NewRunner(l, second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := r.Step(ctx); err == nil || !strings.Contains(err.Error(), "MaxPairs") {
		t.Fatalf("second pair while the first runs: want an error naming MaxPairs, got %v", err)
	}
	if err := first.store.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(context.Background()); err != nil {
		t.Fatalf("after the first pair ended: %v", err)
	}
	if second.Info().Pair != backend.PairStarted {
		t.Fatalf("second run: %+v", second.Info())
	}
}
