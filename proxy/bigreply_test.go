package proxy

import (
	"strings"
	"testing"
)

// TestReplyOverBoundAnsweredInPlace: a reply over the proxy's bound
// (maxReplyBytes; a test's smaller one here) is read through and its client gets an error reply in
// its place; that client and every other on the same shared upstream
// connection go on (before, the shared connection's reader ended, and
// with it every client on it). A reply under the bound passes whole.
func TestReplyOverBoundAnsweredInPlace(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		// A bound of 1 MiB: the same code as the 64 MiB one, without
		// moving 130 MiB (20 s under -race at load 8).
		const bound = 1 << 20
		p := startOn(t, realRedis, Config{Locks: "lock:*", maxReply: bound})
		// Four clients, one command each in turn, so that each shared
		// upstream connection (sharedUpstreams) carries two.
		clients := make([]*rawClient, 4)
		for i := range clients {
			clients[i] = dialRaw(t, p.Addr())
			if got := clients[i].pipeline(t, cmd("PING")); got[0] != "PONG" {
				t.Fatalf("client %d: PING answered %q", i, got)
			}
		}
		value := strings.Repeat("v", 600<<10) // 600 KiB: two are over the bound
		if got := clients[0].pipeline(t, []string{"SET", "big", value}); got[0] != "OK" {
			t.Fatalf("SET big: %q", got)
		}
		if got := clients[0].pipeline(t, cmd("STRLEN big")); got[0] != "(integer) 614400" {
			t.Fatalf("STRLEN big: %q", got)
		}
		_, v, err := readReplyAfter(t, clients[0], []string{"GET", "big"})
		if err != nil || v.Kind != '$' || len(v.Str) != len(value) {
			t.Fatalf("GET big (600 KiB, under the bound): kind %q, %d bytes, %v", v.Kind, len(v.Str), err)
		}
		for _, i := range []int{0, 1} { // one on each shared connection
			raw, v, err := readReplyAfter(t, clients[i], []string{"MGET", "big", "big"})
			if err != nil || string(raw) != tooLargeReply(bound) || v.Kind != '-' {
				t.Fatalf("client %d: MGET big big (1.2 MiB): %.120q %v, want the proxy's error in its place", i, raw, err)
			}
			for j, c := range clients {
				if got := c.pipeline(t, cmd("PING")); got[0] != "PONG" {
					t.Fatalf("after client %d's MGET, client %d: PING answered %q", i, j, got)
				}
			}
		}
	})
}

// readReplyAfter sends args on rc and reads the one reply with the
// proxy's own reader.
func readReplyAfter(t *testing.T, rc *rawClient, args []string) ([]byte, Value, error) {
	t.Helper()
	if _, err := rc.c.Write(encodeCommand(args)); err != nil {
		t.Fatal(err)
	}
	return readReply(rc.r)
}
