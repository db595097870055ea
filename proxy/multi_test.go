package proxy

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
)

// txProxy starts a proxy on the embedded upstream or a real
// redis-server (realRedis), its analyzer's goroutine held until release
// is called (at the latest at cleanup): what a client's commands hand it
// waits, as behind a busy lock reader.
func txProxy(t *testing.T, realRedis bool) (p *Proxy, release func()) {
	t.Helper()
	hold := make(chan struct{})
	released := false
	release = func() {
		if !released {
			released = true
			close(hold)
		}
	}
	p = startOn(t, realRedis, Config{Locks: "lock:*", analyzerHold: hold})
	t.Cleanup(release) // runs before startOn's Close: cleanups run last first
	return p, release
}

// startOn starts a proxy with cfg on a loopback port, in front of the
// embedded Redis or, when realRedis, a fresh redis-server, closed at the
// test's end.
func startOn(t *testing.T, realRedis bool, cfg Config) *Proxy {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if realRedis {
		cfg.RedisURL = redistest.Start(t).URL
	}
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// settle waits until every command recorded so far was analyzed: handed
// over (awaitInline), then a barrier job behind them (as SaveLesson).
func settle(p *Proxy) {
	ctx := context.Background()
	p.awaitInline(ctx)
	p.an.fault(ctx, Event{}, nil)
}

// onBoth runs f on the embedded upstream and on a real redis-server.
func onBoth(t *testing.T, f func(t *testing.T, realRedis bool)) {
	for _, real := range []bool{false, true} {
		name := "embedded"
		if real {
			name = "redis-server"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, real)
		})
	}
}

// lastCommand is the Seq of the newest command event named name on lane
// whose first argument is arg; 0 when none.
func lastCommand(evs []Event, lane, name, arg string) uint64 {
	var seq uint64
	for _, e := range evs {
		if e.Kind == EventCommand && e.Lane == lane && e.Command.Name == name && len(e.Command.Args) > 1 && e.Command.Args[1] == arg {
			seq = e.Seq
		}
	}
	return seq
}

// statesAfter are the lock states the analyzer gave after the event seq.
func statesAfter(evs []Event, seq uint64) []LockState {
	var out []LockState
	for _, e := range evs {
		if e.Kind == EventLock && e.Lock.Cause == seq {
			out = append(out, *e.Lock)
		}
	}
	return out
}

// lockOf is key's state in the snapshot's model.
func lockOf(snap Snapshot, key string) (LockState, bool) {
	i := slices.IndexFunc(snap.Redis.Locks, func(st LockState) bool { return st.Key == key })
	if i < 0 {
		return LockState{}, false
	}
	return snap.Redis.Locks[i], true
}

// TestQueuedSetRunsAtExec: a SET a client sends inside its MULTI is
// answered QUEUED and changes nothing until EXEC. Another client takes
// the lock and releases it before the EXEC while the analyzer lags: the
// queued SET must not be analyzed as run then (the lock reader read
// after it shows the other's release, which read as the other's lease
// ending while it held: a false lease-expired). At EXEC it runs, and the
// key is the transaction's client's, with no finding.
func TestQueuedSetRunsAtExec(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		a, b := dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
		if got := b.pipeline(t, cmd("SET lock:s tokB NX PX 60000")); got[0] != "OK" {
			t.Fatalf("b's acquire answered %q", got)
		}
		if got := a.pipeline(t, cmd("MULTI"), cmd("SET lock:s tokA PX 60000")); !slices.Equal(got, []string{"OK", "QUEUED"}) {
			t.Fatalf("a's MULTI, SET answered %q", got)
		}
		if got := b.pipeline(t, cmd("DEL lock:s")); got[0] != "(integer) 1" {
			t.Fatalf("b's release answered %q", got)
		}
		release()
		settle(p)
		snap := p.Snapshot()
		laneA, laneB := snap.Lanes[1].Lane, snap.Lanes[0].Lane
		set := lastCommand(snap.Events, laneA, "SET", "lock:s")
		if set == 0 {
			t.Fatalf("a's queued SET is not in the trace")
		}
		if st := statesAfter(snap.Events, set); len(st) != 0 {
			t.Errorf("before EXEC, states after a's queued SET %+v, want none (it has not run)", st)
		}
		if len(snap.Findings) != 0 {
			t.Errorf("before EXEC, findings %+v, want none (b acquired and released)", snap.Findings)
		}
		if st, ok := lockOf(snap, "lock:s"); !ok || st.Present() {
			t.Errorf("before EXEC, lock:s %+v (known %v), want absent (b released it)", st, ok)
		}
		if got := a.pipeline(t, cmd("EXEC")); got[0] != "[OK]" {
			t.Fatalf("a's EXEC answered %q", got)
		}
		settle(p)
		snap = p.Snapshot()
		if len(snap.Findings) != 0 {
			t.Errorf("after EXEC, findings %+v, want none", snap.Findings)
		}
		st, ok := lockOf(snap, "lock:s")
		if !ok || st.Value != "tokA" || st.Holder != laneA || st.Cause != set {
			t.Errorf("after EXEC, lock:s %+v, want tokA held by %s (a's SET, event %d); b was %s", st, laneA, set, laneB)
		}
	})
}

// TestDiscardLeavesNoTrace: a DEL of another client's lock sent inside
// a MULTI that is then discarded never ran: no lock state follows it and
// no release-by-other is found, however late the analyzer takes it (here
// after the holder's own release, which a read after the DEL would show
// as the DEL's doing).
func TestDiscardLeavesNoTrace(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		a, b := dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
		if got := b.pipeline(t, cmd("SET lock:d tokB NX PX 60000")); got[0] != "OK" {
			t.Fatalf("b's acquire answered %q", got)
		}
		if got := a.pipeline(t, cmd("MULTI"), cmd("DEL lock:d"), cmd("DISCARD")); !slices.Equal(got, []string{"OK", "QUEUED", "OK"}) {
			t.Fatalf("a's MULTI, DEL, DISCARD answered %q", got)
		}
		if got := b.pipeline(t, cmd("DEL lock:d")); got[0] != "(integer) 1" {
			t.Fatalf("b's release answered %q (a's DEL was discarded: the key should be b's)", got)
		}
		release()
		settle(p)
		snap := p.Snapshot()
		laneA := snap.Lanes[1].Lane
		del := lastCommand(snap.Events, laneA, "DEL", "lock:d")
		if del == 0 {
			t.Fatalf("a's queued DEL is not in the trace")
		}
		if st := statesAfter(snap.Events, del); len(st) != 0 {
			t.Errorf("states after a's discarded DEL %+v, want none (it never ran)", st)
		}
		if len(snap.Findings) != 0 {
			t.Errorf("findings %+v, want none (a's DEL was discarded; b released its own lock)", snap.Findings)
		}
		if st, ok := lockOf(snap, "lock:d"); !ok || st.Present() || st.Holder != "" {
			t.Errorf("lock:d %+v, want absent", st)
		}
	})
}

// TestDelInMultiReleasesAtExec: a client that holds a lock and deletes
// it inside its MULTI releases it at EXEC: the DEL's reply is EXEC's
// array's, the state after it is read after EXEC, and it is a release,
// not a lease that ran out (lease-expired). The DEL is analyzed (as
// QUEUED, before this fix) before the EXEC is sent, so a read after it
// showed the lock still held, and the EXEC's, which was no release,
// showed it gone.
func TestDelInMultiReleasesAtExec(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		a := dialRaw(t, p.Addr())
		if got := a.pipeline(t, cmd("SET lock:x tokA NX PX 60000")); got[0] != "OK" {
			t.Fatalf("a's acquire answered %q", got)
		}
		if got := a.pipeline(t, cmd("MULTI"), cmd("DEL lock:x")); !slices.Equal(got, []string{"OK", "QUEUED"}) {
			t.Fatalf("a's MULTI, DEL answered %q", got)
		}
		settle(p)
		snap := p.Snapshot()
		laneA := snap.Lanes[0].Lane
		del := lastCommand(snap.Events, laneA, "DEL", "lock:x")
		if st := statesAfter(snap.Events, del); len(st) != 0 {
			t.Errorf("before EXEC, states after the queued DEL %+v, want none", st)
		}
		if st, ok := lockOf(snap, "lock:x"); !ok || st.Holder != laneA || st.Value != "tokA" {
			t.Errorf("before EXEC, lock:x %+v, want still held by %s", st, laneA)
		}
		if got := a.pipeline(t, cmd("EXEC")); got[0] != "[(integer) 1]" {
			t.Fatalf("EXEC answered %q", got)
		}
		settle(p)
		snap = p.Snapshot()
		if len(snap.Findings) != 0 {
			t.Errorf("findings %+v, want none (a released its own lock at EXEC)", snap.Findings)
		}
		after := statesAfter(snap.Events, del)
		if len(after) != 1 || after[0].Present() {
			t.Errorf("states after the DEL %+v, want one: absent, read after EXEC", after)
		}
	})
}

// TestPipelinedTransaction: MULTI, a SET NX and a DEL of another lock,
// EXEC in one write (redis-py's pipeline(transaction=True), go-redis's
// TxPipelined): each runs at EXEC with its reply from EXEC's array; an
// EXEC answered nil (a WATCHed key changed) runs none, on RESP2 and
// RESP3 (whose states the lock reader reads).
func TestPipelinedTransaction(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		for _, proto := range []string{"2", "3"} {
			a, b := dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
			a.pipeline(t, cmd("HELLO "+proto))
			k1, k2 := "lock:p1-"+proto, "lock:p2-"+proto
			got := a.pipeline(t, cmd("SET "+k2+" tok2 PX 60000"), cmd("MULTI"), cmd("SET "+k1+" tok1 NX PX 60000"), cmd("DEL "+k2), cmd("EXEC"))
			if got[1] != "OK" || got[2] != "QUEUED" || got[3] != "QUEUED" || got[4] != "[OK, (integer) 1]" {
				t.Fatalf("RESP%s: the pipelined transaction answered %q", proto, got)
			}
			// WATCH, another client's change, MULTI ... EXEC: nil.
			got = a.pipeline(t, cmd("WATCH "+k1))
			b.pipeline(t, cmd("PEXPIRE "+k1+" 50000"))
			got = append(got, a.pipeline(t, cmd("MULTI"), cmd("DEL "+k1), cmd("EXEC"))...)
			if got[0] != "OK" || got[3] != "(nil)" {
				t.Fatalf("RESP%s: the watched transaction answered %q, want its EXEC nil", proto, got)
			}
			settle(p)
			snap := p.Snapshot()
			lane := snap.Lanes[len(snap.Lanes)-2].Lane
			set, del := lastCommand(snap.Events, lane, "SET", k1), lastCommand(snap.Events, lane, "DEL", k2)
			if st := statesAfter(snap.Events, set); len(st) != 1 || st[0].Value != "tok1" || st[0].Holder != lane {
				t.Errorf("RESP%s: states after the SET NX %+v, want tok1 held by %s", proto, st, lane)
			}
			if st := statesAfter(snap.Events, del); len(st) != 1 || st[0].Present() {
				t.Errorf("RESP%s: states after the DEL %+v, want absent", proto, st)
			}
			failed := lastCommand(snap.Events, lane, "DEL", k1)
			if st := statesAfter(snap.Events, failed); len(st) != 0 {
				t.Errorf("RESP%s: states after the DEL of a failed EXEC %+v, want none", proto, st)
			}
			if st, ok := lockOf(snap, k1); !ok || st.Value != "tok1" || st.Holder != lane {
				t.Errorf("RESP%s: %s %+v, want still tok1 held by %s", proto, k1, st, lane)
			}
			if len(snap.Findings) != 0 {
				t.Errorf("RESP%s: findings %+v, want none", proto, snap.Findings)
			}
		}
	})
}

// TestSaveTransaction: a saved lesson takes a command of a client's
// transaction as run at its EXEC, with its reply from EXEC's array: a DEL
// inside MULTI is a release (RELEASED), and a SET NX inside a discarded
// MULTI never ran (no step).
func TestSaveTransaction(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		a, b := dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
		if got := a.pipeline(t, cmd("SET lock:v tokA NX PX 60000")); got[0] != "OK" {
			t.Fatalf("a's acquire answered %q", got)
		}
		if got := b.pipeline(t, cmd("MULTI"), cmd("SET lock:v tokB NX PX 60000"), cmd("DISCARD")); got[1] != "QUEUED" {
			t.Fatalf("b's MULTI, SET NX, DISCARD answered %q", got)
		}
		if got := a.pipeline(t, cmd("MULTI"), cmd("DEL lock:v"), cmd("EXEC")); got[2] != "[(integer) 1]" {
			t.Fatalf("a's MULTI, DEL, EXEC answered %q", got)
		}
		saved, err := p.SaveLesson(context.Background(), SaveOptions{ID: "tx"})
		if err != nil {
			t.Fatal(err)
		}
		var lesson struct {
			Steps []step `yaml:"steps"`
		}
		if err := yaml.Unmarshal(saved.Lesson, &lesson); err != nil {
			t.Fatalf("%v\n%s", err, saved.Lesson)
		}
		var got []string
		for _, s := range lesson.Steps {
			if s.Do == "acquire" || s.Do == "release" {
				got = append(got, s.Actor+" "+s.Do+" "+s.Expect)
			}
		}
		if want := []string{"A acquire ACQUIRED", "A release RELEASED"}; !slices.Equal(got, want) {
			t.Errorf("saved steps %q, want %q\n%s", got, want, saved.Lesson)
		}
		// One: the bare DEL written as a script. A queued command saved
		// with no lock state would add one ("has no lock state").
		if len(saved.Missing) != 1 {
			t.Errorf("missing %q, want only the bare DEL's note", saved.Missing)
		}
	})
}

// TestGoRedisTxPipelined: go-redis's TxPipelined (MULTI ... EXEC in one
// write, RESP3) acquiring a lock in one transaction and releasing it in
// the next while the analyzer lags: an acquire and a release by the same
// client at EXEC, no finding.
func TestGoRedisTxPipelined(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		ctx := context.Background()
		c := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, Protocol: 3, DisableIdentity: true})
		t.Cleanup(func() { c.Close() })
		for _, f := range []func(redis.Pipeliner){
			func(tx redis.Pipeliner) { tx.SetNX(ctx, "lock:g", "tokG", time.Minute) },
			func(tx redis.Pipeliner) { tx.Del(ctx, "lock:g") },
		} {
			if _, err := c.TxPipelined(ctx, func(tx redis.Pipeliner) error { f(tx); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		release()
		settle(p)
		snap := p.Snapshot()
		lane := snap.Lanes[0].Lane
		set, del := lastCommand(snap.Events, lane, "SET", "lock:g"), lastCommand(snap.Events, lane, "DEL", "lock:g")
		if st := statesAfter(snap.Events, set); len(st) != 1 || st[0].Value != "tokG" || st[0].Holder != lane {
			t.Errorf("states after the SET NX %+v, want tokG held by %s", st, lane)
		}
		if st := statesAfter(snap.Events, del); len(st) != 1 || st[0].Present() {
			t.Errorf("states after the DEL %+v, want absent", st)
		}
		if len(snap.Findings) != 0 {
			t.Errorf("findings %+v, want none", snap.Findings)
		}
	})
}

// TestExecAbortRunsNone: a transaction with a command Redis refused while
// queuing (GET with two keys: wrong arity) is answered EXECABORT at EXEC and runs none of its commands:
// the SET NX queued before the refused command leaves no state.
func TestExecAbortRunsNone(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		a := dialRaw(t, p.Addr())
		got := a.pipeline(t, cmd("MULTI"), cmd("SET lock:e tokA NX PX 60000"), cmd("GET a b"), cmd("EXEC"))
		if got[1] != "QUEUED" || !strings.HasPrefix(got[3], "(error) EXECABORT") {
			t.Fatalf("the transaction answered %q, want its EXEC EXECABORT", got)
		}
		settle(p)
		snap := p.Snapshot()
		set := lastCommand(snap.Events, snap.Lanes[0].Lane, "SET", "lock:e")
		if st := statesAfter(snap.Events, set); set == 0 || len(st) != 0 {
			t.Errorf("states after the SET NX of an aborted transaction (event %d) %+v, want none", set, st)
		}
		if st, ok := lockOf(snap, "lock:e"); ok && st.Present() {
			t.Errorf("lock:e %+v, want absent", st)
		}
	})
}
