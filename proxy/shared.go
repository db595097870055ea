package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"time"
)

// A client connection starts on a shared upstream connection and keeps
// to it while it sends only commands that leave no state on the
// connection (sharable): its commands and every other such client's go
// upstream pipelined together, one write and one read for many clients,
// and Redis answers them in order, so each client's replies come back in
// its own order. The first command that would leave state on the
// connection or wait there (HELLO, AUTH, SELECT, CLIENT ..., MULTI,
// WATCH, SUBSCRIBE, a blocking command, anything not listed) moves the
// client to its own upstream connection for good, once the replies to
// what it sent before have come back (leaveShared): from then on it is
// served as a per-client upstream always was.

// sharable are the commands that may run on a shared upstream connection:
// their effect and reply depend on no connection state (the connections
// are RESP2, database and user as -redis gives them) and none waits.
var sharable = map[string]bool{
	"GET": true, "SET": true, "SETNX": true, "SETEX": true, "PSETEX": true, "GETSET": true, "GETDEL": true, "GETEX": true,
	"MGET": true, "MSET": true, "MSETNX": true, "DEL": true, "UNLINK": true, "EXISTS": true, "TOUCH": true, "TYPE": true,
	"EXPIRE": true, "PEXPIRE": true, "EXPIREAT": true, "PEXPIREAT": true, "PERSIST": true, "TTL": true, "PTTL": true,
	"EXPIRETIME": true, "PEXPIRETIME": true, "INCR": true, "INCRBY": true, "DECR": true, "DECRBY": true, "INCRBYFLOAT": true,
	"APPEND": true, "STRLEN": true, "GETRANGE": true, "SETRANGE": true,
	"HSET": true, "HSETNX": true, "HGET": true, "HMGET": true, "HMSET": true, "HDEL": true, "HEXISTS": true, "HGETALL": true,
	"HINCRBY": true, "HINCRBYFLOAT": true, "HLEN": true, "HKEYS": true, "HVALS": true,
	"LPUSH": true, "RPUSH": true, "LPOP": true, "RPOP": true, "LLEN": true, "LRANGE": true, "LINDEX": true, "LREM": true,
	"LSET": true, "LTRIM": true, "SADD": true, "SREM": true, "SMEMBERS": true, "SISMEMBER": true, "SCARD": true,
	"ZADD": true, "ZREM": true, "ZSCORE": true, "ZRANGE": true, "ZCARD": true, "ZINCRBY": true,
	"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true, "FCALL": true, "FCALL_RO": true,
	"SCRIPT LOAD": true, "PING": true, "ECHO": true,
	"CLUSTER": true, // sent as a script that answers an error (clusterRefusal)
}

// sharedUpstreams is how many shared upstream connections the proxy keeps:
// a client is given one by its id, for its whole time on one.
const sharedUpstreams = 2

// maxInboxBytes bounds the replies a client on a shared upstream has not
// yet been written (it is paused, delayed, or does not read): beyond it the
// connection is closed, as Redis closes a client past its output buffer
// limit; the shared connection is never held for one client.
const maxInboxBytes = 64 << 20

var errInboxFull = fmt.Errorf("proxy: a client's unwritten replies passed %d MiB (it was paused, delayed or read none), so its connection was closed", maxInboxBytes>>20)

// sharedUp is one shared upstream connection: a writer goroutine sends
// what the clients gathered in one write, a reader goroutine hands each
// reply to the client whose command is the oldest unanswered (fifo).
type sharedUp struct {
	conn     net.Conn
	r        *bufio.Reader
	maxReply int // the bound of one reply (Proxy.maxReply)

	mu      sync.Mutex
	buf     []byte     // commands gathered for the next write
	fifo    []*session // the client of each command written or gathered, oldest at head
	head    int
	dead    bool
	members map[*session]struct{} // the clients on it
	wake    chan struct{}         // the writer has work (capacity 1)
	// writing: a sender or the writer goroutine is writing; what others
	// gather meanwhile goes out in its next write.
	writing bool
	spare   []byte // the buffer the last write emptied
}

// combineRounds is how many writes a client's sender makes for everyone
// before it hands the rest to the writer goroutine.
const combineRounds = 4

// shared returns the shared upstream connection for a client (id), dialled
// on first use and again after it failed.
func (p *Proxy) shared(id int64) (*sharedUp, error) {
	p.sharedMu.Lock()
	defer p.sharedMu.Unlock()
	i := int(id % sharedUpstreams)
	if u := p.sharedConns[i]; u != nil && !u.isDead() {
		return u, nil
	}
	if p.ctx.Err() != nil {
		return nil, errUpstreamClosed
	}
	p.miniMu.Lock() // not while the embedded upstream restarts
	c, r, err := p.dialUpstream(p.ctx)
	p.miniMu.Unlock()
	if err != nil {
		return nil, err
	}
	u := &sharedUp{conn: c, r: r, members: map[*session]struct{}{}, wake: make(chan struct{}, 1), maxReply: p.maxReply()}
	p.sharedConns[i] = u
	p.wg.Add(2)
	go func() { defer p.wg.Done(); u.writeLoop() }()
	go func() { defer p.wg.Done(); u.readLoop() }()
	return u, nil
}

// closeShared closes the shared upstream connections (Close, and
// RestartUpstream: a client that joins after it gets a new one); their
// readers close the clients on them.
func (p *Proxy) closeShared() {
	p.sharedMu.Lock()
	defer p.sharedMu.Unlock()
	for _, u := range p.sharedConns {
		if u != nil {
			u.mu.Lock()
			u.dead = true
			u.mu.Unlock()
			u.conn.Close()
		}
	}
}

func (u *sharedUp) isDead() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.dead
}

// join adds s as a client of u; false when u has failed.
func (u *sharedUp) join(s *session) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.dead {
		return false
	}
	u.members[s] = struct{}{}
	return true
}

// leave removes s (it moved to its own upstream or closed).
func (u *sharedUp) leave(s *session) {
	u.mu.Lock()
	delete(u.members, s)
	u.mu.Unlock()
}

// send gathers n commands of s (their RESP bytes) and, when no write is
// under way, writes them itself with whatever other clients gather
// meanwhile (a few rounds, then the writer goroutine takes over): one
// client alone pays no hand-over, many share each write. False when u
// has failed.
func (u *sharedUp) send(s *session, b []byte, n int) bool {
	u.mu.Lock()
	if u.dead {
		u.mu.Unlock()
		return false
	}
	// Commands of others in flight: other clients are active and likely
	// to send theirs in a moment (their reply goroutines or readers are
	// runnable now).
	busy := u.head < len(u.fifo)
	u.buf = append(u.buf, b...)
	for range n {
		u.fifo = append(u.fifo, s)
	}
	s.outstanding.Add(int64(n))
	if u.writing {
		u.mu.Unlock()
		return true
	}
	u.writing = true
	if busy {
		// Let the clients whose pipelines came in the same poll add
		// theirs first (writing is set: they only gather): one write
		// upstream for many clients, not one each. Under
		// redis-benchmark -P 16 -c 50 this took the upstream writes from
		// 0.78 a client pipeline to 0.14 (BenchmarkForward).
		u.mu.Unlock()
		runtime.Gosched()
		u.mu.Lock()
	}
	u.drain(combineRounds) // unlocks
	return true
}

// drain writes what is gathered until nothing is, at most rounds writes,
// then leaves the rest to the writer goroutine; called with mu held and
// writing set, it returns with mu released.
func (u *sharedUp) drain(rounds int) {
	for i := 0; ; i++ {
		if u.dead || len(u.buf) == 0 {
			u.writing = false
			u.mu.Unlock()
			return
		}
		if i == rounds {
			select { // under mu: the reader closes wake under it
			case u.wake <- struct{}{}:
			default:
			}
			u.mu.Unlock()
			return
		}
		out := u.buf
		u.buf = u.spare[:0]
		u.spare = nil
		u.mu.Unlock()
		_, err := u.conn.Write(out)
		if cap(out) > 4*maxWriteBatch {
			out = nil
		}
		u.mu.Lock()
		u.spare = out
		if err != nil {
			u.dead = true
			u.conn.Close() // the reader ends its clients
		}
	}
}

// writeLoop takes over from a sender that wrote its rounds (drain).
func (u *sharedUp) writeLoop() {
	for range u.wake {
		u.mu.Lock()
		u.drain(1 << 30)
	}
}

// readLoop hands each reply to its client; when the connection fails it
// closes every client on it, as a client's own upstream closing would.
func (u *sharedUp) readLoop() {
	var raw []byte
	var err error
	// touched are the clients handed replies since the last wake-up:
	// each is woken once, when the read side has no more buffered
	// replies (or after handBatch of them), so a pipeline's replies go to
	// its client in one write and its reply goroutine wakes once for
	// them, not once a reply.
	var touched []*session
	handed := 0
	var at time.Time // when this read batch's replies came
	wakeTouched := func() {
		for i, s := range touched {
			s.inboxTouched = false
			s.passInline()
			touched[i] = nil
		}
		touched, handed = touched[:0], 0
	}
	defer wakeTouched()
	for {
		if len(touched) > 0 && (u.r.Buffered() == 0 || handed >= handBatch) {
			wakeTouched()
		}
		var v Value
		raw, v, err = readUpstreamReply(u.r, raw[:0], u.maxReply)
		if err != nil {
			break
		}
		if handed == 0 {
			// The replies of one read batch came back together: one
			// clock reading stands for all of them.
			at = time.Now()
		}
		u.mu.Lock()
		if u.head == len(u.fifo) {
			u.mu.Unlock()
			err = fmt.Errorf("%w: a reply that answers no command", errReply)
			break
		}
		s := u.fifo[u.head]
		u.fifo[u.head] = nil
		u.head++
		if u.head == len(u.fifo) {
			u.fifo, u.head = u.fifo[:0], 0
		} else if u.head > 1024 && u.head > len(u.fifo)/2 {
			u.fifo, u.head = append(u.fifo[:0], u.fifo[u.head:]...), 0
		}
		u.mu.Unlock()
		s.deliver(raw, v, at)
		handed++
		if !s.inboxTouched {
			s.inboxTouched = true
			touched = append(touched, s)
		}
		if cap(raw) > maxWriteBatch {
			raw = nil
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = errUpstreamClosed
	}
	u.conn.Close()
	u.mu.Lock()
	u.dead = true
	members := make([]*session, 0, len(u.members))
	for s := range u.members {
		members = append(members, s)
	}
	close(u.wake)
	u.mu.Unlock()
	for _, s := range members {
		s.inbox.fail(err)
	}
}

// inbox is what the shared reader handed a client and its reply loop has
// not yet taken: the replies' bytes one after the other, each reply's end
// and value, and whether the client moved to its own upstream after them
// or the shared connection failed.
type inbox struct {
	mu       sync.Mutex
	raw      []byte
	replies  []inReply
	switched bool
	err      error
	wake     chan struct{} // capacity 1
}

type inReply struct {
	end int
	v   Value
	at  time.Time
}

func newInbox() inbox { return inbox{wake: make(chan struct{}, 1)} }

func (b *inbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// handBatch is the most replies the shared reader hands over before it
// wakes the clients it handed them to, even while more are buffered.
const handBatch = 256

// deliver is the shared reader's: one reply for s, whose command it
// answers is the oldest s has outstanding. The reader wakes s's reply
// goroutine after it (readLoop's wakeTouched).
func (s *session) deliver(raw []byte, v Value, at time.Time) {
	b := &s.inbox
	b.mu.Lock()
	if b.err == nil {
		b.raw = append(b.raw, raw...)
		b.replies = append(b.replies, inReply{end: len(b.raw), v: v, at: at})
		if len(b.raw) > maxInboxBytes {
			b.err = errInboxFull
		}
	}
	b.mu.Unlock()
	if s.outstanding.Add(-1) == 0 {
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
}

// fail ends the inbox with err after what it holds.
func (b *inbox) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	b.signal()
}

// take swaps out what the inbox holds for the caller's emptied buffers.
func (b *inbox) take(raw []byte, replies []inReply) ([]byte, []inReply, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	raw, b.raw = b.raw, raw[:0]
	replies, b.replies = b.replies, replies[:0]
	return raw, replies, b.switched, b.err
}

// taken is what a client's reply passer took from its inbox: the
// replies' bytes, each reply's end, the next to pass and where its bytes
// start, and what came after them (the client moved to its own upstream,
// or the shared connection failed). Under session.replyMu.
type taken struct {
	raw      []byte
	replies  []inReply
	next     int
	start    int
	switched bool
	err      error
}

// What passReplies came to.
const (
	passedAll   = iota // every reply taken was passed
	passSwitch         // the client moved to its own upstream
	passEnded          // the session ended
	passHandOff        // passInline stopped: the client's goroutine goes on
)

// passReplies passes the client's replies from its inbox, taking more
// while there are; called with replyMu held. inline (the shared reader's
// goroutine): it stops at what only the client's own goroutine may do
// (a fault armed, the move to its own upstream, an error).
func (s *session) passReplies(inline bool) int {
	t := &s.taken
	for {
		if t.next == len(t.replies) {
			switch {
			case inline && (t.err != nil || t.switched):
				return passHandOff
			case t.err != nil:
				s.close(t.err)
				return passEnded
			case t.switched:
				return passSwitch
			}
			clear(t.replies) // the values' strings go with the trace
			if cap(t.raw) > 4*maxWriteBatch {
				t.raw = nil
			}
			t.raw, t.replies, t.switched, t.err = s.inbox.take(t.raw, t.replies)
			t.next, t.start = 0, 0
			if len(t.replies) == 0 && t.err == nil && !t.switched {
				return passedAll
			}
		}
		for t.next < len(t.replies) {
			if inline && s.armed.Load() {
				return passHandOff
			}
			r := t.replies[t.next]
			if !s.pass(t.raw[t.start:r.end], r.v, r.at, t.next < len(t.replies)-1, inline) {
				return passEnded
			}
			t.start = r.end
			t.next++
		}
	}
}

// passInline is the shared reader's wake-up of a client it handed
// replies: when no fault was ever armed on the client and its reply
// goroutine is not passing replies now, the reader passes them itself
// (writeNow never waits for the client's socket), which spares a
// goroutine hand-off per round trip; otherwise it wakes that goroutine.
func (s *session) passInline() {
	if s.rawConn == nil || s.armed.Load() || !s.replyMu.TryLock() {
		s.inbox.signal()
		return
	}
	res := s.passReplies(true)
	s.replyMu.Unlock()
	if res == passHandOff {
		s.inbox.signal()
	}
}

// replyShared is replyLoop while the client is on a shared upstream: it
// passes the replies the shared reader handed it (passReplies) when the
// reader did not pass them itself; true when the client moved to its own
// upstream (then read that), false when the session ended.
func (s *session) replyShared() bool {
	for {
		select {
		case <-s.inbox.wake:
		case <-s.done:
			return false
		}
		s.replyMu.Lock()
		res := s.passReplies(false)
		s.replyMu.Unlock()
		switch res {
		case passEnded:
			return false
		case passSwitch:
			return true
		}
	}
}

// leaveShared moves the client to its own upstream connection before a
// command that must not run on a shared one: what it gathered goes out,
// its replies come back (so its commands stay in order), then it dials.
// False when the session ended.
func (s *session) leaveShared() bool {
	if !s.flushUp() {
		return false
	}
	for s.outstanding.Load() > 0 {
		select {
		case <-s.drained:
		case <-s.done:
			return false
		}
	}
	s.p.miniMu.Lock()
	up, upR, err := s.p.dialUpstream(s.p.ctx)
	s.p.miniMu.Unlock()
	if err != nil {
		s.close(err)
		return false
	}
	u := s.sharedUp
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.up, s.upR, s.sharedUp = up, upR, nil
	}
	s.mu.Unlock()
	if closed {
		up.Close()
		return false
	}
	u.leave(s)
	s.inbox.mu.Lock()
	s.inbox.switched = true
	s.inbox.mu.Unlock()
	s.inbox.signal()
	return true
}

// sharedCounts are how many clients are on shared upstream connections and
// on their own (a test's and the benchmark's view).
func (p *Proxy) sharedCounts() (shared, own int) {
	for _, s := range p.openSessions() {
		s.mu.Lock()
		if s.sharedUp != nil {
			shared++
		} else if s.up != nil {
			own++
		}
		s.mu.Unlock()
	}
	return shared, own
}
