//go:build linux

package backend_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"lockstep/backend"
)

// TestSandboxLimitCountsProcessorTime: the sandbox's time limit counts the
// processor time of its process, not the time a loaded machine kept the
// process from a core. The process is stopped (SIGSTOP) before a lock
// script's step and let go after twice the limit: the step answers. Before,
// counted on the wall clock, it was stopped at the limit (a one-millisecond
// SET NX at 300 ms in a CI run at load 13). A process kept stopped is still
// ended at the wall-clock bound, five times the limit, so the step's wait
// stays bounded.
func TestSandboxLimitCountsProcessorTime(t *testing.T) {
	const limit = 300 * time.Millisecond
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: limit})
	t.Cleanup(func() { sb.Close() })
	open := func() (*backend.Store, error) { return sb.NewStore(context.Background()) }
	if _, err := sb.Backend(context.Background()); err != nil {
		t.Fatal(err)
	}
	lock := userScript(t, "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])")
	// A first step compiles the script in the process.
	if r, err := callOnce(t, open, lock); err != nil || r.Str != "OK" {
		t.Fatalf("a lock script: %+v %v", r, err)
	}

	pid := sb.PID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := make(chan struct{})
	go func() {
		defer close(resumed)
		time.Sleep(2 * limit)
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}()
	t0 := time.Now()
	r, err := callOnce(t, open, lock)
	took := time.Since(t0)
	<-resumed
	if err != nil || r.Str != "OK" {
		t.Errorf("a lock script whose process waited %s: %+v %v after %s, want OK", 2*limit, r, err, took.Round(time.Millisecond))
	}
	if sb.PID() != pid {
		t.Errorf("the sandbox's process %d was replaced by %d: stopped for time it did not run", pid, sb.PID())
	}

	// Kept stopped: ended at the wall-clock bound.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	_, err = callOnce(t, open, lock)
	took = time.Since(t0)
	overrun(t, "a process kept stopped", err, "sandbox")
	if took < 5*limit {
		t.Errorf("a process kept stopped was ended after %s, before the wall-clock bound of %s", took, 5*limit)
	}
	if !processGoneWithin(pid, time.Second) {
		t.Errorf("the stopped process %d still runs after its step answered", pid)
	}
}
