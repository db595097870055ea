package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"lockstep/internal/redistest"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"lockstep/proxy"
	"lockstep/sim"
)

const releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

func faultEvents(s proxy.Snapshot, kind proxy.FaultKind) []proxy.Event {
	var out []proxy.Event
	for _, e := range s.Events {
		if e.Kind == proxy.EventFault && e.Fault.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func TestFaults(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := up(t)
			p := startProxy(t, proxy.Config{RedisURL: url, Locks: "lock:*"})
			ctx := context.Background()
			holder, other := client(t, p, "holder", 2), client(t, p, "other", 3)

			// Lose the reply of the release: it runs, the client sees its
			// connection close.
			if ok := holder.SetNX(ctx, "lock:lost", "t1", time.Minute).Val(); !ok {
				t.Fatal("SET NX failed")
			}
			if err := p.LoseNextReply("holder"); err != nil {
				t.Fatal(err)
			}
			if err := holder.Eval(ctx, releaseScript, []string{"lock:lost"}, "t1").Err(); err == nil {
				t.Fatal("the release's reply arrived; want it lost")
			}
			if n := other.Exists(ctx, "lock:lost").Val(); n != 0 {
				t.Fatal("the release did not run")
			}
			snap := p.Snapshot()
			if len(faultEvents(snap, proxy.FaultLoseReply)) != 1 {
				t.Errorf("no lose-reply event")
			}
			lost := false
			for _, e := range snap.Events {
				if e.Command != nil && e.Command.Name == "EVAL" && e.Command.ReplyLost {
					lost = true
				}
			}
			if !lost {
				t.Error("no command marked reply_lost")
			}

			// Expire a lock now: the holder's lease ends, the other acquires.
			if ok := holder.SetNX(ctx, "lock:exp", "t2", time.Minute).Val(); !ok {
				t.Fatal("SET NX failed")
			}
			eventually(t, "the lock read", func() bool { return len(p.Snapshot().Redis.Locks) >= 2 })
			if err := p.ExpireKey(ctx, "lock:exp"); err != nil {
				t.Fatal(err)
			}
			if err := p.ExpireKey(ctx, "plain"); !errors.Is(err, proxy.ErrNotLock) {
				t.Errorf("expire of a key that is not a lock: %v", err)
			}
			if ok := other.SetNX(ctx, "lock:exp", "t3", time.Minute).Val(); !ok {
				t.Fatal("the other client could not acquire after expire")
			}
			eventually(t, "overlap", func() bool { return len(findings(p.Snapshot(), proxy.FindingOverlap)) == 1 })
			if f := findings(p.Snapshot(), proxy.FindingLeaseExpired); len(f) != 1 {
				t.Errorf("lease-expired findings %+v", f)
			}

			// Delay and close.
			if err := p.DelayReplies("other", 20*time.Millisecond, time.Second); err != nil {
				t.Fatal(err)
			}
			if err := other.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if err := p.CloseClient("other"); err != nil {
				t.Fatal(err)
			}
			if err := p.Pause("nobody", time.Second); !errors.Is(err, proxy.ErrNoClient) {
				t.Errorf("pause of an unknown client: %v", err)
			}
			snap = p.Snapshot()
			if len(faultEvents(snap, proxy.FaultDelay)) != 1 || len(faultEvents(snap, proxy.FaultClose)) != 1 {
				t.Errorf("delay/close events missing")
			}

			// Restart: only the embedded Redis.
			err := p.RestartUpstream(ctx)
			if url != "" {
				if !errors.Is(err, proxy.ErrNotEmbedded) {
					t.Errorf("restart of redis-server: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// go-redis reconnects; the key is gone.
			if n, err := other.Exists(ctx, "lock:exp").Result(); err != nil || n != 0 {
				t.Errorf("after restart: %d %v", n, err)
			}
			eventually(t, "lease-expired by restart", func() bool { return len(findings(p.Snapshot(), proxy.FindingLeaseExpired)) == 2 })
		})
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	_, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0", TraceSize: -1})
	var le *proxy.LimitError
	if !errors.As(err, &le) || le.Flag != "-trace-size" {
		t.Errorf("trace size -1: %v", err)
	}
	// Beside the player the flags are -proxy-*: the messages say so.
	_, err = proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0", MaxClients: proxy.MaxMaxClients + 1, FlagPrefix: "proxy-"})
	if !errors.As(err, &le) || le.Flag != "-proxy-max-clients" {
		t.Errorf("max clients over the limit beside the player: %v", err)
	}
	p := startProxy(t, proxy.Config{MaxClients: 1, TraceSize: 10, Locks: "lock:*", FlagPrefix: "proxy-"})
	ctx := context.Background()
	a := client(t, p, "a", 2)
	for range 20 {
		a.Set(ctx, "k", "v", time.Minute)
	}
	b, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	line, _ := bufio.NewReader(b).ReadString('\n')
	if !strings.HasPrefix(line, "-ERR") || !strings.Contains(line, "(-proxy-max-clients 1)") {
		t.Errorf("second client: %q", line)
	}
	snap := p.Snapshot()
	if len(snap.Events) != 10 || snap.Dropped == 0 {
		t.Errorf("ring of 10: %d events, %d dropped", len(snap.Events), snap.Dropped)
	}
}

func TestSubscriberDropsAndResyncs(t *testing.T) {
	t.Parallel()
	p := startProxy(t, proxy.Config{})
	sub := p.Subscribe(1)
	defer sub.Close()
	c := client(t, p, "a", 2)
	for range 5 {
		c.Ping(context.Background())
	}
	first := <-sub.C
	if first.Kind == proxy.EventResync {
		t.Fatal("the first event is a resync")
	}
	c.Ping(context.Background())
	if e := <-sub.C; e.Kind != proxy.EventResync {
		t.Errorf("after drops: %v, want resync", e.Kind)
	}
	if sub.Dropped() == 0 {
		t.Error("nothing dropped")
	}
}

func TestScenario(t *testing.T) {
	t.Parallel()
	bad := "faults:\n  - do: pause\n    client: a\n  - do: explode\n    at: 1s\n  - do: expire\n    key: lock:x\n    at: soon\n"
	_, err := proxy.ParseScenario("s.yaml", []byte(bad))
	var errs sim.LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("want LoadErrors, got %v", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Problem.ID+"@"+strings.Join([]string{itoa(e.Pos.Line), itoa(e.Pos.Col)}, ":"))
	}
	want := []string{"proxy.scenario.missing@2:5", "proxy.scenario.when@2:5", "proxy.scenario.unknown-do@4:9", "proxy.scenario.bad-duration@8:9"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("problems %v, want %v", got, want)
	}

	// at is 0 or more with no upper bound: a negative one is refused as
	// such (it was said "out of range (above 0, at most 10m0s)", which 0s
	// and 11m, both taken, are not).
	_, err = proxy.ParseScenario("s.yaml", []byte("faults:\n  - {do: expire, key: lock:x, at: -1s}\n"))
	if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Problem.ID != "proxy.scenario.negative" || errs[0].Pos.Line != 2 {
		t.Errorf("at: -1s: %v, want proxy.scenario.negative at line 2", err)
	}
	for _, at := range []string{"0s", "11m"} {
		if _, err := proxy.ParseScenario("s.yaml", []byte("faults:\n  - {do: expire, key: lock:x, at: "+at+"}\n")); err != nil {
			t.Errorf("at: %s: %v, want it taken", at, err)
		}
	}

	sc, err := proxy.ParseScenario("s.yaml", []byte("faults:\n  - {do: pause, client: slow, after: acquire, for: 300ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, proxy.Config{Locks: "lock:*"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.RunScenario(ctx, sc)
	c := client(t, p, "slow", 2)
	c.SetNX(ctx, "lock:s", "t", time.Minute)
	eventually(t, "pause", func() bool { return len(faultEvents(p.Snapshot(), proxy.FaultPauseEnd)) == 1 })
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestReadmeScenario: the scenario file the README runs loads, and pauses
// worker-a after its acquire for longer than a short lease.
func TestReadmeScenario(t *testing.T) {
	t.Parallel()
	sc, err := proxy.LoadScenario("../docs/pause-worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Faults) != 1 || sc.Faults[0].Do != "pause" || sc.Faults[0].Client != "worker-a" || sc.Faults[0].After != "acquire" || sc.Faults[0].For != 3*time.Second {
		t.Errorf("docs/pause-worker.yaml: %+v", sc.Faults)
	}
}

// TestCheckScenario: faults this proxy could never run are refused before
// any runs, at their place: a restart in front of a real Redis, an expire
// of a key -locks does not match.
func TestCheckScenario(t *testing.T) {
	t.Parallel()
	src := []byte("faults:\n  - do: restart\n    at: 1s\n  - do: expire\n    key: other:x\n    at: 2s\n  - do: expire\n    key: lock:x\n    at: 3s\n")
	sc, err := proxy.ParseScenario("s.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	problems := func(err error) []string {
		var errs sim.LoadErrors
		if err != nil && !errors.As(err, &errs) {
			t.Fatalf("want LoadErrors, got %v", err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.File+":"+itoa(e.Pos.Line)+":"+itoa(e.Pos.Col)+" "+e.Problem.ID)
		}
		return got
	}
	real := startProxy(t, proxy.Config{Locks: "lock:*", RedisURL: redistest.Start(t).URL})
	want := []string{"s.yaml:2:9 proxy.scenario.restart-real", "s.yaml:5:10 proxy.scenario.expire-not-lock"}
	if got := problems(real.CheckScenario(sc)); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("in front of a real Redis: %v, want %v", got, want)
	}
	embedded := startProxy(t, proxy.Config{Locks: "lock:*"})
	want = want[1:]
	if got := problems(embedded.CheckScenario(sc)); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("embedded: %v, want %v", got, want)
	}
	suggesting := startProxy(t, proxy.Config{}) // no -locks: known only when it fires
	if err := suggesting.CheckScenario(sc); err != nil {
		t.Errorf("without -locks: %v", err)
	}
}
