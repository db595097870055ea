package classserve

import (
	"sync/atomic"
	"testing"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/sim"
)

// TestFeedShowsTheNewestQueuedState: a state is whole, so of the states
// queued on the bus behind the one a feed is showing (a burst of joins
// publishes one each) the feed shows its students only the newest: one
// delivery per student, not one per state.
func TestFeedShowsTheNewestQueuedState(t *testing.T) {
	t.Parallel()
	bus := classbus.NewMemory(time.Now)
	host := &drawsHost{lesson: &sim.Lesson{ID: "l"}, drawn: map[[2]int]int{}}
	hub := New(t.Context(), Config{Host: host, Bus: bus, DrawTimeout: time.Minute})
	st := classroom.State{V: classroom.StateVersion, Code: "2C37F9", Seq: 1, Shown: classroom.Shown{Lesson: "l", Total: 1000}}
	if err := bus.SetState(t.Context(), "2C37F9", st.Encode(), time.Minute); err != nil {
		t.Fatal(err)
	}
	var delivered atomic.Int32
	f := &Follower{srv: hub, code: "2C37F9", wake: make(chan struct{}, 1), session: make(chan struct{}, 1),
		shown: sharedShown{step: -1}, deliver: DeliverFunc(func() bool { delivered.Add(1); return true })}
	if _, err := hub.joinFeed("2C37F9", f); err != nil {
		t.Fatal(err)
	}
	publish := func(seq int64) {
		st.Seq = seq
		if err := bus.Publish(t.Context(), "2C37F9", classroom.StateMessage(classroom.KindStep, st).Encode()); err != nil {
			t.Fatal(err)
		}
	}
	release, _, _ := hub.StallFeed("2C37F9")
	publish(2) // the feed's reader takes it and waits for release
	time.Sleep(20 * time.Millisecond)
	for seq := int64(3); seq <= 5; seq++ {
		publish(seq)
	}
	time.Sleep(50 * time.Millisecond) // the reader is waiting on the first
	release()
	deadline := time.Now().Add(10 * time.Second)
	for f.feed.state().Seq != 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := f.feed.state().Seq; got != 5 {
		t.Fatalf("the feed shows Seq %d, want 5", got)
	}
	// Shown one by one, the four states were four deliveries.
	if n := delivered.Load(); n > 2 {
		t.Fatalf("%d deliveries for one state and three queued behind it, want at most 2 (it, and the newest of those queued)", n)
	}
}
