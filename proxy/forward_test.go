package proxy

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPlainCommandsBeyondRateUntraced: plain commands (no lock key, no
// script) beyond the trace's rate are forwarded and answered as ever but
// only counted (Snapshot.Untraced), while every command on a lock key in
// the same pipeline is still traced with its reply.
func TestPlainCommandsBeyondRateUntraced(t *testing.T) {
	// A budget of 100 plain commands that no tick refills (the rate
	// source is injected, with no ticker): the count does not hang on
	// how fast this machine runs the pipeline.
	const budget = 100
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*", plainRate: &plainRate{budget: budget}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	rc := dialRaw(t, p.Addr())
	const n = 2000
	var cmds [][]string
	for i := range n {
		cmds = append(cmds, []string{"SET", "plain:" + strconv.Itoa(i%10), "v"})
		if i%250 == 0 {
			cmds = append(cmds, []string{"SET", "lock:a", "t" + strconv.Itoa(i), "PX", "60000"})
		}
	}
	cmds = append(cmds, []string{"GET", "plain:3"}, []string{"GET", "lock:a"})
	got := rc.pipeline(t, cmds...)
	for i, r := range got[:len(got)-2] {
		if r != "OK" {
			t.Fatalf("command %d %v answered %q", i, cmds[i], r)
		}
	}
	if got[len(got)-2] != `"v"` || got[len(got)-1] != `"t1750"` {
		t.Fatalf("GETs answered %q", got[len(got)-2:])
	}
	snap := p.Snapshot()
	plain, locks := 0, 0
	for _, e := range snap.Events {
		if e.Kind != EventCommand {
			continue
		}
		if len(e.Command.Locks) > 0 {
			locks++
			if e.Command.Name == "SET" && e.Command.Reply != "OK" {
				t.Errorf("lock command %v traced with reply %q", e.Command.Args, e.Command.Reply)
			}
		} else if strings.HasPrefix(e.Command.Args[1], "plain:") {
			plain++
		}
	}
	if locks != n/250+1 { // and the GET of lock:a
		t.Errorf("%d commands on lock:a traced, want %d", locks, n/250+1)
	}
	if plain != budget || snap.Untraced != n+1-budget {
		t.Errorf("%d plain commands traced and %d untraced, want %d and %d", plain, snap.Untraced, budget, n+1-budget)
	}
}

// TestSharedSlowReaderHoldsNoOne: a client on a shared upstream
// connection that pipelines big replies and reads none never holds up
// another client on the same connection: the shared reader writes to a
// client without waiting for its socket (writeNow) and leaves the rest to
// that client's goroutine.
func TestSharedSlowReaderHoldsNoOne(t *testing.T) {
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	// Lanes c1 and c3 share a connection (by id, sharedUpstreams 2).
	var rcs []*rawClient
	for range 3 {
		rc := dialRaw(t, p.Addr())
		rc.pipeline(t, cmd("PING"))
		rcs = append(rcs, rc)
	}
	slow, other := rcs[0], rcs[2]
	other.pipeline(t, []string{"SET", "big", strings.Repeat("x", 256<<10)})
	var b []byte
	for range 100 { // 25 MiB of replies, never read
		b = append(b, encodeCommand([]string{"GET", "big"})...)
	}
	if _, err := slow.c.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = other.c.SetDeadline(time.Now().Add(20 * time.Second))
	for i := range 50 {
		if got := other.pipeline(t, []string{"INCR", "n"}); got[0] != "(integer) "+strconv.Itoa(i+1) {
			t.Fatalf("INCR answered %q", got[0])
		}
	}
	if shared, own := p.sharedCounts(); shared != 3 || own != 0 {
		t.Fatalf("%d clients on shared connections, %d on their own; want 3, 0", shared, own)
	}
}
