package webnet

import (
	"sync"
)

// WorkGate bounds the client messages the server carries out at once
// (web.Config.MaxBusy), fairly (hardening finding 12: 50 connections, each
// under its own rate limit, raised another user's step p50 from 0.8 ms to
// 27 ms). A connection within its fair share (web.Config.FairRate) that finds
// every slot taken waits for the next free one, ahead of everyone else; a
// connection over its fair share never waits: with a slot free it is
// served, which leaves idle capacity to whoever wants it, and with none its
// message is refused as rate-limited. So a flood only ever uses capacity
// nobody within their share is asking for. Among the waiters the quietest
// (the most of its fair share left) goes first, so a learner who sends a
// step now and then waits at most for one message in progress, however
// many connections use their share in full.
type WorkGate struct {
	mu      sync.Mutex
	free    int
	waiting []*waiter
}

// waiter is a session waiting for a slot.
type waiter struct {
	ch    chan struct{} // closed when the slot is handed over
	share float64       // what is left of its fair share: the most goes first
}

// NewWorkGate is a gate of n slots.
func NewWorkGate(n int) *WorkGate { return &WorkGate{free: n} }

// TryAcquire takes a slot if one is free.
func (g *WorkGate) TryAcquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.free > 0 && len(g.waiting) == 0 {
		g.free--
		return true
	}
	return false
}

// Acquire takes a slot, waiting for one until gone or stop is closed;
// false when one of them closed first. share is what is left of the
// caller's fair share (rate.Limiter.Tokens): the waiter with the most is
// served first, the longest waiting among equals.
func (g *WorkGate) Acquire(share float64, gone, stop <-chan struct{}) bool {
	g.mu.Lock()
	if g.free > 0 && len(g.waiting) == 0 {
		g.free--
		g.mu.Unlock()
		return true
	}
	w := &waiter{ch: make(chan struct{}), share: share}
	g.waiting = append(g.waiting, w)
	g.mu.Unlock()
	select {
	case <-w.ch:
		return true
	case <-gone:
	case <-stop:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, o := range g.waiting {
		if o == w {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return false
		}
	}
	// Handed a slot as it stopped: give it on.
	g.releaseLocked()
	return false
}

// Release frees a slot: to the first waiter, or to the pool.
func (g *WorkGate) Release() {
	g.mu.Lock()
	g.releaseLocked()
	g.mu.Unlock()
}

func (g *WorkGate) releaseLocked() {
	if len(g.waiting) > 0 {
		best := 0
		for i, w := range g.waiting {
			if w.share > g.waiting[best].share {
				best = i
			}
		}
		w := g.waiting[best]
		g.waiting = append(g.waiting[:best], g.waiting[best+1:]...)
		close(w.ch)
		return
	}
	g.free++
}
