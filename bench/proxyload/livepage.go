package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/gorilla/websocket"

	"lockstep/catalog"
	"lockstep/live"
	"lockstep/proxy"
)

// livePage is the live page open in a browser: the real handler (package
// live) on a loopback HTTP server and one websocket client reading every
// message it sends, as the page's script would.
type livePage struct {
	srv       *httptest.Server
	ws        *websocket.Conn
	messages  atomic.Int64
	snapshots atomic.Int64
	bytes     atomic.Int64
	done      chan struct{}
}

// openLivePage serves p's live page and attaches a websocket subscriber.
func openLivePage(ctx context.Context, p *proxy.Proxy) (*livePage, error) {
	cat, err := catalog.New()
	if err != nil {
		return nil, err
	}
	lp := &livePage{srv: httptest.NewServer(live.New(live.Config{Proxy: p, Catalog: cat})), done: make(chan struct{})}
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(lp.srv.URL, "http")+"/live/ws", nil)
	if err != nil {
		lp.srv.Close()
		return nil, fmt.Errorf("live page websocket: %w", err)
	}
	lp.ws = ws
	go func() {
		defer close(lp.done)
		for {
			_, r, err := ws.NextReader()
			if err != nil {
				return
			}
			var head [18]byte
			n, _ := io.ReadFull(r, head[:])
			rest, _ := io.Copy(io.Discard, r)
			lp.messages.Add(1)
			lp.bytes.Add(int64(n) + rest)
			if string(head[:n]) == `{"type":"snapshot"` {
				lp.snapshots.Add(1)
			}
		}
	}()
	return lp, nil
}

// stats says what the page received so far.
func (lp *livePage) stats() string {
	return fmt.Sprintf("live page got %d messages (%d snapshots), %.1f MiB", lp.messages.Load(), lp.snapshots.Load(), float64(lp.bytes.Load())/(1<<20))
}

func (lp *livePage) close() {
	lp.ws.Close()
	<-lp.done
	lp.srv.Close()
}
