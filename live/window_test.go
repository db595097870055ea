package live_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"lockstep/catalog"
	"lockstep/live"
	"lockstep/proxy"
)

// TestPageWindowBounded: a page that opens on a full trace is sent the
// newest events only, in a message whose size does not grow with what
// the ring holds (here 1,000 events of 2 KiB script bodies, about 2.4 MB
// as a whole snapshot), with the lock key's state and the ring's oldest
// Seq; asking for older events page by page, as the page does when
// scrolled up, reaches the oldest event the proxy holds, with no gap.
func TestPageWindowBounded(t *testing.T) {
	t.Parallel()
	const ringSize = 1000
	p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0", Locks: "lock:*", TraceSize: ringSize, SlowScript: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(live.New(live.Config{Proxy: p, Catalog: cat}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	// A pipeline of 1,200 scripts under -race on a loaded machine can take
	// longer than go-redis's 3 s read timeout (it failed so before this
	// branch's changes too): the test waits for the replies, it times nothing.
	rc := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1, ReadTimeout: time.Minute})
	t.Cleanup(func() { rc.Close() })
	if err := rc.Set(ctx, "lock:a", "owner-1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	// Scripts are always traced, their bodies kept: the largest events a
	// client makes without touching a lock key.
	body := "return 1 -- " + strings.Repeat("x", 2048)
	pipe := rc.Pipeline()
	for range ringSize + 200 {
		pipe.Eval(ctx, body, nil)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	whole, err := json.Marshal(p.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/live/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, b, err := ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	// The window's events are about WindowBytes; lanes, lock states and
	// findings are small here.
	if limit := proxy.WindowBytes + 32<<10; len(b) > limit {
		t.Errorf("the page's snapshot is %d bytes (the whole trace's %d), want at most %d", len(b), len(whole), limit)
	}
	var first msg
	if err := json.Unmarshal(b, &first); err != nil || first.Type != "snapshot" {
		t.Fatalf("first message %.200s: %v", b, err)
	}
	s := first.Snapshot
	if len(s.Redis.Locks) != 1 || s.Redis.Locks[0].Value != "owner-1" {
		t.Errorf("the snapshot's lock states %+v, want lock:a held by owner-1", s.Redis.Locks)
	}
	if len(s.Events) == 0 || s.Events[len(s.Events)-1].Seq < s.First+ringSize-1 || s.Events[0].Seq <= s.First {
		t.Fatalf("window of %d events from %d, ring from %d: want the newest events, not all %d", len(s.Events), s.Events[0].Seq, s.First, ringSize)
	}
	// Scroll back: each answer ends just before the oldest event the page
	// has, until the ring's oldest.
	oldest, pages := s.Events[0].Seq, 0
	for oldest > s.First {
		if err := ws.WriteJSON(map[string]any{"type": "older", "before": oldest}); err != nil {
			t.Fatal(err)
		}
		var m msg
		for m.Type != "older" && m.Type != "error" {
			if err := ws.ReadJSON(&m); err != nil {
				t.Fatal(err)
			}
		}
		if m.Type == "error" || len(m.Events) == 0 {
			t.Fatalf("older than %d answered %+v", oldest, m)
		}
		for i, e := range m.Events {
			if want := oldest - uint64(len(m.Events)-i); e.Event.Seq != want {
				t.Fatalf("older than %d: event %d is %d, want %d (no gap)", oldest, i, e.Event.Seq, want)
			}
		}
		oldest = m.Events[0].Event.Seq
		pages++
	}
	if oldest != s.First || pages < 2 {
		t.Errorf("scrolled back to %d in %d pages, want the ring's oldest %d in more than one", oldest, pages, s.First)
	}
}
