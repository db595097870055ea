package backend

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestScriptTimeLedger: an address runs one step of its scripts at once
// (a second waits, here until its ctx ends), is charged each step's time
// past scriptTimeFree, and past its budget is refused with the time
// spent and when to try again, while another address is not.
func TestScriptTimeLedger(t *testing.T) {
	t.Parallel()
	l := newTimeLedger(time.Second)
	release, err := l.acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second step of the address while one runs: %v, want it to wait", err)
	}
	other, err := l.acquire(context.Background(), "b")
	if err != nil {
		t.Fatalf("another address while a's step runs: %v", err)
	}
	other(10 * time.Millisecond)
	release(1200 * time.Millisecond)
	_, err = l.acquire(context.Background(), "a")
	var te *ScriptTimeError
	if !errors.As(err, &te) || te.Spent != 1150*time.Millisecond || te.Wait < 59*time.Second || te.Wait > time.Minute {
		t.Fatalf("past the budget: %v, want refused, 1.15 s spent, a minute to wait", err)
	}
	if r, err := l.acquire(context.Background(), "b"); err != nil {
		t.Fatalf("another address past a's budget: %v", err)
	} else {
		r(0)
	}
	if len(l.slots) != 0 {
		t.Errorf("%d slots kept with no step running", len(l.slots))
	}
}
