package proxy

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestQueuedJobNotOvertaken: a command whose lock state is known when its
// reply passes (its keys read on its connection, or a SET answered OK) is
// analyzed by the goroutine that passes the reply (handleNow) only when no
// job is queued for the analyzer's goroutine: else it would overtake the
// client's earlier commands, and the lock states (and the findings drawn
// from them) would come in another order than the commands. The analyzer
// is held while one client sends a DEL of more lock keys than are read
// on its connection (the last read by the lock reader), a release (read on its connection)
// and an acquire (a SET NX PX: its state known from its arguments); none
// of them is analyzed while the analyzer is held, and once it runs their
// lock states come in the commands' order.
func TestQueuedJobNotOvertaken(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*", analyzerHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			close(hold)
		}
	}
	t.Cleanup(func() { release(); p.Close() })
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	// A job for the analyzer's goroutine: a DEL of more lock keys than
	// are read on the connection (maxInlineKeys), the last read by the
	// lock reader.
	if err := c.Del(ctx, manyLocks()...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetNX(ctx, "lock:q", "tok1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Eval(ctx, releaseLua, []string{"lock:q"}, "tok1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetNX(ctx, "lock:q", "tok2", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	p.awaitInline(ctx) // every command recorded so far is handed over
	var cmds []uint64  // the lock commands' Seqs, in the trace's order
	for _, e := range p.Snapshot().Events {
		switch {
		case e.Kind == EventLock:
			t.Errorf("lock state %+v (after event %d) analyzed while a job before it is queued", *e.Lock, e.Lock.Cause)
		case e.Kind == EventCommand && len(e.Command.Locks) > 0:
			cmds = append(cmds, e.Seq)
		}
	}
	if len(cmds) != 4 { // DEL, SET, EVAL, SET
		t.Fatalf("commands on lock keys %v, want the DEL, the acquire, the release and the acquire", cmds)
	}
	release()
	// A state a key: the DEL's five, then one after each command on lock:q.
	want := []uint64{cmds[0], cmds[0], cmds[0], cmds[0], cmds[0], cmds[1], cmds[2], cmds[3]}
	var causes []uint64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		causes = causes[:0]
		for _, e := range p.Snapshot().Events {
			if e.Kind == EventLock {
				causes = append(causes, e.Lock.Cause)
			}
		}
		if len(causes) >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(causes, want) {
		t.Errorf("lock states after events %v, want them in the commands' order %v", causes, want)
	}
	locks, findings := p.an.snapshot()
	i := slices.IndexFunc(locks, func(st LockState) bool { return st.Key == "lock:q" })
	if i < 0 || locks[i].Value != "tok2" || locks[i].Holder == "" {
		t.Errorf("locks %+v, want lock:q held with tok2", locks)
	}
	if len(findings) != 0 {
		t.Errorf("findings %+v, want none (one client acquired, released and acquired again)", findings)
	}
}

// TestUnreadSetAnsweredNil: a SET NX on a key the analyzer last saw
// absent is sent without a read after it (its OK would give its state);
// when another client's acquire got there first, it answers nil and
// changed nothing: the state after it is the other client's hold, its
// PTTL counted down, and the hold stays the other's. Both acquires are
// sent while the analyzer is held behind a job, so the second is guessed
// wrong.
func TestUnreadSetAnsweredNil(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Locks: "lock:*", analyzerHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	held := true
	t.Cleanup(func() {
		if held {
			close(hold)
		}
		p.Close()
	})
	ctx := context.Background()
	opt := redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, Protocol: 2, DisableIdentity: true}
	a, b := redis.NewClient(&opt), redis.NewClient(&opt)
	t.Cleanup(func() { a.Close(); b.Close() })
	// A job the analyzer's goroutine must take first (manyLocks: the last
	// is read by the lock reader): the acquires queue up behind it.
	if err := a.Del(ctx, manyLocks()...).Err(); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.SetNX(ctx, "lock:n", "tokA", time.Minute).Result(); err != nil || !ok {
		t.Fatalf("a's SET NX: %v %v, want OK", ok, err)
	}
	if ok, err := b.SetNX(ctx, "lock:n", "tokB", time.Minute).Result(); err != nil || ok {
		t.Fatalf("b's SET NX: %v %v, want nil", ok, err)
	}
	close(hold)
	held = false
	var setA, setB *Event
	var after *LockState
	for deadline := time.Now().Add(30 * time.Second); after == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, e := range p.Snapshot().Events {
			switch {
			case e.Kind == EventCommand && e.Command.Name == "SET" && e.Command.Args[2] == "tokA":
				setA = &e
			case e.Kind == EventCommand && e.Command.Name == "SET" && e.Command.Args[2] == "tokB":
				setB = &e
			case e.Kind == EventLock && setB != nil && e.Lock.Cause == setB.Seq:
				after = e.Lock
			}
		}
	}
	if setA == nil || setB == nil || after == nil {
		t.Fatalf("a's SET %v, b's SET %v, the state after b's %v: want all three", setA, setB, after)
	}
	if !setB.Command.unread {
		t.Errorf("b's SET was sent with a read after it: the analyzer saw the key absent, so it should not be")
	}
	if after.Value != "tokA" || after.Holder != setA.Lane || after.PTTL <= 0 || after.PTTL > 60000 {
		t.Errorf("after b's SET NX answered nil: %+v, want a's hold (tokA, held by %s) with its PTTL counted down", *after, setA.Lane)
	}
	locks, findings := p.an.snapshot()
	i := slices.IndexFunc(locks, func(st LockState) bool { return st.Key == "lock:n" })
	if i < 0 || locks[i].Holder != setA.Lane || locks[i].Value != "tokA" {
		t.Errorf("locks %+v, want lock:n held by %s", locks, setA.Lane)
	}
	if len(findings) != 0 {
		t.Errorf("findings %+v, want none", findings)
	}
}

// manyLocks are more lock keys than are read after a command on its
// connection (maxInlineKeys): a command on all of them is handed to the
// analyzer's goroutine, whose lock reader reads the last.
func manyLocks() []string { return []string{"lock:z1", "lock:z2", "lock:z3", "lock:z4", "lock:z5"} }
