package proxy

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestPageSubscriberCapped: a page's subscription gets at most
// subscriberBurst plain events of a burst and counts the rest as skipped,
// with no resync (the page's model needs none of them); an in-process
// subscriber (the scenario runner) gets them all.
func TestPageSubscriberCapped(t *testing.T) {
	r := newRing(100, 0)
	clock := time.Now()
	r.now = func() time.Time { return clock } // no refill during the burst
	const n = subscriberBurst + 1000
	page, all := r.subscribe(n, true), r.subscribe(n, false)
	for range n {
		r.add(Event{Kind: EventPush, At: clock})
	}
	events, resyncs := 0, 0
	for len(page.C) > 0 {
		if e := <-page.C; e.Kind == EventResync {
			resyncs++
		} else {
			events++
		}
	}
	if events != subscriberBurst || resyncs != 0 || page.Skipped() != n-subscriberBurst || page.Dropped() != 0 {
		t.Errorf("page got %d of %d plain events (want %d) and %d resyncs (want 0), skipped %d, dropped %d",
			events, n, subscriberBurst, resyncs, page.Skipped(), page.Dropped())
	}
	if got := len(all.C); got != n || all.Dropped() != 0 || all.Skipped() != 0 {
		t.Errorf("in-process subscriber got %d of %d, dropped %d, skipped %d", got, n, all.Dropped(), all.Skipped())
	}
	// Beyond the rate a lock state still goes out.
	r.add(Event{Kind: EventLock, At: clock, Lock: &LockState{Key: "lock:a"}})
	if e := <-page.C; e.Kind != EventLock {
		t.Errorf("a lock state beyond the rate: got %v", e.Kind)
	}
}

// TestPageSubscriberResyncs: an event that finds the page's channel full
// is dropped and owed a resync, sent once there is room, then at most one
// every resyncEvery.
func TestPageSubscriberResyncs(t *testing.T) {
	r := newRing(100, 0)
	clock := time.Now()
	r.now = func() time.Time { return clock }
	page := r.subscribe(1, true)
	for range 3 {
		r.add(Event{Kind: EventLock, At: clock, Lock: &LockState{Key: "lock:a"}})
	}
	if e := <-page.C; e.Kind != EventLock || page.Dropped() != 2 {
		t.Fatalf("got %v, dropped %d (want a lock state, 2)", e.Kind, page.Dropped())
	}
	r.retryResyncs(clock)
	if e := <-page.C; e.Kind != EventResync {
		t.Fatalf("after the room came back: %v, want a resync", e.Kind)
	}
	// A second resync waits resyncEvery.
	page.r.mu.Lock()
	page.lagging = true
	page.r.mu.Unlock()
	r.retryResyncs(clock)
	if len(page.C) != 0 {
		t.Errorf("a second resync within %s", resyncEvery)
	}
	r.retryResyncs(clock.Add(resyncEvery))
	if len(page.C) != 1 {
		t.Errorf("no resync after %s", resyncEvery)
	}
}

// TestPlainBudgetRefills: the plain commands' trace budget is spent, then
// refilled whole on a tick of its injected rate source, never by a timer.
func TestPlainBudgetRefills(t *testing.T) {
	r := newRing(100, 2)
	tick := make(chan time.Time) // unbuffered: a second send returns only once the first refill is stored
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.runPlainRefills(ctx, plainRate{budget: 2, tick: tick})
	var got []bool
	for range 3 {
		got = append(got, r.takePlain())
	}
	tick <- time.Time{}
	tick <- time.Time{}
	for range 3 {
		got = append(got, r.takePlain())
	}
	want := []bool{true, true, false, true, true, false}
	if !slices.Equal(got, want) || r.untraced.Load() != 2 {
		t.Errorf("takePlain gave %v with %d untraced, want %v and 2", got, r.untraced.Load(), want)
	}
}
