package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestScriptBusyReplyIsRedis: sim.ScriptBusyReply is, word for word, the
// error a real redis-server answers another client with while an EVAL
// script runs past busy-reply-threshold. The server is started with a
// threshold of 1 ms; the script loops until SCRIPT KILL stops it (it writes
// nothing, so SCRIPT KILL may), and the other client sends PING until it is
// answered with an error, so no step depends on how long anything takes.
func TestScriptBusyReplyIsRedis(t *testing.T) {
	srv := redistest.Start(t, "--busy-reply-threshold", "1")
	ctx := context.Background()
	runner, other := srv.Client(t), srv.Client(t)
	if err := other.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- runner.Eval(ctx, "while true do end", nil).Err() }()
	var busy error
	for busy == nil {
		err := other.Ping(ctx).Err()
		if err == nil {
			continue
		}
		var rerr redis.Error
		if !errors.As(err, &rerr) {
			t.Fatalf("PING while the script runs: %v, want a Redis error reply", err)
		}
		busy = err
	}
	if got := busy.Error(); got != sim.ScriptBusyReply {
		t.Errorf("Redis answered %q\nsim.ScriptBusyReply is %q", got, sim.ScriptBusyReply)
	}
	if err := other.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-done; err == nil {
		t.Fatal("the endless script returned without an error after SCRIPT KILL")
	}
}
