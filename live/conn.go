package live

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"lockstep/catalog"
	"lockstep/proxy"
	"lockstep/sim"
)

const (
	readLimit    = 4 << 10          // bytes of one browser message
	pongWait     = 60 * time.Second // a browser that answers no ping for this long is gone
	pingEvery    = 25 * time.Second
	writeWait    = 10 * time.Second // a write that takes longer ends the connection
	subBuffer    = 512              // events queued for a browser before it gets a resync
	answerBuffer = 8                // answers queued for the writer
	msgRate      = 5                // browser messages per second, sustained
	msgBurst     = 10
	frameEvery   = 50 * time.Millisecond // events are sent a frame at a time (20 a second)
	maxBatch     = 256                   // events of one frame message at most
	// gatherEvery is how long the writer leaves events to queue in its
	// subscription after taking one, then takes all that came at once:
	// under a traced command every ~100 µs it wakes at most once a
	// gatherEvery, not once an event (each wake-up of a parked goroutine
	// can wake a thread, on the path of the command that traced it).
	// subBuffer holds what comes meanwhile at 200,000 events a second.
	gatherEvery = 2 * time.Millisecond
)

// serveWS upgrades to the live websocket and runs one connection: the
// writer in this goroutine, the reader in its own.
func (h *Handler) serveWS(w http.ResponseWriter, r *http.Request) {
	loc := h.locale(r)
	select {
	case h.slots <- struct{}{}:
	default:
		conn, err := h.upgrader.Upgrade(w, r, nil)
		if err == nil {
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "too many live pages open (-max-live)"), time.Now().Add(writeWait))
			conn.Close()
		}
		return
	}
	defer func() { <-h.slots }()
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	conn.SetReadLimit(readLimit)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sub := h.cfg.Proxy.Subscribe(subBuffer)
	defer sub.Close()
	answers := make(chan outMsg, answerBuffer)
	r2 := renderer{h.cfg.Catalog, loc}
	go h.read(ctx, cancel, conn, r2, answers)
	h.write(ctx, conn, sub, r2, answers)
}

// renderer renders catalogue messages in one locale.
type renderer struct {
	cat *catalog.Catalog
	loc sim.Locale
}

func (r renderer) Render(m sim.Msg) string { return r.cat.Render(r.loc, m) }

// read is the connection's reader: it decodes each browser message,
// carries it out (one at a time) and queues the answer for the writer.
func (h *Handler) read(ctx context.Context, cancel context.CancelFunc, conn *websocket.Conn, r renderer, answers chan<- outMsg) {
	defer cancel()
	_ = conn.SetReadDeadline(time.Now().Add(pongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongWait)) })
	lim := rate.NewLimiter(msgRate, msgBurst)
	for {
		_, b, err := conn.ReadMessage()
		if err != nil {
			return
		}
		_ = conn.SetReadDeadline(time.Now().Add(pongWait))
		var out outMsg
		m, err := decode(b)
		switch {
		case err != nil:
			out = outMsg{Type: "error", Message: r.Render(sim.M("live.error.not-json", "Err", err.Error()))}
		case !lim.Allow():
			out = outMsg{Type: "error", For: m.Type, Message: r.Render(sim.M("live.error.rate", "Type", m.Type))}
		case m.Type == "older":
			out = h.older(r, m.Before)
		default:
			out = carry(ctx, h.cfg.Proxy, r, m)
		}
		select {
		case answers <- out:
		case <-ctx.Done():
			return
		}
	}
}

// write is the connection's only writer: the snapshot, then the events a
// frame (frameEvery) at a time in one message each, a fresh snapshot at
// each resync, the reader's answers and pings.
func (h *Handler) write(ctx context.Context, conn *websocket.Conn, sub *proxy.Subscription, r renderer, answers <-chan outMsg) {
	send := func(m outMsg) bool {
		b, err := json.Marshal(m)
		if err != nil {
			return false
		}
		_ = conn.SetWriteDeadline(time.Now().Add(writeWait))
		return conn.WriteMessage(websocket.TextMessage, b) == nil
	}
	// seen are the lock keys this page knows about; a new one brings the
	// proxy's suggestions along (once per key).
	seen := map[string]bool{}
	fixed := false
	snapshot := func() bool {
		snap := h.cfg.Proxy.Window()
		fixed = len(snap.LockGlobs) > 0
		for k := range snap.Suggested {
			seen[k] = true
		}
		for _, l := range snap.Redis.Locks {
			seen[l.Key] = true
		}
		texts := make([]string, len(snap.Findings))
		for i, f := range snap.Findings {
			texts[i] = r.Render(f.Message)
		}
		return send(outMsg{Type: "snapshot", Snapshot: &snap, Texts: texts, Lanes: Lanes(snap)})
	}
	if !snapshot() {
		return
	}
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	// Events go out a frame at a time: those that came within frameEvery
	// of the first, in one message (one write, one browser redraw).
	var batch []outMsg
	var frame <-chan time.Time
	// in is sub.C, or nil while the writer lets events gather (until
	// gathered fires).
	in := sub.C
	gather := time.NewTimer(time.Hour)
	gather.Stop()
	defer gather.Stop()
	var gathered <-chan time.Time
	skipped := sub.Skipped()
	flush := func() bool {
		frame = nil
		if len(batch) == 0 {
			return true
		}
		now := sub.Skipped()
		m := outMsg{Type: "events", Events: batch, Skipped: now - skipped}
		skipped = now
		ok := send(m)
		batch = batch[:0]
		return ok
	}
	// take adds e to the frame (a resync: sends a snapshot in its place);
	// false when the connection failed.
	take := func(e proxy.Event) bool {
		if e.Kind == proxy.EventResync {
			batch, frame = batch[:0], nil // the snapshot holds them
			return snapshot()
		}
		m := eventMsg(r, e)
		if e.Lock != nil && !fixed && !seen[e.Lock.Key] {
			seen[e.Lock.Key] = true
			m.Suggested, m.Chosen = h.cfg.Proxy.Suggested()
		}
		batch = append(batch, m)
		switch {
		case len(batch) >= maxBatch:
			return flush()
		case frame == nil:
			frame = time.After(frameEvery)
		}
		return true
	}
	for {
		select {
		case <-ctx.Done():
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return
		case e, ok := <-in:
			if !ok {
				return
			}
			// This event and those queued behind it (a frame's worth
			// at most); then the subscription is left to gather for
			// gatherEvery.
			for n, more := 0, true; more; n++ {
				if !take(e) {
					return
				}
				if n == maxBatch {
					break
				}
				select {
				case e, ok = <-in:
					if !ok {
						return
					}
				default:
					more = false
				}
			}
			in = nil
			gather.Reset(gatherEvery)
			gathered = gather.C
		case <-gathered:
			in, gathered = sub.C, nil
		case <-frame:
			if !flush() {
				return
			}
		case a := <-answers:
			if !send(a) {
				return
			}
		case <-ping.C:
			if conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)) != nil {
				return
			}
		}
	}
}

// eventMsg is e as the page is sent it: a finding's text in the page's
// language, the lock library of a known script.
func eventMsg(r renderer, e proxy.Event) outMsg {
	m := outMsg{Type: "event", Event: &e}
	if e.Finding != nil {
		m.Text = r.Render(e.Finding.Message)
	}
	if e.Command != nil {
		m.Library = KnownScript(e.Command.Script)
	}
	return m
}

// older answers a page scrolled back past its window: the events just
// before Seq before (proxy.Proxy.EventsBefore, a window's worth at most)
// and the oldest Seq the proxy still holds.
func (h *Handler) older(r renderer, before uint64) outMsg {
	if before == 0 {
		return outMsg{Type: "error", For: "older", Message: r.Render(sim.M("live.error.missing", "Type", "older", "Field", "before"))}
	}
	events, first := h.cfg.Proxy.EventsBefore(before, proxy.WindowEvents)
	out := outMsg{Type: "older", For: "older", First: first, Events: make([]outMsg, 0, len(events))}
	for _, e := range events {
		out.Events = append(out.Events, eventMsg(r, e))
	}
	return out
}
