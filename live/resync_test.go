package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"lockstep/catalog"
	"lockstep/proxy"
)

// TestSlowBrowserResyncs: a browser whose subscription overflowed gets a
// fresh snapshot holding every event it missed, never a silent gap.
func TestSlowBrowserResyncs(t *testing.T) {
	t.Parallel()
	p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0", Locks: "lock:*"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Proxy: p, Catalog: cat})
	sub := p.Subscribe(1) // one event fits: the rest overflow
	rc := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { rc.Close() })
	ctx := context.Background()
	for i := range 5 {
		if err := rc.Set(ctx, "lock:a", i, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := h.upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		close(started)
		h.write(r.Context(), conn, sub, renderer{cat, "en"}, make(chan outMsg))
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	<-started
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var first outMsg
	if err := ws.ReadJSON(&first); err != nil || first.Type != "snapshot" {
		t.Fatalf("first message %+v, %v", first, err)
	}
	// The next event finds room again: the subscription sends a resync
	// first, and the page gets a new snapshot with everything so far.
	if err := rc.Set(ctx, "lock:a", "last", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	// The page's view after the resync: the new snapshot's SETs, then
	// the events after it; it must reach all six with no gap.
	resynced, sets := false, 0
	for !resynced || sets < 6 {
		var m outMsg
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("after the overflow (resynced %v, %d SETs seen): %v", resynced, sets, err)
		}
		switch {
		case m.Type == "snapshot":
			resynced, sets = true, 0
			for _, e := range m.Snapshot.Events {
				if e.Kind == proxy.EventCommand && e.Command.Name == "SET" {
					sets++
				}
			}
		case resynced && m.Type == "events":
			for _, e := range m.Events {
				if e.Event.Kind == proxy.EventCommand && e.Event.Command.Name == "SET" {
					sets++
				}
			}
		}
	}
	if sets != 6 {
		t.Errorf("%d SETs after the resync, want 6", sets)
	}
}
