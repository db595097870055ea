package realclients_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/internal/realclients"
	"lockstep/internal/redistest"
)

// Timings of the scenarios, in milliseconds: long enough for a worker on a
// loaded 2-core machine, short enough to keep the package at a few seconds.
const (
	leaseMS    = 400
	holdPastMS = 1000 // the holder sleeps past its lease
	waitMS     = 1500 // an acquire keeps trying this long
)

// backend is a Redis the workers talk to over TCP, and a go-redis client
// the test reads it with.
type backend struct {
	name string
	addr string
	rdb  *redis.Client
}

// realRedis is a redis-server on a free port.
func realRedis(t *testing.T) backend {
	s := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { rdb.Close() })
	return backend{name: "redis-server", addr: s.Addr, rdb: rdb}
}

// embedded is the embedded Redis (miniredis, the version Lockstep embeds)
// served on a loopback port, its clock moved in real time when clock is
// set (realclients.MiniredisClock).
func embedded(t *testing.T, clock bool) backend {
	m := miniredis.RunT(t)
	name := "miniredis (no clock)"
	if clock {
		stop := realclients.MiniredisClock(m, 5*time.Millisecond)
		t.Cleanup(stop)
		name = "miniredis"
	}
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return backend{name: name, addr: m.Addr(), rdb: rdb}
}

// key is a fresh namespaced lock key, deleted when the test ends.
func key(t *testing.T, b backend) string {
	buf := make([]byte, 4)
	rand.Read(buf)
	k := "lockstep:realclients:" + hex.EncodeToString(buf)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		b.rdb.Del(ctx, k, "redisson_lock__channel:{"+k+"}")
	})
	return k
}

func start(t *testing.T, ctx context.Context, lib realclients.Lib, b backend, p realclients.Plan) *realclients.Worker {
	t.Helper()
	w, err := realclients.Start(ctx, lib, b.addr, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func waitOutcome(t *testing.T, ctx context.Context, w *realclients.Worker, outcome string) realclients.Event {
	t.Helper()
	e, err := w.WaitOutcome(ctx, outcome)
	if err != nil {
		t.Fatalf("%v; events: %+v", err, w.Events())
	}
	return e
}

func wait(t *testing.T, ctx context.Context, w *realclients.Worker) []realclients.Event {
	t.Helper()
	evs, err := w.Wait(ctx)
	if err != nil {
		t.Fatalf("%v; events: %+v", err, evs)
	}
	return evs
}

// outcomes are the step events of a run as "do:outcome[:error_type]",
// what must be equal on both Redises (timings and owners are not).
func outcomes(evs []realclients.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Step < 0 {
			continue
		}
		s := e.Do + ":" + e.Outcome
		if e.ErrorType != "" {
			s += ":" + e.ErrorType
		}
		out = append(out, s)
	}
	return out
}

// notOwner is each library's error class for a release it no longer owns
// while another client holds the lock.
var notOwner = map[realclients.Lib]string{
	realclients.Redlock:  "LockError",
	realclients.Redisson: "RedissonLockError",
	realclients.RedisPy:  "LockNotOwnedError",
	realclients.Redsync:  "ErrTaken",
}

// busy is the error class of a failed acquire ("" where the library
// answers false without an error).
var busy = map[realclients.Lib]string{
	realclients.Redlock: "LockError",
	realclients.Redsync: "ErrTaken",
}

// TestExpiryOverlap runs, for each library on each Redis: a holder takes
// the lock and sleeps past its lease; a contender is busy while the lease
// runs, then acquires once it has run out; the holder's release then
// answers "not owner" with the library's own error; the contender
// releases. Both Redises must give the same outcomes.
func TestExpiryOverlap(t *testing.T) {
	for _, lib := range realclients.Libs() {
		t.Run(string(lib), func(t *testing.T) {
			t.Parallel()
			realclients.Ensure(t, lib)
			got := map[string][2][]string{}
			for _, b := range []backend{realRedis(t), embedded(t, true)} {
				holder, contender := expiryOverlap(t, lib, b)
				got[b.name] = [2][]string{holder, contender}
			}
			want := [2][]string{
				{"await:awaiting", "await:continued", "acquire:acquired", "hold:held", "await:awaiting", "await:continued", "release:not_owner:" + notOwner[lib]},
				{"await:awaiting", "await:continued", "acquire:busy" + suffix(busy[lib]), "await:awaiting", "await:continued", "acquire:acquired", "await:awaiting", "await:continued", "release:released"},
			}
			for name, g := range got {
				if !slices.Equal(g[0], want[0]) || !slices.Equal(g[1], want[1]) {
					t.Errorf("%s on %s:\nholder    %v\ncontender %v\nwant\nholder    %v\ncontender %v", lib, name, g[0], g[1], want[0], want[1])
				}
			}
		})
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ":" + s
}

func expiryOverlap(t *testing.T, lib realclients.Lib, b backend) (holderOut, contenderOut []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := key(t, b)
	// Both workers start first and wait at an await step: a process takes
	// longer to start than the lease lasts on a loaded machine.
	// The holder sleeps past its lease, then waits until the contender has
	// taken the lock before it releases: the order does not hang on the
	// machine's load.
	holder := start(t, ctx, lib, b, realclients.Plan{Key: k, LeaseMS: leaseMS, Name: "holder", Steps: []realclients.Step{
		{Do: realclients.Await}, {Do: realclients.Acquire}, {Do: realclients.Hold, MS: leaseMS + 200}, {Do: realclients.Await}, {Do: realclients.Release},
	}})
	// The contender's lease outlasts the holder's release.
	contender := start(t, ctx, lib, b, realclients.Plan{Key: k, LeaseMS: 10 * holdPastMS, Name: "contender", Steps: []realclients.Step{
		{Do: realclients.Await}, {Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Release},
	}})
	waitOutcome(t, ctx, holder, realclients.Awaiting)
	waitOutcome(t, ctx, contender, realclients.Awaiting)
	proceed(t, holder)
	acq := waitOutcome(t, ctx, holder, realclients.Acquired)
	if b.name == "redis-server" {
		checkClientName(t, ctx, b, "holder")
	}
	proceed(t, contender)
	if _, err := contender.WaitCount(ctx, realclients.Awaiting, 2); err != nil {
		t.Fatal(err)
	}
	// The contender tries again once the holder's lease has run out (its
	// key gone), while the holder still sleeps.
	for b.rdb.Exists(ctx, k).Val() != 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	proceed(t, contender)
	got := waitOutcome(t, ctx, contender, realclients.Acquired)
	if got.Owner == "" || got.Owner == acq.Owner {
		t.Errorf("%s on %s: contender's owner %q, holder's %q: want two different owners", lib, b.name, got.Owner, acq.Owner)
	}
	if _, err := holder.WaitCount(ctx, realclients.Awaiting, 2); err != nil {
		t.Fatal(err)
	}
	proceed(t, holder)
	hev := wait(t, ctx, holder)
	proceed(t, contender)
	cev := wait(t, ctx, contender)
	if n, err := b.rdb.Exists(ctx, k).Result(); err != nil || n != 0 {
		t.Errorf("%s on %s: key left after the contender's release: %d, %v", lib, b.name, n, err)
	}
	return outcomes(hev), outcomes(cev)
}

func proceed(t *testing.T, w *realclients.Worker) {
	t.Helper()
	if err := w.Continue(); err != nil {
		t.Fatal(err)
	}
}

// checkClientName asserts that a connection named name is in CLIENT LIST
// (miniredis has CLIENT SETNAME but no CLIENT LIST).
func checkClientName(t *testing.T, ctx context.Context, b backend, name string) {
	t.Helper()
	list, err := b.rdb.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list, " name="+name+" ") {
		t.Errorf("no connection named %q in CLIENT LIST:\n%s", name, list)
	}
}

// TestRedissonWatchdogAndUnlockMessage: node-redisson's watchdog renews a
// lock taken without a lease (its PTTL goes back up), and its unlock
// publishes "0" on redisson_lock__channel:{KEY}; on both Redises.
func TestRedissonWatchdogAndUnlockMessage(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.Redisson)
	for _, b := range []backend{realRedis(t), embedded(t, true)} {
		t.Run(b.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			k := key(t, b)
			channel := "redisson_lock__channel:{" + k + "}"
			sub := b.rdb.Subscribe(ctx, channel)
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
				t.Fatal(err)
			}
			const watchdogMS = 600 // renewals every 200 ms
			w := start(t, ctx, realclients.Redisson, b, realclients.Plan{Key: k, LeaseMS: leaseMS, Name: "watched", WatchdogMS: watchdogMS, Steps: []realclients.Step{
				{Do: realclients.Acquire, Watchdog: true}, {Do: realclients.Await}, {Do: realclients.Release},
			}})
			acq := waitOutcome(t, ctx, w, realclients.Acquired)
			// The lock is a Hash: owner field -> hold count 1.
			if h, err := b.rdb.HGetAll(ctx, k).Result(); err != nil || len(h) != 1 || h[acq.Owner] != "1" {
				t.Errorf("lock Hash %v (%v), want {%s: 1}", h, err, acq.Owner)
			}
			// Without renewals PTTL only falls: sample it across a few
			// renewal periods and look for it going back up.
			var pttls []time.Duration
			rose := false
			for i := 0; i < 30 && !rose; i++ {
				time.Sleep(40 * time.Millisecond)
				p := b.rdb.PTTL(ctx, k).Val()
				if p <= 0 || p > watchdogMS*time.Millisecond {
					t.Fatalf("PTTL %v, want within (0, %d ms]: samples %v", p, watchdogMS, pttls)
				}
				rose = len(pttls) > 0 && p > pttls[len(pttls)-1]
				pttls = append(pttls, p)
			}
			if !rose {
				t.Errorf("PTTL never went back up: samples %v", pttls)
			}
			if _, err := w.WaitOutcome(ctx, realclients.Renewed); err != nil {
				t.Fatal(err)
			}
			if err := w.Continue(); err != nil {
				t.Fatal(err)
			}
			evs := wait(t, ctx, w)
			if got := outcomes(evs); !slices.Equal(got, []string{"acquire:acquired", "await:awaiting", "await:continued", "release:released"}) {
				t.Errorf("outcomes %v", got)
			}
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Channel != channel || msg.Payload != "0" {
				t.Errorf("unlock message %q on %q, want \"0\" on %q", msg.Payload, msg.Channel, channel)
			}
		})
	}
}

// TestRedissonTryLockGivesUpAtExpiry: node-redisson's tryLock with a wait
// time waits for the unlock message at most the lock's PTTL, and when the
// lock expires instead of being unlocked (no message), it answers false at
// once, though its wait time is not over (RedissonLock.tryLock in
// node-redisson 1.0.4 returns false on the subscription's timeout; Java
// Redisson's tryLock tries again until the wait time is spent). Same on
// both Redises.
func TestRedissonTryLockGivesUpAtExpiry(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.Redisson)
	for _, b := range []backend{realRedis(t), embedded(t, true)} {
		t.Run(b.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			k := key(t, b)
			holder := start(t, ctx, realclients.Redisson, b, realclients.Plan{Key: k, LeaseMS: leaseMS, Name: "holder", Steps: []realclients.Step{
				{Do: realclients.Await}, {Do: realclients.Acquire}, {Do: realclients.Hold, MS: holdPastMS},
			}})
			contender := start(t, ctx, realclients.Redisson, b, realclients.Plan{Key: k, LeaseMS: leaseMS, Name: "contender", Steps: []realclients.Step{
				{Do: realclients.Await}, {Do: realclients.Acquire, WaitMS: waitMS},
			}})
			waitOutcome(t, ctx, holder, realclients.Awaiting)
			waitOutcome(t, ctx, contender, realclients.Awaiting)
			proceed(t, holder)
			waitOutcome(t, ctx, holder, realclients.Acquired)
			proceed(t, contender)
			evs := wait(t, ctx, contender)
			got := outcomes(evs)
			if !slices.Equal(got, []string{"await:awaiting", "await:continued", "acquire:busy"}) {
				t.Fatalf("outcomes %v", got)
			}
			if took := evs[len(evs)-2].TookMS; took >= waitMS {
				t.Errorf("busy after %v ms: want it before the wait time %d ms is over", took, waitMS)
			}
			if n := b.rdb.Exists(ctx, k).Val(); n != 0 {
				t.Errorf("the lock still exists after the busy answer: want it expired")
			}
		})
	}
}

// TestMiniredisWithoutClock records where the embedded Redis differs from
// redis-server for every client: a miniredis whose clock is not moved
// (FastForward) never expires a key, so a holder that sleeps past its
// lease still owns the lock and its release succeeds, where redis-server
// answers "not owner" (TestExpiryOverlap, with MiniredisClock). A server in
// front of the embedded Redis must move its clock.
func TestMiniredisWithoutClock(t *testing.T) {
	for _, lib := range realclients.Libs() {
		t.Run(string(lib), func(t *testing.T) {
			t.Parallel()
			realclients.Ensure(t, lib)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			b := embedded(t, false)
			k := key(t, b)
			w := start(t, ctx, lib, b, realclients.Plan{Key: k, LeaseMS: leaseMS, Name: "holder", Steps: []realclients.Step{
				{Do: realclients.Acquire}, {Do: realclients.Hold, MS: leaseMS + 200}, {Do: realclients.Await}, {Do: realclients.Release},
			}})
			waitOutcome(t, ctx, w, realclients.Awaiting)
			if pttl := b.rdb.PTTL(ctx, k).Val(); pttl != leaseMS*time.Millisecond {
				t.Errorf("PTTL %v after %d ms, want the whole lease %d ms: miniredis's clock did not move", pttl, leaseMS+200, leaseMS)
			}
			if err := w.Continue(); err != nil {
				t.Fatal(err)
			}
			got := outcomes(wait(t, ctx, w))
			want := []string{"acquire:acquired", "hold:held", "await:awaiting", "await:continued", "release:released"}
			if !slices.Equal(got, want) {
				t.Errorf("outcomes %v, want %v", got, want)
			}
		})
	}
}

// TestStartRejectsBadPlans: a bad plan is refused before any worker runs,
// naming the field.
func TestStartRejectsBadPlans(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		plan realclients.Plan
		want string
	}{
		{realclients.Plan{Key: "k", Name: "n"}, "lease_ms"},
		{realclients.Plan{Key: "k", Name: "n", LeaseMS: 1, Steps: []realclients.Step{{Do: "lock"}}}, "steps[0].do"},
		{realclients.Plan{Name: "n", LeaseMS: 1}, "key"},
		{realclients.Plan{Key: "k", Name: "n", LeaseMS: 1, Steps: []realclients.Step{{Do: realclients.Acquire, Watch: true}}}, "steps[0]: watch is for a release"},
		// redsync has no check-and-delete transaction: only redis-py takes watch.
		{realclients.Plan{Key: "k", Name: "n", LeaseMS: 1, Steps: []realclients.Step{{Do: realclients.Release, Watch: true}}}, "steps[0]: watch: only redis-py"},
	} {
		_, err := realclients.Start(context.Background(), realclients.Redsync, "127.0.0.1:1", c.plan)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start(%+v) = %v, want an error naming %s", c.plan, err, c.want)
		}
	}
	if _, err := realclients.Start(context.Background(), "jedis", "127.0.0.1:1", realclients.Plan{Key: "k", Name: "n", LeaseMS: 1}); err == nil {
		t.Error("Start with an unknown library: no error")
	}
}
