package webnet

import (
	"runtime"
	"testing"
)

// TestWorkGate: a waiter gets the next free slot ahead of TryAcquire, and
// one that stops waiting gives a slot handed to it on.
func TestWorkGate(t *testing.T) {
	t.Parallel()
	g := NewWorkGate(1)
	if !g.TryAcquire() || g.TryAcquire() {
		t.Fatal("one slot")
	}
	got := make(chan bool)
	go func() { got <- g.Acquire(1, nil, nil) }()
	for { // until it waits
		g.mu.Lock()
		n := len(g.waiting)
		g.mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	if g.TryAcquire() {
		t.Fatal("TryAcquire jumped the queue")
	}
	g.Release()
	if !<-got {
		t.Fatal("the waiter did not get the slot")
	}
	gone := make(chan struct{})
	close(gone)
	if g.Acquire(1, gone, nil) {
		t.Fatal("acquire with its connection gone took a slot")
	}
	g.Release()
	if !g.TryAcquire() {
		t.Fatal("the slot was lost")
	}
	// The quietest waiter first.
	order := make(chan float64, 3)
	for i, share := range []float64{1, 5, 3} {
		go func() {
			if g.Acquire(share, nil, nil) {
				order <- share
			}
		}()
		for { // until it waits
			g.mu.Lock()
			n := len(g.waiting)
			g.mu.Unlock()
			if n == i+1 {
				break
			}
			runtime.Gosched()
		}
	}
	for _, want := range []float64{5, 3, 1} {
		g.Release()
		if got := <-order; got != want {
			t.Fatalf("waiter with share %g served, want %g", got, want)
		}
	}
}
