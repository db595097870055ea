package proxy

import (
	"testing"
	"time"
)

// TestPageSubscriberCapped: a page's subscription gets at most
// subscriberBurst events of a burst and counts the rest as dropped, then
// one resync; an in-process subscriber (the scenario runner) gets them all.
func TestPageSubscriberCapped(t *testing.T) {
	r := newRing(100)
	clock := time.Now()
	r.now = func() time.Time { return clock } // no refill during the burst
	const n = subscriberBurst + 1000
	page, all := r.subscribe(n, true), r.subscribe(n, false)
	for range n {
		r.add(Event{Kind: EventPush, At: clock})
	}
	// The first drop is followed by one resync (there is room), the rest
	// wait resyncEvery.
	events, resyncs := 0, 0
	for len(page.C) > 0 {
		if e := <-page.C; e.Kind == EventResync {
			resyncs++
		} else {
			events++
		}
	}
	if events != subscriberBurst || resyncs != 1 || page.Dropped() != n-subscriberBurst {
		t.Errorf("page got %d of %d events (want %d) and %d resyncs (want 1), dropped %d", events, n, subscriberBurst, resyncs, page.Dropped())
	}
	if got := len(all.C); got != n || all.Dropped() != 0 {
		t.Errorf("in-process subscriber got %d of %d, dropped %d", got, n, all.Dropped())
	}
	// A second resync waits resyncEvery.
	page.r.mu.Lock()
	page.lagging, page.tokens = true, 0
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
