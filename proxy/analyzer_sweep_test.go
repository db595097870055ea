package proxy

import (
	"testing"
	"time"
)

// TestSweepBeforeAcquireStillOverlaps: the analyzer's sweep can read a
// second client's new lock before that client's SET NX reaches the
// analyzer (TestRedsyncPausedHolder's flake under load); the SET, which
// names the new owner, must still make the hold its lane's and report the
// overlap with the expired holder.
func TestSweepBeforeAcquireStillOverlaps(t *testing.T) {
	p := &Proxy{trace: newRing(100, 0), sessions: map[int64]*session{}}
	a := newAnalyzer(p)
	t0 := time.Now()
	setNX := func(seq uint64, lane, token string, at time.Time) obs {
		c := parseCommand([][]byte{[]byte("SET"), []byte("lock:job"), []byte(token), []byte("PX"), []byte("400"), []byte("NX")}, func(string) *Script { return nil })
		return obs{e: Event{Seq: seq, Kind: EventCommand, Lane: lane,
			Command: &CommandEvent{Name: "SET", Sent: at, Replied: at, Locks: []string{"lock:job"}, cmd: c, value: Value{Kind: '+', Str: "OK"}}}}
	}
	held := func(token string, at time.Time) LockState {
		return LockState{Key: "lock:job", Type: "string", Value: token, PTTL: 400, Read: at}
	}
	a.update("lock:job", held("A", t0), setNX(1, "c1", "A", t0), t0)
	// A's lease ran out; B acquired; the sweep reads B's key first.
	t1 := t0.Add(500 * time.Millisecond)
	a.update("lock:job", held("B", t1), obs{}, t1)
	a.update("lock:job", held("B", t1), setNX(2, "c2", "B", t1), t1)

	_, findings := a.snapshot()
	var codes []string
	for _, f := range findings {
		codes = append(codes, f.Code)
	}
	if len(findings) != 2 || findings[0].Code != FindingLeaseExpired || findings[1].Code != FindingOverlap ||
		findings[1].Lane != "c2" || findings[1].Other != "c1" {
		t.Fatalf("findings %v, want lease-expired then overlap (c2 over c1)", codes)
	}
	locks, _ := a.snapshot()
	if locks[0].Holder != "c2" {
		t.Errorf("holder %q, want c2", locks[0].Holder)
	}
	// A third client's failed SET NX, which does not name B's token,
	// claims nothing.
	a.update("lock:job", held("B", t1), obs{}, t1)
	a.update("lock:job", held("B", t1), setNX(3, "c3", "C", t1), t1)
	if locks, _ := a.snapshot(); locks[0].Holder != "c2" {
		t.Errorf("after c3's failed acquire: holder %q, want c2", locks[0].Holder)
	}
}
