package classbus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
)

// busEnv is one store shared by several buses, as the servers behind one
// load balancer share one Redis.
type busEnv struct {
	// server returns a new bus on the store (one Lockstep server), closed
	// at test end. Memory has one store per process: it returns the same
	// bus each time.
	server func() Bus
	// expire makes d pass for state TTLs.
	expire func(d time.Duration)
	// subscribers counts the connections subscribed to channel at the
	// store; nil for Memory.
	subscribers func(channel string) int
	// stop and start take the store down and up again (an outage); nil
	// for a store that cannot go down.
	stop, start func()
	// client is a plain client of the store, for looking at keys; nil for
	// Memory.
	client redis.UniversalClient
}

type busKind struct {
	name string
	env  func(t *testing.T) *busEnv
}

func memoryKind() busKind {
	return busKind{"memory", func(t *testing.T) *busEnv {
		var mu sync.Mutex
		now := time.Unix(1700000000, 0)
		m := NewMemory(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		m.buffer = testBuffer
		t.Cleanup(func() { m.Close() })
		return &busEnv{
			server: func() Bus { return m },
			expire: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() },
		}
	}}
}

// signedKind is Signed over Memory: signing changes nothing a
// subscriber sees (issue 37, item 8).
func signedKind() busKind {
	return busKind{"signed", func(t *testing.T) *busEnv {
		env := memoryKind().env(t)
		s, err := NewSigned(env.server(), []byte("sixteen-byte-key"))
		if err != nil {
			t.Fatal(err)
		}
		env.server = func() Bus { return s }
		return env
	}}
}

// testBuffer is the subscriptions' buffer in the tests: small, so that
// making a subscriber lag takes few messages.
const testBuffer = 256

// fastBus is a Redis bus whose health checks are quick, so that a hung
// connection shows in tests within a second.
func fastBus(t *testing.T, c redis.UniversalClient) Bus {
	b := NewRedis(c, RedisOptions{HealthInterval: 300 * time.Millisecond, Buffer: testBuffer})
	t.Cleanup(func() { b.Close() })
	return b
}

func realRedisKind() busKind {
	return busKind{"redis-server", func(t *testing.T) *busEnv {
		srv := redistest.Start(t)
		newClient := func() *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true,
				DialTimeout: time.Second, MaxRetries: 0})
			t.Cleanup(func() { c.Close() })
			return c
		}
		plain := newClient()
		return &busEnv{
			server:      func() Bus { return fastBus(t, newClient()) },
			expire:      func(d time.Duration) { time.Sleep(d + 20*time.Millisecond) },
			subscribers: func(ch string) int { return int(plain.PubSubNumSub(context.Background(), ch).Val()[ch]) },
			stop:        srv.Stop,
			start:       func() { srv.Restart(t) },
			client:      plain,
		}
	}}
}

func miniredisKind() busKind {
	return busKind{"miniredis", func(t *testing.T) *busEnv {
		m := miniredis.RunT(t)
		newClient := func() *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: m.Addr(), Protocol: 2, DisableIdentity: true,
				DialTimeout: time.Second, MaxRetries: 0})
			t.Cleanup(func() { c.Close() })
			return c
		}
		return &busEnv{
			server:      func() Bus { return fastBus(t, newClient()) },
			expire:      m.FastForward,
			subscribers: func(ch string) int { return m.PubSubNumSub(ch)[ch] },
			stop:        m.Close,
			start: func() {
				if err := m.Restart(); err != nil {
					t.Fatal(err)
				}
			},
			client: newClient(),
		}
	}}
}

// TestBusConformance runs the same assertions against every Bus: Memory, a
// Redis bus on a real redis-server, and one on miniredis.
func TestBusConformance(t *testing.T) {
	t.Parallel()
	for _, kind := range []busKind{memoryKind(), signedKind(), realRedisKind(), miniredisKind()} {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			t.Run("order and fan-out", func(t *testing.T) { t.Parallel(); testOrderAndFanOut(t, kind.env(t)) })
			t.Run("state and TTL", func(t *testing.T) { t.Parallel(); testState(t, kind.env(t)) })
			if kind.name != "signed" { // Signed's forwarder holds one message more than the buffer
				t.Run("lag", func(t *testing.T) { t.Parallel(); testLag(t, kind.env(t)) })
			}
			t.Run("ends", func(t *testing.T) { t.Parallel(); testEnds(t, kind.env(t)) })
			if kind.name != "memory" && kind.name != "signed" {
				t.Run("one connection per bus", func(t *testing.T) { t.Parallel(); testOneConnection(t, kind.env(t)) })
				t.Run("outage", func(t *testing.T) { t.Parallel(); testOutage(t, kind.env(t)) })
			}
		})
	}
}

// TestRedisBusOnCluster runs the fan-out and state assertions on a
// three-node Redis Cluster, each bus on a cluster client of its own.
func TestRedisBusOnCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t)
	env := &busEnv{
		server: func() Bus { return fastBus(t, cl.Client(t)) },
		expire: func(d time.Duration) { time.Sleep(d + 20*time.Millisecond) },
		client: cl.Client(t),
	}
	t.Run("order and fan-out", func(t *testing.T) { testOrderAndFanOut(t, env) })
	t.Run("state and TTL", func(t *testing.T) { testState(t, env) })
}

func subscribe(t *testing.T, b Bus, code string) Subscription {
	t.Helper()
	s, err := b.Subscribe(context.Background(), code)
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", code, err)
	}
	return s
}

// next reads s's next message, failing after 10 s.
func next(t *testing.T, s Subscription) ([]byte, bool) {
	t.Helper()
	select {
	case m, ok := <-s.C():
		return m, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10 s")
		return nil, false
	}
}

// ended waits for s to end and returns its Err.
func ended(t *testing.T, s Subscription) error {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case _, ok := <-s.C():
			if !ok {
				return s.Err()
			}
		case <-deadline:
			t.Fatal("the subscription did not end within 15 s")
		}
	}
}

// eventually polls cond every 20 ms for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testOrderAndFanOut(t *testing.T, env *busEnv) {
	ctx := context.Background()
	a, b := env.server(), env.server()
	a1, a2 := subscribe(t, a, "ABC"), subscribe(t, a, "ABC")
	b1 := subscribe(t, b, "ABC")
	other := subscribe(t, b, "XYZ")
	const n = 50
	for i := range n {
		pub := a
		if i%2 == 1 {
			pub = b // either server may publish; one publisher at a time keeps the order
		}
		if err := pub.Publish(ctx, "ABC", []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Publish(ctx, "XYZ", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Subscription{"a1": a1, "a2": a2, "b1": b1} {
		for i := range n {
			m, ok := next(t, s)
			if !ok || string(m) != strconv.Itoa(i) {
				t.Fatalf("%s: message %d is %q (open %v), want %q", name, i, m, ok, strconv.Itoa(i))
			}
		}
	}
	if m, _ := next(t, other); string(m) != "x" {
		t.Fatalf("class XYZ's first message is %q, want x (nothing of ABC's)", m)
	}
}

func testState(t *testing.T, env *busEnv) {
	ctx := context.Background()
	a, b := env.server(), env.server()
	if _, err := b.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State of an unknown class: %v, want ErrNoClass", err)
	}
	if err := a.SetState(ctx, "ABC", []byte("s1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := b.State(ctx, "ABC"); err != nil || string(got) != "s1" {
		t.Fatalf("State on the other server: %q, %v; want s1", got, err)
	}
	if env.client != nil {
		pttl := env.client.PTTL(ctx, StateKey("ABC")).Val()
		if pttl <= 0 || pttl > time.Minute {
			t.Fatalf("PTTL of %s is %v, want in (0, 1m]", StateKey("ABC"), pttl)
		}
		if StateKey("ABC") != "lockstep:{class-ABC}:state" || EventsChannel("ABC") != "lockstep:{class-ABC}:events" {
			t.Fatalf("names %s, %s are not in Lockstep's namespace", StateKey("ABC"), EventsChannel("ABC"))
		}
	}
	if err := b.SetState(ctx, "ABC", []byte("s2"), 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got, err := a.State(ctx, "ABC"); err != nil || string(got) != "s2" {
		t.Fatalf("State after a second SetState: %q, %v; want s2", got, err)
	}
	env.expire(300 * time.Millisecond)
	if _, err := a.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State after its TTL: %v, want ErrNoClass", err)
	}
	_ = a.SetState(ctx, "ABC", []byte("s3"), time.Minute)
	if err := b.DeleteState(ctx, "ABC"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteState(ctx, "ABC"); err != nil {
		t.Fatalf("deleting a state not kept: %v", err)
	}
	if _, err := a.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State after DeleteState: %v, want ErrNoClass", err)
	}
}

func testLag(t *testing.T, env *busEnv) {
	ctx := context.Background()
	bus := env.server()
	lagging := subscribe(t, bus, "ABC")
	probe := subscribe(t, bus, "ABC")
	const n = testBuffer + 44
	for i := range n {
		if err := bus.Publish(ctx, "ABC", []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		// The probe keeps up, message by message: when it has message i, the
		// bus has handed message i-1 to the lagging subscriber, or dropped it.
		if m, ok := next(t, probe); !ok || string(m) != strconv.Itoa(i) {
			t.Fatalf("the probe's message %d is %q (open %v)", i, m, ok)
		}
	}
	got := 0
	for m := range lagging.C() {
		if string(m) != strconv.Itoa(got) {
			t.Fatalf("lagging message %d is %q", got, m)
		}
		got++
	}
	if got != testBuffer || !errors.Is(lagging.Err(), ErrLagged) {
		t.Fatalf("the lagging subscriber read %d, Err %v; want %d and ErrLagged", got, lagging.Err(), testBuffer)
	}
	// Subscribing again works.
	again := subscribe(t, bus, "ABC")
	_ = bus.Publish(ctx, "ABC", []byte("after"))
	if m, _ := next(t, again); string(m) != "after" {
		t.Fatalf("after subscribing again: %q", m)
	}
}

func testEnds(t *testing.T, env *busEnv) {
	bus := env.server()
	ctx, cancel := context.WithCancel(context.Background())
	byCtx, err := bus.Subscribe(ctx, "ABC")
	if err != nil {
		t.Fatal(err)
	}
	byClose := subscribe(t, bus, "ABC")
	byBus := subscribe(t, bus, "XYZ")
	cancel()
	if err := ended(t, byCtx); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	byClose.Close()
	byClose.Close()
	if err := ended(t, byClose); err != nil {
		t.Fatalf("after Close: %v", err)
	}
	if err := bus.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ended(t, byBus); !errors.Is(err, ErrClosed) {
		t.Fatalf("after the bus's Close: %v", err)
	}
	bg := context.Background()
	if err := bus.Publish(bg, "ABC", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close: %v", err)
	}
	if _, err := bus.Subscribe(bg, "ABC"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
	if err := bus.SetState(bg, "ABC", nil, time.Second); !errors.Is(err, ErrClosed) {
		t.Fatalf("SetState after Close: %v", err)
	}
	if _, err := bus.State(bg, "ABC"); !errors.Is(err, ErrClosed) {
		t.Fatalf("State after Close: %v", err)
	}
}

// testOneConnection: a bus subscribes once per class however many local
// subscribers it has, and leaves the channel with its last one.
func testOneConnection(t *testing.T, env *busEnv) {
	a, b := env.server(), env.server()
	var subs []Subscription
	for i := range 40 {
		bus := a
		if i%4 == 0 {
			bus = b
		}
		subs = append(subs, subscribe(t, bus, fmt.Sprintf("C%d", i%2)))
	}
	for _, code := range []string{"C0", "C1"} {
		want := 2
		if code == "C1" {
			want = 1 // i%4 == 0 is never odd: only a subscribes to C1
		}
		if got := env.subscribers(EventsChannel(code)); got != want {
			t.Fatalf("%s has %d subscribed connections, want %d (one per bus)", code, got, want)
		}
	}
	for _, s := range subs {
		s.Close()
	}
	eventually(t, "no connection subscribed after every subscriber left", func() bool {
		return env.subscribers(EventsChannel("C0")) == 0 && env.subscribers(EventsChannel("C1")) == 0
	})
}

func testOutage(t *testing.T, env *busEnv) {
	ctx := context.Background()
	a, b := env.server(), env.server()
	onA, onB := subscribe(t, a, "ABC"), subscribe(t, b, "ABC")
	if err := a.Publish(ctx, "ABC", []byte("before")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Subscription{onA, onB} {
		if m, _ := next(t, s); string(m) != "before" {
			t.Fatalf("before the outage: %q", m)
		}
	}
	env.stop()
	eventually(t, "Publish fails with ErrUnavailable", func() bool {
		return errors.Is(a.Publish(ctx, "ABC", []byte("lost")), ErrUnavailable)
	})
	health := a.(*Redis)
	eventually(t, "Err reports the lost connection", func() bool { return errors.Is(health.Err(), ErrUnavailable) })
	if s, err := a.Subscribe(ctx, "XYZ"); !errors.Is(err, ErrUnavailable) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Subscribe during the outage: %v, want ErrUnavailable at once", err)
	}
	if _, err := b.State(ctx, "ABC"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("State during the outage: %v, want ErrUnavailable", err)
	}
	env.start()
	for name, s := range map[string]Subscription{"a": onA, "b": onB} {
		if err := ended(t, s); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("%s's subscription after the outage: %v, want ErrInterrupted", name, err)
		}
	}
	eventually(t, "Err is nil again", func() bool { return health.Err() == nil })
	// Resume: subscribe again on both servers, and messages flow.
	onA, onB = subscribe(t, a, "ABC"), subscribe(t, b, "ABC")
	if err := b.Publish(ctx, "ABC", []byte("after")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Subscription{onA, onB} {
		if m, _ := next(t, s); string(m) != "after" {
			t.Fatalf("after the outage: %q", m)
		}
	}
	if err := a.SetState(ctx, "ABC", []byte("s"), time.Minute); err != nil {
		t.Fatalf("SetState after the outage: %v", err)
	}
}

// TestMain silences go-redis's own log lines (its pool's dial retries
// during the outage tests): the tests check the errors the bus returns.
func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
