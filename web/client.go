package web

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"lockstep/classserve"
	"lockstep/webnet"
)

// Connection timing, after gorilla/websocket's chat example.
const (
	writeWait  = 10 * time.Second  // to write one message
	pongWait   = 60 * time.Second  // to hear a pong (or anything) from the page
	pingPeriod = pongWait * 9 / 10 // how often to ping
	closeGrace = 2 * time.Second   // to hear the page's close frame after ours
	sendQueue  = 16                // outgoing messages a client may lag behind
	inboxQueue = 8                 // incoming messages waiting for the session
	hardLimit  = 1 << 20           // gorilla's own read limit, a backstop
)

// inbound is one message the reader passed on.
type inbound struct {
	data   []byte
	binary bool
	// limited: the message came over the connection's rate limit; the
	// session answers it with an error and does not carry it out.
	limited bool
	// flood: the connection sent Config.MessageBurst messages in a row over
	// its rate limit; the session closes it with code 1008.
	flood bool
}

// client is one websocket connection: one reader goroutine (readPump), one
// writer goroutine (writePump) and the session that owns the lesson run.
// Only the session sends on send, and only the session closes it. The
// writer also shows a following student its class's moves itself
// (follower, classserve/follower.go).
type client struct {
	// What a class move's fast path (Deliver) reads of each student comes
	// first, together: a move of 1,000 students reads 1,000 clients, each
	// line of one a cache miss (perf, issue 34).

	// wmu is held by whoever writes to conn: the writer, or a class feed's
	// goroutine in Deliver. ended (under wmu): the writer has stopped, or
	// sent the close frame, and nothing more may be written.
	wmu   sync.Mutex
	ended bool
	// deflate: conn compresses the messages it sends (wireFrames'
	// deflates), the compression choice whose bytes a class move's fast
	// path writes (Deliver); wire makes them (wireFrames' bytes), nil: the
	// fast path writes through conn.
	deflate bool
	// closing: a close frame was sent, or is being sent, from outside the
	// writer (drop, the reader's answer to a message too big); Deliver
	// then writes through conn, whose gorilla refuses after a close frame.
	closing atomic.Bool
	// queued counts the messages the session queued on send that the
	// writer has not taken (at least len(send): counted before the send,
	// uncounted after the receive), for Deliver, which must not overtake
	// them: len(send) is a read of the channel's own memory, a cache miss
	// per student of a move.
	queued atomic.Int32
	// batch is conn's network connection, through which the writer sends
	// the messages queued together in one write (webnet.BatchConn); nil: one
	// write each.
	batch *webnet.BatchConn
	wire  classserve.WireFunc
	// follower is the session's student membership, nil when none, and
	// followed the time (UnixNano) the writer last sent it something, the
	// session's activity (its idle timeout).
	follower atomic.Pointer[classserve.Follower]
	followed atomic.Int64
	// touched (under wmu) is when (UnixNano) the writer last recorded a
	// send to a follower as the session's activity (touch).
	touched int64

	conn *websocket.Conn
	// local: a loopback peer not behind a proxy, which the hello tells
	// the Redis's address and version (visibleInfo).
	local bool
	// addr is the client's address (Server.clientAddr), host the Host its
	// handshake was sent to (a class's join address, without
	// Config.ClassURLs).
	addr, host string
	// listenPort is the TCP port the connection was accepted on
	// (webnet.ListenPort), 0 when unknown.
	listenPort int
	readLimit  int64
	// limiter bounds the rate of the page's messages (Config.MessageRate);
	// nil means no bound.
	limiter *rate.Limiter
	// fair measures the connection against its fair share of a busy
	// server (Config.FairRate, webnet.WorkGate); nil means always within it.
	fair  *rate.Limiter
	send  chan outgoing
	inbox chan inbound
	gone  chan struct{} // closed when the reader stops
	done  chan struct{} // closed when the session ends
	// stop is closed when the server shuts down (enqueue stops waiting);
	// nil, never.
	stop <-chan struct{}
	// classWake wakes the writer to show follower the newest state of its
	// class's feed.
	classWake chan struct{}

	closeOnce   sync.Once
	closeCode   int
	closeReason string
}

func newClient(conn *websocket.Conn, readLimit int64) *client {
	return &client{
		conn:      conn,
		readLimit: readLimit,
		send:      make(chan outgoing, sendQueue),
		inbox:     make(chan inbound, inboxQueue),
		gone:      make(chan struct{}),
		done:      make(chan struct{}),
		classWake: make(chan struct{}, 1),
	}
}

// outgoing is one message for the writer: JSON text, or a message framed
// once for many connections (a class's shared frame, class_frames.go).
type outgoing struct {
	data     []byte
	prepared *websocket.PreparedMessage
	// then, when not nil, is written right after, in the same write of
	// the connection (a class-status after its class's frame).
	then *websocket.PreparedMessage
}

// enqueue queues a message. When the queue is full it waits, up to
// writeWait, for the writer to make room: a page that sends a burst of
// messages (a held key, a presenter remote) gets their replies faster than
// one goroutine switch per message lets the writer drain them, and is
// reading all the same. Only the session, which owns this client, waits;
// and its reader then stops taking messages, so the page is slowed, not
// anyone else. It returns errSlowClient when the queue stayed full for
// writeWait (the client does not read its messages and must be dropped),
// and errClientEnded when the connection or the server ended meanwhile.
//
// beforeWait, when not nil, is called once before waiting (the session
// gives up its work slot, so that a client that reads slowly holds no one
// else up).
func (c *client) enqueue(msg outgoing, beforeWait func()) error {
	c.queued.Add(1)
	select {
	case c.send <- msg:
		return nil
	default:
	}
	if beforeWait != nil {
		beforeWait()
	}
	wait := time.NewTimer(writeWait)
	defer wait.Stop()
	select {
	case c.send <- msg:
		return nil
	case <-wait.C:
		c.queued.Add(-1)
		return errSlowClient
	case <-c.gone:
	case <-c.stop:
	}
	c.queued.Add(-1)
	return errClientEnded
}

var (
	errSlowClient  = errors.New("web: client too slow; dropped")
	errClientEnded = errors.New("web: connection or server ended")
)

// finish makes the writer send a close frame with code and reason after the
// queued messages and stop. Only the first call counts.
func (c *client) finish(code int, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = code, reason
		close(c.send)
	})
}

// drop closes a client that cannot keep up: nothing more is written to it.
func (c *client) drop(reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = CloseSlow, reason
		close(c.send)
	})
	// Try to say why, without waiting on a full connection.
	c.closing.Store(true)
	_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(CloseSlow, reason), time.Now().Add(time.Second))
	_ = c.conn.Close()
}

// readPump reads the page's messages and hands them to the session. It is
// the connection's only reader. A message over the read limit closes the
// connection with code 1009 and a reason that says so. A message over the
// rate limit is not carried out: the first of a run is passed on marked
// limited (the session answers it with an error), the rest are dropped, and
// Config.MessageBurst of them in a row close the connection with code 1008.
func (c *client) readPump() {
	denied := 0
	defer func() {
		_ = c.conn.Close()
		close(c.gone)
	}()
	c.conn.SetReadLimit(max(hardLimit, c.readLimit+1))
	_ = c.conn.SetReadDeadline(time.Now().Add(pongWait))
	c.conn.SetPongHandler(func(string) error {
		return c.conn.SetReadDeadline(time.Now().Add(pongWait))
	})
	for {
		typ, r, err := c.conn.NextReader()
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, c.readLimit+1))
		if err != nil {
			return
		}
		if int64(len(data)) > c.readLimit {
			reason := tooBigReason(c.readLimit)
			c.closing.Store(true)
			_ = c.conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseMessageTooBig, reason), time.Now().Add(writeWait))
			c.awaitClose()
			return
		}
		select {
		case <-c.done:
			c.awaitClose()
			return
		default:
		}
		_ = c.conn.SetReadDeadline(time.Now().Add(pongWait))
		if c.limiter != nil && !c.limiter.Allow() {
			denied++
			if denied >= c.limiter.Burst() {
				// The session closes the connection after what it queued.
				select {
				case c.inbox <- inbound{flood: true}:
				case <-c.done:
				}
				c.awaitClose()
				return
			}
			if denied == 1 {
				// The first of a run is answered; the rest are dropped
				// unanswered, so a flood cannot fill the send queue.
				select {
				case c.inbox <- inbound{limited: true}:
				case <-c.done:
					c.awaitClose()
					return
				}
			}
			continue
		}
		denied = 0
		select {
		case c.inbox <- inbound{data: data, binary: typ == websocket.BinaryMessage}:
		case <-c.done:
			c.awaitClose()
			return
		}
	}
}

// awaitClose reads and discards until the page answers the close frame or
// closeGrace passes, so the close reason reaches it before the TCP close.
func (c *client) awaitClose() {
	_ = c.conn.SetReadDeadline(time.Now().Add(closeGrace))
	for {
		if _, _, err := c.conn.NextReader(); err != nil {
			return
		}
	}
}

// writePump writes the session's messages and pings. It is the
// connection's only writer (WriteControl, which gorilla allows anywhere,
// aside).
func (c *client) writePump() {
	ticker := time.NewTicker(pingPeriod)
	defer ticker.Stop()
	for {
		var msg outgoing
		var ok, wake, ping bool
		select {
		case msg, ok = <-c.send:
			c.took(ok)
		case <-c.classWake:
			wake = true
		case <-ticker.C:
			ping = true
		}
		c.wmu.Lock()
		goOn := c.flushPending()
		switch {
		case !goOn:
		case wake:
			goOn = c.follow()
		case ping:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				_ = c.conn.Close()
				goOn = false
			}
		default:
			goOn = c.writeQueued(msg, ok)
		}
		c.ended = !goOn
		c.wmu.Unlock()
		if !goOn {
			return
		}
	}
}

// took uncounts a message the writer took from send (ok: not the close of
// the queue) from queued.
func (c *client) took(ok bool) {
	if ok {
		c.queued.Add(-1)
	}
}

// flushPending writes what a Deliver left unwritten (webnet.BatchConn's
// TryFlush), before anything else; it reports whether the writer goes on.
func (c *client) flushPending() bool {
	if c.batch == nil {
		return true
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	if err := c.batch.FlushPending(); err != nil {
		_ = c.conn.Close()
		return false
	}
	return true
}

// Deliver shows the follower the newest state of its class's feed from
// the caller's goroutine (a class feed's, classserve.Deliverer)
// when the writer is idle, nothing is queued and nothing is pending: one
// write that does not wait (webnet.BatchConn's TryFlush). A move of 10,000
// students then wakes no writer goroutine at all, each wake a switch of
// goroutine, a select and often a grown stack (docs/performance.md, the
// Classes section). A student in sync on a move (nearly all of them) gets
// the move's frame and status as bytes made once per move for every
// connection of its compression choice (wireFrames), written as they are
// (webnet.BatchConn's TryWrite). It reports whether it is done; false: the
// caller wakes the writer, which shows the state or writes what is left.
func (c *client) Deliver() bool {
	if c.batch == nil || !c.wmu.TryLock() {
		return false
	}
	defer c.wmu.Unlock()
	if c.ended || c.queued.Load() > 0 || c.batch.Pending() {
		return c.ended
	}
	f := c.follower.Load()
	if f == nil {
		return true
	}
	wire := c.wire
	if c.closing.Load() {
		wire = nil
	}
	b, frame, status := f.NextWire(c.deflate, wire)
	if b == nil && frame == nil && status == nil {
		return true
	}
	now := time.Now() // one read of the clock per student of a move
	c.followed.Store(now.UnixNano())
	c.touch(f, now)
	if b != nil {
		done, err := c.batch.TryWrite(b, now.Add(writeWait))
		if err != nil {
			_ = c.conn.Close()
			c.ended = true
			return true
		}
		return done
	}
	_ = c.conn.SetWriteDeadline(now.Add(writeWait))
	c.batch.Hold()
	var err error
	for _, pm := range [2]*websocket.PreparedMessage{frame, status} {
		if pm != nil && err == nil {
			err = c.conn.WritePreparedMessage(pm)
		}
	}
	done, ferr := c.batch.TryFlush()
	if err != nil || ferr != nil {
		_ = c.conn.Close()
		c.ended = true
		return true
	}
	return done
}

// touchEvery is how often at most the writer records its sends to a
// follower as the session's activity in the server's session table: the
// table keeps a time per session for the sessions it may evict when full
// (Config.IdleGrace, minutes), and a move of 10,000 students touched 10,000
// slots (each a cache miss) where one per second says as much.
const touchEvery = time.Second

// touch records a send to follower f at now as the session's activity
// (classserve.Follower's Touch), at most once per touchEvery. c.wmu is
// held.
func (c *client) touch(f *classserve.Follower, now time.Time) {
	if t := now.UnixNano(); t-c.touched >= int64(touchEvery) {
		c.touched = t
		f.Touch()
	}
}

// follow shows the follower the newest state of its class's feed
// (classserve.Follower's next), after what the session queued before: that may be
// what the page must have first (class-joined, the frame with chrome a
// shared frame without it builds on). It reports whether the writer goes
// on.
func (c *client) follow() bool {
	for {
		select {
		case msg, ok := <-c.send:
			c.took(ok)
			if !c.writeQueued(msg, ok) {
				return false
			}
			continue
		default:
		}
		break
	}
	f := c.follower.Load()
	if f == nil {
		return true
	}
	frame, status := f.Next()
	msg := outgoing{prepared: frame, then: status}
	switch {
	case frame == nil && status == nil:
		return true
	case frame == nil:
		msg = outgoing{prepared: status}
	}
	now := time.Now()
	c.followed.Store(now.UnixNano())
	c.touch(f, now)
	return c.writeQueued(msg, true)
}

// writeQueued writes msg, the first message taken from the queue (ok
// false: the queue was closed), and with it, in one write of the network
// connection (batchConn), the messages queued after it; on a closed queue
// it sends the close frame. It reports whether the writer goes on.
func (c *client) writeQueued(msg outgoing, ok bool) bool {
	held := ok && c.batch != nil && (len(c.send) > 0 || msg.then != nil)
	if held {
		c.batch.Hold()
	}
	for n := 0; ; n++ {
		_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
		if !ok {
			if held && c.batch.Flush() != nil {
				_ = c.conn.Close()
				return false
			}
			_ = c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(c.closeCode, c.closeReason))
			// The reader waits for the page's close frame, then closes.
			_ = c.conn.SetReadDeadline(time.Now().Add(closeGrace))
			return false
		}
		var err error
		if msg.prepared != nil {
			err = c.conn.WritePreparedMessage(msg.prepared)
		} else {
			err = c.conn.WriteMessage(websocket.TextMessage, msg.data)
		}
		if err == nil && msg.then != nil {
			err = c.conn.WritePreparedMessage(msg.then)
		}
		if err != nil {
			_ = c.conn.Close()
			return false
		}
		if !held || n+1 >= sendQueue {
			break
		}
		select {
		case msg, ok = <-c.send:
			c.took(ok)
			continue
		default:
		}
		break
	}
	if held && c.batch.Flush() != nil {
		_ = c.conn.Close()
		return false
	}
	return true
}
