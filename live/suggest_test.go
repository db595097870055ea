package live_test

import (
	"testing"
	"time"
)

// TestSuggestionsGrow: without -locks, the first lock state of a key the
// page has not seen brings the proxy's suggestions along, so the list of
// keys to tick grows as the application runs; a key already known brings
// none.
func TestSuggestionsGrow(t *testing.T) {
	t.Parallel()
	p, url := liveServer(t)
	ws := dial(t, url)
	first := next(t, ws, "snapshot", func(m msg) bool { return m.Type == "snapshot" })
	if len(first.Snapshot.Suggested) != 0 {
		t.Fatalf("suggestions before any command: %v", first.Snapshot.Suggested)
	}
	c := redisClient(t, p, "app")
	if err := c.SetNX(t.Context(), "job:1", "t", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	m := next(t, ws, "job:1's state with the suggestions", func(m msg) bool {
		return m.Type == "event" && m.Event.Lock != nil && m.Event.Lock.Key == "job:1"
	})
	if m.Suggested["job:1"] != "set-nx" {
		t.Errorf("job:1's first state came with suggestions %v, want job:1 (set-nx)", m.Suggested)
	}
	if err := c.Del(t.Context(), "job:1").Err(); err != nil {
		t.Fatal(err)
	}
	m = next(t, ws, "job:1's next state", func(m msg) bool {
		return m.Type == "event" && m.Event.Lock != nil && m.Event.Lock.Key == "job:1"
	})
	if m.Suggested != nil {
		t.Errorf("a known key's state came with suggestions %v", m.Suggested)
	}
}
