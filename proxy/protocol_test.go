package proxy

import (
	"errors"
	"io"
	"strings"
	"testing"

	"lockstep/internal/redistest"
)

// protocolCases are bytes a client may send that are not plain RESP
// arrays, each with how many replies Redis gives them and whether it then
// closes the connection (after a protocol error).
var protocolCases = []struct {
	name    string
	in      string
	replies int
	closes  bool
}{
	{"a line starting with $ is an inline command", "$3\r\nPING\r\nPING\r\n", 3, false},
	{"a $ line with arguments", "$9999999999 a b\r\n", 1, false},
	{"*-1 skipped", "*-1\r\nPING\r\n", 1, false},
	{"*0 skipped", "*0\r\nPING\r\n", 1, false},
	{"*-5 skipped", "*-5\r\n*1\r\n$4\r\nPING\r\n", 1, false},
	{"a count over INT_MAX", "*99999999999\r\n", 1, true},
	{"a count that is not a number", "*1x\r\n", 1, true},
	{"a bulk length over 32 bits", "*1\r\n$9999999999\r\n", 1, true},
	{"a bulk over proto-max-bulk-len", "*1\r\n$600000000\r\n", 1, true},
	{"a bulk length just over proto-max-bulk-len", "*1\r\n$536870913\r\n", 1, true},
	{"a negative bulk length", "*1\r\n$-1\r\n", 1, true},
	{"a bulk length of -2 (redcon panicked)", "*1\r\n$-2\r\n", 1, true},
	{"a later bulk's length over the bound", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$600000000\r\n", 1, true},
	{"a bulk without $", "*1\r\n+PING\r\n", 1, true},
	{"an inline line over 64 KiB", strings.Repeat("a", 70<<10), 1, true},
	{"a count line over 64 KiB", "*" + strings.Repeat("1", 70<<10), 1, true},
	{"a bulk length line over 64 KiB", "*1\r\n$" + strings.Repeat("1", 70<<10), 1, true},
	// What one write held before the bad bytes is run and answered
	// first (the proxy dropped it, answering the error alone).
	{"commands before a protocol error", "PING\r\n*3\r\n$3\r\nSET\r\n$6\r\nlock:p\r\n$1\r\nv\r\n*1\r\n$-2\r\n", 3, true},
	{"an inline command before a bad count", "PING\r\n*1x\r\n", 2, true},
}

// exchange sends in on a new connection to addr and reads n replies, then
// EOF when closes, else a PING's PONG (the connection still reads
// commands); the replies as sent, an error's "unknown command" text cut
// to those words (miniredis words the rest its own way).
func exchange(t *testing.T, addr, in string, n int, closes bool) []string {
	t.Helper()
	rc := dialRaw(t, addr)
	if _, err := rc.c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range n {
		raw, _, err := readReply(rc.r)
		if err != nil {
			t.Fatalf("%q: reply %d: %v", in, i, err)
		}
		s := string(raw)
		if j := strings.Index(s, "unknown command"); j >= 0 && s[0] == '-' {
			s = s[:j+len("unknown command")]
		}
		out = append(out, s)
	}
	if closes {
		if _, _, err := readReply(rc.r); !errors.Is(err, io.EOF) {
			t.Errorf("%q: after the error, %v, want the connection closed", in, err)
		}
		return out
	}
	if _, err := rc.c.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if raw, _, err := readReply(rc.r); err != nil || string(raw) != "+PONG\r\n" {
		t.Errorf("%q: then PING answered %q, %v", in, raw, err)
	}
	return out
}

// TestProtocolAsRedis: the proxy answers each of protocolCases as a
// redis-server does (asked the same bytes directly), on both upstreams:
// a line starting with '$' was awaited as Tile38's protocol (no reply
// ever), a count or bulk length Redis refuses was awaited (silence), *-1
// was an error, "*1\r\n$-2\r\n" panicked the proxy.
func TestProtocolAsRedis(t *testing.T) {
	srv := redistest.Start(t)
	want := make([][]string, len(protocolCases))
	for i, tc := range protocolCases {
		want[i] = exchange(t, srv.Addr, tc.in, tc.replies, tc.closes)
	}
	onBoth(t, func(t *testing.T, realRedis bool) {
		p := startOn(t, realRedis, Config{Locks: "lock:*"})
		for i, tc := range protocolCases {
			got := exchange(t, p.Addr(), tc.in, tc.replies, tc.closes)
			if strings.Join(got, "|") != strings.Join(want[i], "|") {
				t.Errorf("%s: the proxy answered %q, redis-server %q", tc.name, got, want[i])
			}
		}
	})
}
