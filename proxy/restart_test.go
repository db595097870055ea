package proxy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"
)

// TestRestartNoObserverBehind: after RestartUpstream the lock reader's
// connection, which died with the old embedded Redis, is dialed again
// before it reads: no observer-behind fault (error EOF) that no one
// injected, at the restart's reads or at the next command on a lock key.
func TestRestartNoObserverBehind(t *testing.T) {
	t.Parallel()
	p := startOn(t, false, Config{Locks: "lock:*"})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { c.Close() })
	if err := c.SetNX(ctx, "lock:a", "token-1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	settle(p)
	p.an.fault(ctx, Event{}, []string{"lock:a"}) // the lock reader reads, on its own connection
	for range 2 {
		if err := p.RestartUpstream(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, "lock:a").Result(); err != redis.Nil {
			t.Fatalf("GET lock:a after the restart: %q, %v; want nil", v, err)
		}
		if err := c.SetNX(ctx, "lock:a", "token-2", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		settle(p)
	}
	restarts := 0
	for _, e := range p.Snapshot().Events {
		if e.Kind != EventFault {
			continue
		}
		switch e.Fault.Kind {
		case FaultRestart:
			restarts++
		case FaultObserverBehind:
			t.Errorf("an observer-behind fault after a restart: %+v, error %q", *e.Fault, e.Error)
		}
	}
	if restarts != 2 {
		t.Errorf("%d restart events, want 2", restarts)
	}
}

// TestRestartBlockingCommands: after RestartUpstream the blocking commands
// answer as before it. A BLPOP, BRPOPLPUSH and XREAD BLOCK with a 1 s
// timeout on empty keys answer nil, and a BLPOP given another client's
// RPUSH answers with the item, which leaves the list. (miniredis's Close
// cancels the context its blocking commands run under and Restart does
// not make a new one: on the restarted server each returned without a
// reply, and the client waited until its own read deadline.)
func TestRestartBlockingCommands(t *testing.T) {
	t.Parallel()
	p := startOn(t, false, Config{Locks: "lock:*"})
	ctx := context.Background()
	blocker := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1})
	pusher := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { blocker.Close(); pusher.Close() })
	for round := range 2 { // before the restart, then after it
		if round == 1 {
			if err := p.RestartUpstream(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// go-redis waits for a blocking command's reply up to its
		// timeout and 10 s: a reply never sent is an i/o timeout error.
		if v, err := blocker.BLPop(ctx, time.Second, "q:empty").Result(); err != redis.Nil {
			t.Errorf("round %d: BLPOP q:empty 1: %q, %v; want nil", round, v, err)
		}
		if v, err := blocker.BRPopLPush(ctx, "q:empty", "q:dst", time.Second).Result(); err != redis.Nil {
			t.Errorf("round %d: BRPOPLPUSH q:empty q:dst 1: %q, %v; want nil", round, v, err)
		}
		if v, err := blocker.XRead(ctx, &redis.XReadArgs{Streams: []string{"s:empty", "$"}, Block: time.Second}).Result(); err != redis.Nil {
			t.Errorf("round %d: XREAD BLOCK 1000 STREAMS s:empty $: %v, %v; want nil", round, v, err)
		}

		item := fmt.Sprintf("item-%d", round)
		// The embedded Redis tells when the BLPOP reaches it: the RPUSH
		// is sent after that, over another connection, and wakes it.
		// (Sent before, it would be taken by the BLPOP all the same.)
		arrived := make(chan struct{}, 1)
		p.miniMu.Lock()
		p.mini.Server().SetPreHook(func(_ *server.Peer, cmd string, args ...string) bool {
			if strings.EqualFold(cmd, "BLPOP") && len(args) > 0 && args[0] == "q:work" {
				select {
				case arrived <- struct{}{}:
				default:
				}
			}
			return false
		})
		p.miniMu.Unlock()
		var v []string
		var err error
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			v, err = blocker.BLPop(ctx, 5*time.Second, "q:work").Result()
		}()
		select {
		case <-arrived:
		case <-answered: // never reached the embedded Redis: fails below
		}
		if err := pusher.RPush(ctx, "q:work", item).Err(); err != nil {
			t.Fatal(err)
		}
		<-answered
		if err != nil || len(v) != 2 || v[0] != "q:work" || v[1] != item {
			t.Errorf("round %d: BLPOP q:work woken by RPUSH: %q, %v; want [q:work %s]", round, v, err, item)
		}
		if n, err := pusher.LLen(ctx, "q:work").Result(); err != nil || n != 0 {
			t.Errorf("round %d: LLEN q:work after the BLPOP: %d, %v; want 0", round, n, err)
		}
	}
}
