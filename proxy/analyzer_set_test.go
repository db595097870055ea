package proxy

import (
	"context"
	"testing"
	"time"
)

// TestSetSeenWhenReadLags: the lock reader runs beside the clients, so
// by the time it reads the key after b's SET NX, c may already have
// released b's hold. The SET's own arguments and OK say what it left,
// so b's hold is seen and c's release is one by another connection.
func TestSetSeenWhenReadLags(t *testing.T) {
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	a := newAnalyzer(p) // not running: each command is handled here, late
	ctx := context.Background()
	now := time.Now()
	event := func(seq uint64, lane string, reply Value, args ...string) obs {
		raw := make([][]byte, len(args))
		for i, s := range args {
			raw[i] = []byte(s)
		}
		c := parseCommand(raw, p.script)
		ev := &CommandEvent{Name: c.name, Args: c.args, Locks: c.keys[:1], Sent: now, Replied: now, value: reply, cmd: c}
		return obs{e: Event{Seq: seq, Kind: EventCommand, At: now, Lane: lane, Command: ev}, keys: ev.Locks}
	}
	// Both ran in Redis (the key is gone) before the reader got to b's SET.
	a.handle(ctx, event(1, "c2", Value{Kind: '+', Str: "OK"}, "SET", "lock:o", "tokB", "NX", "PX", "60000"))
	if st := a.locks["lock:o"].state; !st.Present() || st.Value != "tokB" || st.PTTL != 60000 {
		t.Fatalf("after b's SET: %+v, want tokB with 60000 ms", st)
	}
	a.handle(ctx, event(2, "c3", Value{Kind: ':', Int: 1}, "EVAL", releaseLua, "1", "lock:o", "tokB"))
	if len(a.findings) != 1 || a.findings[0].Code != FindingReleaseByOther || a.findings[0].Lane != "c3" || a.findings[0].Other != "c2" {
		t.Errorf("findings %+v, want c3's release of c2's hold", a.findings)
	}
	for _, c := range [][]string{
		{"SET", "lock:o", "v", "KEEPTTL"}, {"SET", "lock:o", "v", "GET"}, {"SET", "lock:o", "v", "PXAT", "9"}, {"SET", "lock:o", "v", "PX"}, {"SET", "lock:o", "v", "EX", "x"},
	} {
		raw := make([][]byte, len(c))
		for i, s := range c {
			raw[i] = []byte(s)
		}
		cmd := parseCommand(raw, p.script)
		if st, ok := setState(&CommandEvent{cmd: cmd, value: Value{Kind: '+', Str: "OK"}}, "lock:o"); ok {
			t.Errorf("%q: state %+v taken from the command, want it read", c, st)
		}
	}
}

const releaseLua = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`
