package live_test

import (
	"context"
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

// msg is a server message as the page reads it.
type msg struct {
	Type     string          `json:"type"`
	For      string          `json:"for"`
	Message  string          `json:"message"`
	Snapshot *proxy.Snapshot `json:"snapshot"`
	Texts    []string        `json:"texts"`
	Event    *proxy.Event    `json:"event"`
	Text     string          `json:"text"`
	Saved    *proxy.Saved    `json:"saved"`
	// Suggested comes with a lock key new to the page.
	Suggested map[string]string `json:"suggested"`
	// Events are a frame's event messages (type "events").
	Events []msg `json:"events"`
}

// liveServer starts a proxy on the embedded Redis and the live page in
// front of it; it returns the proxy and the page's websocket URL.
func liveServer(t *testing.T) (*proxy.Proxy, string) {
	t.Helper()
	p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0"})
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
	return p, "ws" + strings.TrimPrefix(srv.URL, "http") + "/live/ws"
}

// page is a live page's websocket as the page reads it: a frame's
// "events" message is taken one event at a time.
type page struct {
	*websocket.Conn
	queue []msg
}

func dial(t *testing.T, url string) *page {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &page{Conn: c}
}

// next reads messages until one satisfies want (10 s at most); the events
// of a frame message are read in their order, each as an "event" message.
func next(t *testing.T, c *page, what string, want func(msg) bool) msg {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if len(c.queue) == 0 {
			var m msg
			if err := c.ReadJSON(&m); err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if m.Type != "events" {
				c.queue = append(c.queue, m)
			} else if len(m.Events) == 0 {
				t.Fatalf("waiting for %s: a frame message with no events", what)
			} else {
				c.queue = append(c.queue, m.Events...)
			}
		}
		m := c.queue[0]
		c.queue = c.queue[1:]
		if want(m) {
			return m
		}
	}
}

func redisClient(t *testing.T, p *proxy.Proxy, name string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ClientName: name, PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestWebsocketProtocol: a snapshot first, then lanes, lock states and a
// finding as events while two go-redis clients take a lock through the
// proxy; a pause from the page is carried out, bad messages are refused
// naming the message; save answers with the files.
func TestWebsocketProtocol(t *testing.T) {
	t.Parallel()
	p, url := liveServer(t)
	ws := dial(t, url)
	first := next(t, ws, "snapshot", func(m msg) bool { return true })
	if first.Type != "snapshot" || first.Snapshot == nil || first.Snapshot.Listen != p.Addr() {
		t.Fatalf("first message = %+v, want the snapshot", first)
	}
	ctx := context.Background()
	a := redisClient(t, p, "worker-a")
	if ok, err := a.SetNX(ctx, "lock:order", "token-a", 300*time.Millisecond).Result(); err != nil || !ok {
		t.Fatalf("worker-a SET NX = %v %v", ok, err)
	}
	lane := next(t, ws, "worker-a's lane", func(m msg) bool {
		return m.Type == "event" && m.Event.Client != nil && m.Event.Client.Name == "worker-a"
	}).Event.Client.Lane
	acquire := next(t, ws, "worker-a's SET on its lane", func(m msg) bool {
		return m.Type == "event" && m.Event.Kind == proxy.EventCommand && m.Event.Lane == lane && m.Event.Command.Name == "SET"
	})
	if acquire.Event.Command.Reply != "OK" || acquire.Event.Command.Raw != "+OK\r\n" {
		t.Errorf("SET's reply = %q raw %q", acquire.Event.Command.Reply, acquire.Event.Command.Raw)
	}
	st := next(t, ws, "lock:order's state", func(m msg) bool {
		return m.Type == "event" && m.Event.Kind == proxy.EventLock && m.Event.Lock.Key == "lock:order"
	}).Event.Lock
	if st.Value != "token-a" || st.PTTL <= 0 || st.PTTL > 300 {
		t.Errorf("lock state = %+v", st)
	}

	// Faults from the page: a pause is carried out and drawn on the lane;
	// bad messages are refused, naming the message.
	send := func(v any) {
		if err := ws.WriteJSON(v); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"type": "pause", "client": lane, "ms": 50})
	// The answer and the fault's event come in either order.
	done, drawn := false, false
	next(t, ws, "pause done and drawn on the lane", func(m msg) bool {
		done = done || m.Type == "done" && m.For == "pause"
		drawn = drawn || m.Type == "event" && m.Event.Kind == proxy.EventFault && m.Event.Fault.Kind == proxy.FaultPause && m.Event.Fault.Lane == lane
		return done && drawn
	})
	for _, bad := range []map[string]any{
		{"type": "pause", "client": "nobody", "ms": 50},
		{"type": "pause", "client": lane, "ms": 0},
		{"type": "expire"},
		{"type": "locks", "keys": []string{"never:written"}},
		{"type": "teleport"},
	} {
		send(bad)
		m := next(t, ws, "refusal", func(m msg) bool { return m.Type == "error" })
		if m.For != bad["type"] || !strings.Contains(m.Message, "websocket message "+bad["type"].(string)) {
			t.Errorf("%v answered %+v", bad, m)
		}
	}

	// worker-a's lease runs out unreleased; worker-b acquires: overlap.
	time.Sleep(400 * time.Millisecond)
	b := redisClient(t, p, "worker-b")
	if ok, err := b.SetNX(ctx, "lock:order", "token-b", 10*time.Second).Result(); err != nil || !ok {
		t.Fatalf("worker-b SET NX = %v %v", ok, err)
	}
	f := next(t, ws, "the overlap finding", func(m msg) bool {
		return m.Type == "event" && m.Event.Kind == proxy.EventFinding && m.Event.Finding.Code == proxy.FindingOverlap
	})
	if f.Text == "" || len(f.Event.Finding.Events) == 0 || f.Event.Finding.Key != "lock:order" {
		t.Errorf("overlap finding = %+v text %q", f.Event.Finding, f.Text)
	}

	send(map[string]any{"type": "save", "id": "my-app"})
	saved := next(t, ws, "saved", func(m msg) bool { return m.Type == "saved" || m.Type == "error" })
	if saved.Type != "saved" || saved.Saved.LessonFile != "my-app.yaml" || len(saved.Saved.Lesson) == 0 || len(saved.Saved.Variant) == 0 {
		t.Fatalf("save answered %+v", saved)
	}

	// A second page gets the whole picture in its snapshot, findings
	// rendered.
	snap := next(t, dial(t, url), "snapshot", func(m msg) bool { return m.Type == "snapshot" })
	names := map[string]bool{}
	for _, l := range snap.Snapshot.Lanes {
		names[l.Name] = true
	}
	if !names["worker-a"] || !names["worker-b"] {
		t.Errorf("lanes %+v", snap.Snapshot.Lanes)
	}
	if len(snap.Texts) != len(snap.Snapshot.Findings) || len(snap.Texts) == 0 || snap.Texts[0] == "" {
		t.Errorf("finding texts %q for %d findings", snap.Texts, len(snap.Snapshot.Findings))
	}
	if r := snap.Snapshot.Suggested["lock:order"]; r != "set-nx" {
		t.Errorf("suggested = %v", snap.Snapshot.Suggested)
	}
}
