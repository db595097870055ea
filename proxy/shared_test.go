package proxy

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"lockstep/internal/redistest"
)

// rawClient is a client that writes RESP itself: it sends no HELLO or
// CLIENT command of its own, as redis-benchmark does.
type rawClient struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawClient{c: c, r: bufio.NewReader(c)}
}

// pipeline sends every command in one write and reads one reply each,
// written like redis-cli.
func (rc *rawClient) pipeline(t *testing.T, cmds ...[]string) []string {
	t.Helper()
	var b []byte
	for _, c := range cmds {
		b = append(b, encodeCommand(c)...)
	}
	if _, err := rc.c.Write(b); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(cmds))
	for i := range cmds {
		_, v, err := readReply(rc.r)
		if err != nil {
			t.Fatalf("reply %d of %v: %v", i, cmds, err)
		}
		out[i] = v.String()
	}
	return out
}

func cmd(s string) []string { return strings.Fields(s) }

// TestSharedUpstream: clients that send only sharable commands share the
// upstream connections, each gets its own replies in its own order; a
// client's first MULTI or SELECT moves it to its own connection after the
// replies to what it pipelined before it, in the same pipeline, and the
// transaction and the database stay its own.
func TestSharedUpstream(t *testing.T) {
	for name, url := range map[string]func() string{
		"embedded":     func() string { return "" },
		"redis-server": func() string { return redistest.Start(t).URL },
	} {
		t.Run(name, func(t *testing.T) {
			// Every INCR is traced (1,200 at once, beyond the plain
			// commands' rate): this test reads their lanes. The budget
			// is injected, with no refill that could lower it.
			p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", RedisURL: url(), Locks: "lock:*", plainRate: &plainRate{budget: 1 << 40}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			const n = 6
			clients := make([]*rawClient, n)
			for i := range clients {
				clients[i] = dialRaw(t, p.Addr())
			}
			// Every client pipelines at once; each sees its own counter.
			done := make(chan []string, n)
			for i, rc := range clients {
				go func() {
					k := "count:" + string(rune('a'+i))
					var cmds [][]string
					for range 200 {
						cmds = append(cmds, []string{"INCR", k})
					}
					cmds = append(cmds, []string{"GET", k}, []string{"SET", "lock:" + k, "x", "NX", "PX", "60000"})
					done <- rc.pipeline(t, cmds...)
				}()
			}
			for range n {
				r := <-done
				for j := range 200 {
					if want := "(integer) " + strconv.Itoa(j+1); r[j] != want {
						t.Fatalf("INCR %d answered %q, want %q", j+1, r[j], want)
					}
				}
				if r[200] != `"200"` || r[201] != "OK" {
					t.Fatalf("GET, SET NX answered %q %q", r[200], r[201])
				}
			}
			if shared, own := p.sharedCounts(); shared != n || own != 0 {
				t.Fatalf("%d clients on shared connections, %d on their own; want %d, 0", shared, own, n)
			}
			// One pipeline: sharable commands, then MULTI: the client moves
			// to its own connection with its commands in order.
			a := clients[0]
			got := a.pipeline(t, cmd("SET tx 1"), cmd("INCR tx"), cmd("MULTI"), cmd("INCR tx"), cmd("INCR tx"), cmd("EXEC"), cmd("GET tx"))
			want := []string{"OK", "(integer) 2", "OK", "QUEUED", "QUEUED", "[(integer) 3, (integer) 4]", `"4"`}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("pipeline through MULTI answered %q, want %q", got, want)
			}
			if shared, own := p.sharedCounts(); shared != n-1 || own != 1 {
				t.Fatalf("after MULTI: %d shared, %d own; want %d, 1", shared, own, n-1)
			}
			// SELECT stays with the client that sent it (redis-server has
			// databases; miniredis too).
			b := clients[1]
			if got := b.pipeline(t, cmd("SET db where-0"), cmd("SELECT 1"), cmd("SET db where-1"), cmd("GET db")); strings.Join(got, "|") != `OK|OK|OK|"where-1"` {
				t.Fatalf("SELECT pipeline answered %q", got)
			}
			if got := clients[2].pipeline(t, cmd("GET db")); got[0] != `"where-0"` {
				t.Fatalf("a shared client read %s, want database 0's value", got[0])
			}
			// A shared client's commands are traced on its own lane.
			var lanes = map[string]int{}
			for _, e := range p.Snapshot().Events {
				if e.Kind == EventCommand && e.Command.Name == "INCR" {
					lanes[e.Lane]++
				}
			}
			if len(lanes) != n {
				t.Errorf("INCRs traced on lanes %v, want %d lanes", lanes, n)
			}
		})
	}
}
