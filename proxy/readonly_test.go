package proxy

import (
	"strings"
	"testing"
)

// TestWatchGetKeepsState: a check-and-delete in a transaction (WATCH,
// GET, MULTI, DEL, EXEC), sent while the analyzer lags: the WATCH and the
// GET change nothing, so the state after each is the hold they found,
// not what a read after them would show once the DEL ran at EXEC (the
// key absent, which read as the owner's lease running out: a false
// lease-expired). The DEL's state, read after EXEC, is absent; no finding.
func TestWatchGetKeepsState(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		a := dialRaw(t, p.Addr())
		got := a.pipeline(t, cmd("SET lock:w tokA NX PX 60000"), cmd("WATCH lock:w"), cmd("GET lock:w"))
		if got[0] != "OK" || got[1] != "OK" || got[2] != `"tokA"` {
			t.Fatalf("SET, WATCH, GET answered %q", got)
		}
		got = a.pipeline(t, cmd("MULTI"), cmd("DEL lock:w"), cmd("EXEC"))
		if got[2] != "[(integer) 1]" {
			t.Fatalf("MULTI, DEL, EXEC answered %q", got)
		}
		release()
		settle(p)
		snap := p.Snapshot()
		lane := snap.Lanes[0].Lane
		for _, name := range []string{"WATCH", "GET"} {
			st := statesAfter(snap.Events, lastCommand(snap.Events, lane, name, "lock:w"))
			if len(st) != 1 || !st[0].Present() || st[0].Value != "tokA" || st[0].Holder != lane || st[0].PTTL <= 0 {
				t.Errorf("state after %s: %+v, want one: tokA held by %s with its lease", name, st, lane)
			}
		}
		if st := statesAfter(snap.Events, lastCommand(snap.Events, lane, "DEL", "lock:w")); len(st) != 1 || st[0].Present() {
			t.Errorf("state after the DEL: %+v, want one: absent", st)
		}
		if len(snap.Findings) != 0 {
			t.Errorf("findings %+v, want none", snap.Findings)
		}
	})
}

// TestReadDisagreeingIsRead: a GET whose reply is not what the analyzer
// last saw (another program changed the key without the proxy) is not
// taken as leaving the key unchanged: the lock reader reads it, and the
// state after the GET is the key's, with its new value.
func TestReadDisagreeingIsRead(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		a := dialRaw(t, p.Addr())
		if got := a.pipeline(t, cmd("SET lock:d tokA NX PX 60000")); got[0] != "OK" {
			t.Fatalf("SET answered %q", got)
		}
		settle(p)
		outside := dialRaw(t, p.upAddr) // not through the proxy
		if got := outside.pipeline(t, cmd("SET lock:d tokB PX 30000")); got[0] != "OK" {
			t.Fatalf("the outside SET answered %q", got)
		}
		for _, c := range [][]string{cmd("GET lock:d"), cmd("PTTL lock:d"), cmd("EXISTS lock:d")} {
			a.pipeline(t, c)
		}
		settle(p)
		snap := p.Snapshot()
		lane := snap.Lanes[0].Lane
		st := statesAfter(snap.Events, lastCommand(snap.Events, lane, "GET", "lock:d"))
		if len(st) != 1 || st[0].Value != "tokB" || st[0].PTTL > 30000 {
			t.Errorf("state after the GET: %+v, want one: tokB with the outside SET's lease", st)
		}
		// The PTTL and EXISTS after it agree with what the GET's read
		// found: their states are that one, counted down.
		for _, name := range []string{"PTTL", "EXISTS"} {
			st := statesAfter(snap.Events, lastCommand(snap.Events, lane, name, "lock:d"))
			if len(st) != 1 || st[0].Value != "tokB" || st[0].PTTL > 30000 {
				t.Errorf("state after %s: %+v, want tokB", name, st)
			}
		}
		// A key deleted outside: GET answers nil, the reader reads it absent.
		outside.pipeline(t, cmd("DEL lock:d"))
		a.pipeline(t, cmd("GET lock:d"))
		settle(p)
		snap = p.Snapshot()
		if st, ok := lockOf(snap, "lock:d"); !ok || st.Present() {
			t.Errorf("lock:d after the outside DEL and a GET: %+v, want absent", st)
		}
	})
}

// TestRefusedNameNotTheLanes: a CLIENT SETNAME that Redis refuses (a name
// with a space) does not name the lane; one it takes does.
func TestRefusedNameNotTheLanes(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		a := dialRaw(t, p.Addr())
		got := a.pipeline(t, []string{"CLIENT", "SETNAME", "worker a"})
		if !strings.HasPrefix(got[0], "(error)") {
			t.Fatalf("SETNAME with a space answered %q", got)
		}
		settle(p)
		if name := p.Snapshot().Lanes[0].Name; name != "" {
			t.Errorf("after a refused SETNAME the lane is named %q", name)
		}
		a.pipeline(t, cmd("CLIENT SETNAME worker-a"))
		settle(p)
		if name := p.Snapshot().Lanes[0].Name; name != "worker-a" {
			t.Errorf("after SETNAME worker-a the lane is named %q", name)
		}
	})
}
