package backend_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
)

// shortLease is a lesson whose lease is shorter than the pauses the tests
// make between steps on a real Redis.
func shortLease() *sim.Lesson {
	return &sim.Lesson{
		ID: "short-lease", Variant: "token-count", Lease: 300 * time.Millisecond, Lock: "lock", Fencing: true, Seed: 7,
		Actors: []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Do: sim.ActAdvance, By: 100 * time.Millisecond},
			{Actor: "A", Do: sim.ActRelease, Lock: "lock"},
			{Actor: "A", Do: sim.ActWrite, Lock: "lock", Value: "a"},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock"},
			{Do: sim.ActAdvance, By: 250 * time.Millisecond},
			{Actor: "B", Do: sim.ActAcquire, Lock: "lock"},
			{Actor: "B", Do: sim.ActWrite, Lock: "lock", Value: "b"},
			{Actor: "A", Do: sim.ActWrite, Lock: "lock", Value: "late"},
			{Actor: "A", Do: sim.ActRelease, Lock: "lock"},
		},
	}
}

// newRunner opens a store of be for lesson l (closed when the test ends)
// and a runner on it.
func newRunner(t *testing.T, be *backend.Backend, l *sim.Lesson) (*sim.Runner, *backend.Store) {
	t.Helper()
	r, store := runnerToClose(t, be, l)
	t.Cleanup(func() { store.Close(context.Background()) })
	return r, store
}

// runnerToClose is newRunner for a test that closes the store itself (and
// checks what Close does).
func runnerToClose(t *testing.T, be *backend.Backend, l *sim.Lesson) (*sim.Runner, *backend.Store) {
	t.Helper()
	store, err := be.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRunner(l, store)
	if err != nil {
		t.Fatal(err)
	}
	return r, store
}

func openBackend(t *testing.T, url string) *backend.Backend {
	t.Helper()
	return lessontest.Open(t, backend.Config{URL: url})
}

// run runs l step by step, calling between(i) before step i+1.
func run(t *testing.T, be *backend.Backend, l *sim.Lesson, between func(i int)) ([]sim.Frame, *backend.Store) {
	t.Helper()
	ctx := context.Background()
	r, store := newRunner(t, be, l)
	for i := 0; !r.Done(); i++ {
		if between != nil {
			between(i)
		}
		if _, err := r.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return r.Frames(), store
}

// TestRealSleepLongerThanLease pauses longer than the lease between steps on
// a real Redis (its keys really expire meanwhile) and still gets the frames
// of the embedded backend, whose clock only moves on advance steps.
func TestRealSleepLongerThanLease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	want, _ := run(t, openBackend(t, ""), shortLease(), nil)
	got, _ := run(t, openBackend(t, srv.URL), shortLease(), func(i int) {
		if i == 1 || i == 5 || i == 8 {
			time.Sleep(450 * time.Millisecond) // longer than the 300 ms lease
		}
	})
	if a, b := sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English); a != b {
		t.Fatalf("frames differ after real sleeps:\nembedded:\n%s\nreal:\n%s", a, b)
	}
	// The lesson really exercises expiry: B gets the lock after the advance.
	if got[8].Outcome != sim.Acquired {
		t.Fatalf("step 8: want ACQUIRED after the lease ran out, got %s", got[8].Outcome)
	}
}

// TestRealKeysAlwaysHaveTTLAndVanish checks namespace hygiene on a real Redis
// shared with another tenant (checkHygiene).
func TestRealKeysAlwaysHaveTTLAndVanish(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	checkHygiene(t, openBackend(t, srv.URL), []*redistest.Server{srv}, srv.Client(t))
}

func checkOurKeys(t *testing.T, c *redis.Client, store *backend.Store) {
	t.Helper()
	if store == nil {
		return
	}
	if store.Info().Pair != "" {
		return // a run with a replica runs on a pair of its own, not here
	}
	for _, k := range scan(t, c, backend.KeyNamespace+"*") {
		if !strings.HasPrefix(k, store.Prefix()) {
			t.Errorf("key %s is outside the run's prefix %s", k, store.Prefix())
		}
		if !strings.Contains(store.Prefix(), "{") || !strings.HasSuffix(store.Prefix(), "}:") {
			t.Errorf("prefix %q has no hash tag", store.Prefix())
		}
		if ttl := c.PTTL(context.Background(), k).Val(); ttl <= 0 {
			t.Errorf("key %s has no TTL (%v)", k, ttl)
		}
	}
}

func scan(t *testing.T, c *redis.Client, match string) []string {
	t.Helper()
	var out []string
	iter := c.Scan(context.Background(), 0, match, 100).Iterator()
	for iter.Next(context.Background()) {
		out = append(out, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealFailedRunLeavesNoKeys cancels a run half way: the step fails, the
// runner keeps its state, and Close (with the cancelled context) still
// deletes every key.
func TestRealFailedRunLeavesNoKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	be := openBackend(t, srv.URL)
	l, err := lessons.ByID("stale-owner")
	if err != nil {
		t.Fatal(err)
	}
	r, store := runnerToClose(t, be, l)
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 7; i++ { // up to A's resume; step 8 is a write

		if _, err := r.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(scan(t, c, backend.KeyNamespace+"*")) == 0 {
		t.Fatal("the run wrote no keys; the test proves nothing")
	}
	cancel()
	if _, err := r.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("step with a cancelled context: want context.Canceled, got %v", err)
	}
	if len(r.Frames()) != 8 {
		t.Fatalf("a failed step must not add a frame: %d frames", len(r.Frames()))
	}
	if err := store.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := scan(t, c, backend.KeyNamespace+"*"); len(left) > 0 {
		t.Fatalf("keys left after a failed run: %v", left)
	}
}

// TestRealScriptCacheFlushed empties the server's script cache between steps
// (as a restart or SCRIPT FLUSH would): EVALSHA answers NOSCRIPT, the store
// falls back to EVAL, and the frames are unchanged.
func TestRealScriptCacheFlushed(t *testing.T) {
	t.Parallel()
	srv, c, l := staleOnRealRedis(t)
	want, _ := run(t, openBackend(t, ""), l, nil)
	got, _ := run(t, openBackend(t, srv.URL), l, func(int) {
		if err := c.ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
	})
	if a, b := sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English); a != b {
		t.Fatalf("frames differ after SCRIPT FLUSH:\n%s\n---\n%s", a, b)
	}
}

// TestOpenUnreachable: a port nobody listens on, and a listener that accepts
// but never answers, both fail within the dial timeout naming the address.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // hold it open, say nothing
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	for _, addr := range []string{silent.Addr().String(), closedAddr} {
		_, err := backend.Open(context.Background(), backend.Config{URL: "redis://" + addr, DialTimeout: 300 * time.Millisecond})
		if !errors.Is(err, backend.ErrUnreachable) {
			t.Errorf("%s: want ErrUnreachable, got %v", addr, err)
			continue
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("error does not name %s: %v", addr, err)
		}
	}
	if _, err := backend.Open(context.Background(), backend.Config{URL: "http://nope"}); err == nil || !strings.Contains(err.Error(), "http://nope") {
		t.Errorf("bad URL: want an error naming it, got %v", err)
	}
}

// TestBackendInfo names the backend for the player's badge.
func TestBackendInfo(t *testing.T) {
	t.Parallel()
	if got := openBackend(t, "").Info().String(); got != "embedded Redis (miniredis)" {
		t.Errorf("embedded: %q", got)
	}
	srv := redistest.Start(t)
	info := openBackend(t, srv.URL).Info()
	if info.Embedded || info.Addr != srv.Addr || info.Version == "" {
		t.Errorf("real: %+v", info)
	}
}

// staleOnRealRedis starts a redis-server for the test: the server, a client
// of it, and the course's stale-owner lesson.
func staleOnRealRedis(t *testing.T) (*redistest.Server, *redis.Client, *sim.Lesson) {
	t.Helper()
	srv := redistest.Start(t)
	l, err := lessons.ByID("stale-owner")
	if err != nil {
		t.Fatal(err)
	}
	return srv, srv.Client(t), l
}

// checkOwnServersOnly: a run of l, which needs servers of its own (a
// replica or nodes), wrote nothing to the Redis at srv, and a backend
// whose RedisServer does not exist refuses to run l rather than falling
// back without a word.
func checkOwnServersOnly(t *testing.T, srv *redistest.Server, l *sim.Lesson) {
	t.Helper()
	if keys := scan(t, srv.Client(t), "*"); len(keys) > 0 {
		t.Errorf("the run wrote to the Redis at the URL: %v", keys)
	}
	be, err := backend.Open(context.Background(), backend.Config{URL: srv.URL, RedisServer: filepath.Join(t.TempDir(), "redis-server")})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	r, _ := newRunner(t, be, l)
	if _, err := r.Step(context.Background()); err == nil || !strings.Contains(err.Error(), "needs a redis-server") {
		t.Errorf("a missing RedisServer: want an error, got %v", err)
	}
}
