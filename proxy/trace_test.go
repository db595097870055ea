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
	const n = subscriberBurst + 1000
	start := time.Now()
	page, all := r.subscribe(n, true), r.subscribe(n, false)
	for range n {
		r.add(Event{Kind: EventPush, At: start})
	}
	took := time.Since(start)
	// The bucket refills at subscriberRate while the loop runs; the
	// first drop is followed by one resync (there is room), the rest
	// wait resyncEvery.
	limit := subscriberBurst + int(took.Seconds()*subscriberRate) + 2
	events, resyncs := 0, 0
	for len(page.C) > 0 {
		if e := <-page.C; e.Kind == EventResync {
			resyncs++
		} else {
			events++
		}
	}
	if events > limit || resyncs != 1 || page.Dropped() == 0 {
		t.Errorf("page got %d of %d events (at most %d) and %d resyncs (want 1), dropped %d", events, n, limit, resyncs, page.Dropped())
	}
	if got := len(all.C); got != n || all.Dropped() != 0 {
		t.Errorf("in-process subscriber got %d of %d, dropped %d", got, n, all.Dropped())
	}
	// A second resync waits resyncEvery.
	page.r.mu.Lock()
	page.lagging, page.tokens = true, 0
	page.r.mu.Unlock()
	r.retryResyncs(time.Now())
	if len(page.C) != 0 {
		t.Errorf("a second resync within %s", resyncEvery)
	}
	r.retryResyncs(time.Now().Add(resyncEvery))
	if len(page.C) != 1 {
		t.Errorf("no resync after %s", resyncEvery)
	}
}
