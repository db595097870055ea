package proxy_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"lockstep/proxy"
)

// TestLockCommandTracedBeforeReply: once a client has the reply to a
// command on a lock key, the command is in the trace, so whatever the
// client (or the test) does next follows it there. Recorded after the
// write, another client's acquire could be analyzed first and take the
// hold (TestRedsyncPausedHolder's flake under load).
func TestLockCommandTracedBeforeReply(t *testing.T) {
	t.Parallel()
	p := startProxy(t, proxy.Config{Locks: "lock:*", TraceSize: 100})
	c := client(t, p, "a", 2)
	ctx := context.Background()
	for i := range 300 {
		token := "t" + strconv.Itoa(i)
		if err := c.Set(ctx, "lock:order", token, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range p.Snapshot().Events {
			if e.Kind == proxy.EventCommand && e.Command.Name == "SET" && len(e.Command.Args) > 2 && e.Command.Args[2] == token {
				found = true
			}
		}
		if !found {
			t.Fatalf("SET %s: not in the trace when its reply came", token)
		}
	}
}
