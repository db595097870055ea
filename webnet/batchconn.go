package webnet

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// BatchConn is a websocket's network connection whose writer can send
// several queued messages in one system call: between Hold and Flush its
// writes are kept in a buffer, and Flush writes them at once.
//
// A class move queues two messages per student (the shared frame and the
// class-status, classserve/shared.go): written one by one they were two TCP
// sends, each with its whole path through the kernel (on loopback, the
// receive too), which was most of a move's time for 10,000 students
// (docs/performance.md, Classes). A page reads the same bytes either way.
//
// Writes outside Hold and Flush (the handshake's answer, a control frame
// gorilla's WriteControl sends from another goroutine) go straight
// through; one that comes while the writer holds goes out with its batch,
// whole, as websocket frames may.
type BatchConn struct {
	// What a class move's fast path reads (Pending, TryWrite) comes first,
	// in one cache line: a move reads it for each of 1,000 students, each
	// line a cache miss (perf, issue 34).

	mu      sync.Mutex
	holding bool
	// pending: buf holds the bytes a TryFlush could not write (the socket
	// was full), the start of a batch's frames. Writes append to them
	// until the writer's FlushPending or Hold and Flush send them all, so
	// that nothing goes out between the halves of a frame.
	pending bool
	rawDone bool
	buf     *[]byte
	// raw is Conn's raw connection for TryFlush's write that does not wait;
	// nil when Conn has none (TryFlush then writes nothing).
	raw syscall.RawConn
	// applied is the write deadline last set on Conn.
	applied time.Time

	net.Conn
	// deadline is the write deadline set while holding (deadlineSet), set
	// on Conn at Flush: gorilla sets it before each message, and each set
	// of a network connection's deadline is a timer's.
	deadline    time.Time
	deadlineSet bool
	// bufs are the buffers of batches being written (web.Server's batchBufs),
	// shared by every connection: one kept per connection would hold a
	// message's worth of memory for each of 10,000 students.
	bufs *sync.Pool
}

// NewBatchConn is a BatchConn whose batches are written from the buffers
// of bufs (a sync.Pool of NewBatchBuf); it has no network connection until
// its Hijacker's Hijack.
func NewBatchConn(bufs *sync.Pool) *BatchConn { return &BatchConn{bufs: bufs} }

// NewBatchBuf is a new buffer of such a pool.
func NewBatchBuf() any {
	b := make([]byte, 0, 32<<10)
	return &b
}

// batchBufKept is the largest buffer put back in the pool.
const batchBufKept = 256 << 10

// Write keeps p while the writer holds, else writes it.
func (c *BatchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.holding || c.pending {
		if c.buf == nil { // a TryWrite's, which writes from its own bytes
			c.buf = c.bufs.Get().(*[]byte)
			*c.buf = (*c.buf)[:0]
		}
		*c.buf = append(*c.buf, p...)
		c.mu.Unlock()
		return len(p), nil
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// SetWriteDeadline sets the connection's write deadline; while the writer
// holds, at Flush.
func (c *BatchConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	if c.holding {
		c.deadline, c.deadlineSet = t, true
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	return c.apply(t)
}

// deadlineSlack is how much earlier than asked a write deadline may end:
// a deadline up to deadlineSlack later than the one the connection has is
// not set (gorilla sets one before every message, the writer writeWait
// from now; each set of a network connection's deadline moves a timer).
const deadlineSlack = time.Second

// apply sets write deadline t on Conn, unless it is up to deadlineSlack
// later than the one Conn has.
func (c *BatchConn) apply(t time.Time) error {
	c.mu.Lock()
	d := t.Sub(c.applied)
	skip := !t.IsZero() && !c.applied.IsZero() && d >= 0 && d < deadlineSlack
	if !skip {
		c.applied = t
	}
	c.mu.Unlock()
	if skip {
		return nil
	}
	return c.Conn.SetWriteDeadline(t)
}

// Hold makes the writes that follow wait for Flush.
func (c *BatchConn) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = true
	if c.pending { // the batch starts with what a TryFlush left
		c.pending = false
		return
	}
	c.buf = c.bufs.Get().(*[]byte)
	*c.buf = (*c.buf)[:0]
}

// Discard stops holding and returns a copy of what was kept since Hold,
// sending none of it: what gorilla would write for a message, asked before
// the connection's goroutines start (web's wire probe; a write of another
// goroutine meanwhile would be lost with it).
func (c *BatchConn) Discard() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding, c.deadline, c.deadlineSet = false, time.Time{}, false
	if c.buf == nil {
		return nil
	}
	out := append([]byte(nil), *c.buf...)
	c.bufs.Put(c.buf)
	c.buf = nil
	return out
}

// Pending reports whether a TryFlush left bytes unwritten: until the
// writer's FlushPending (or Hold and Flush) sends them, only they may
// write.
func (c *BatchConn) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending
}

// FlushPending writes, waiting as Flush does, what a TryFlush left
// unwritten and what was written after it; nothing when there is none.
func (c *BatchConn) FlushPending() error {
	c.mu.Lock()
	pending := c.pending
	c.mu.Unlock()
	if !pending {
		return nil
	}
	c.Hold()
	return c.Flush()
}

// TryFlush is Flush for a caller that must not wait on a full socket (a
// class feed writing to thousands of students from a few goroutines,
// web.client's deliver): it writes what was kept since Hold with one
// write(2) that does not wait, and stops holding. It reports whether all
// of it went; what did not stays pending, to be sent by the connection's
// own writer (FlushPending), which may wait. A connection without a raw
// file descriptor (TLS) writes nothing here: all of it stays pending.
func (c *BatchConn) TryFlush() (bool, error) {
	c.mu.Lock()
	raw, b, deadline, set := c.rawConn(), c.buf, c.deadline, c.deadlineSet
	c.mu.Unlock()
	if b == nil {
		return true, nil
	}
	if set {
		// The socket's deadline, though this write does not wait: one
		// that passed (the last set by the writer, minutes ago) fails it.
		if err := c.apply(deadline); err != nil {
			return false, err
		}
	}
	// Still holding while the bytes go: a write of another goroutine (a
	// control frame) is appended after them, not sent between.
	n, werr := writeOnce(raw, *b)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = false
	rest := (*c.buf)[n:]
	if werr != nil || len(rest) == 0 {
		if cap(*c.buf) <= batchBufKept {
			c.bufs.Put(c.buf)
		}
		c.buf, c.deadline, c.deadlineSet = nil, time.Time{}, false
		return werr == nil, werr
	}
	*c.buf = (*c.buf)[:copy(*c.buf, rest)]
	c.pending = true
	return false, nil
}

// rawConn is Conn's raw connection, found the first time; nil when it has
// none. c.mu is held.
func (c *BatchConn) rawConn() syscall.RawConn {
	if !c.rawDone {
		c.rawDone = true
		if sc, ok := c.Conn.(syscall.Conn); ok {
			c.raw, _ = sc.SyscallConn()
		}
	}
	return c.raw
}

// TryWrite is TryFlush of bytes framed once for many connections (a class
// move's frame and status as every connection of one compression choice
// puts them on the wire, web.client's deliver), written as they are: no
// Hold, no gorilla write and no copy into a batch buffer per student, which
// were most of a move's user CPU per student besides the write itself
// (docs/performance.md, Classes). The caller is the connection's only
// writer, which holds nothing and has nothing pending (Pending); deadline
// is the write deadline, as gorilla would have set it.
//
// It writes p with one write(2) that does not wait and reports whether all
// of it went. What did not, and a control frame another goroutine wrote
// meanwhile (kept after it, not sent between), is pending, to be sent by
// the connection's writer (FlushPending), as after a TryFlush. p is not
// kept: what is left of it is copied. A connection without a raw file
// descriptor (TLS) writes nothing here: all of p is pending.
func (c *BatchConn) TryWrite(p []byte, deadline time.Time) (bool, error) {
	c.mu.Lock()
	if c.holding || c.pending {
		c.mu.Unlock()
		return false, errBusy
	}
	raw := c.rawConn()
	// Holding while p goes: a control frame of another goroutine is kept
	// for after it (Write).
	c.holding = true
	d := deadline.Sub(c.applied)
	apply := c.applied.IsZero() || d < 0 || d >= deadlineSlack
	if apply {
		c.applied = deadline
	}
	c.mu.Unlock()
	n := 0
	var werr error
	if apply {
		// Though this write does not wait: a deadline that passed (the
		// last set by the writer, minutes ago) would fail it.
		werr = c.Conn.SetWriteDeadline(deadline)
	}
	if werr == nil {
		n, werr = writeOnce(raw, p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = false
	rest := p[n:]
	if werr != nil || (len(rest) == 0 && c.buf == nil) {
		if c.buf != nil {
			if cap(*c.buf) <= batchBufKept {
				c.bufs.Put(c.buf)
			}
			c.buf = nil
		}
		return werr == nil, werr
	}
	// Pending: what is left of p, then what was written meanwhile.
	b := c.bufs.Get().(*[]byte)
	*b = append((*b)[:0], rest...)
	if c.buf != nil {
		*b = append(*b, *c.buf...)
		if cap(*c.buf) <= batchBufKept {
			c.bufs.Put(c.buf)
		}
	}
	c.buf, c.pending = b, true
	return false, nil
}

// errBusy is TryWrite's error for a caller that broke its contract: the
// connection holds a batch or has bytes pending.
var errBusy = errors.New("webnet: batch conn: try write while holding or pending")

// Flush writes what was kept since Hold, in one write, under the deadline
// last set, and stops holding.
func (c *BatchConn) Flush() error {
	c.mu.Lock()
	b, deadline, set := c.buf, c.deadline, c.deadlineSet
	c.holding, c.buf, c.deadline, c.deadlineSet = false, nil, time.Time{}, false
	c.mu.Unlock()
	if b == nil {
		return nil
	}
	var err error
	if len(*b) > 0 {
		if set {
			err = c.apply(deadline)
		}
		if err == nil {
			_, err = c.Conn.Write(*b)
		}
	}
	if cap(*b) <= batchBufKept {
		c.bufs.Put(b)
	}
	return err
}

// Hijacker is w, the http.ResponseWriter of a websocket handshake, whose
// Hijack hands gorilla's Upgrader the connection as c.
func (c *BatchConn) Hijacker(w http.ResponseWriter) http.ResponseWriter {
	return batchHijacker{ResponseWriter: w, conn: c}
}

// batchHijacker is the http.ResponseWriter of a websocket handshake whose
// Hijack hands gorilla's Upgrader the connection as a BatchConn (conn).
type batchHijacker struct {
	http.ResponseWriter
	conn *BatchConn
}

// Hijack takes the connection over, as http.Hijacker, wrapped in a
// BatchConn.
func (h batchHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	h.conn.Conn = nc
	return h.conn, rw, nil
}

// writeNow writes p to the non-blocking socket fd with one write(2) that
// does not wait, and returns how much went (0 and nil when the socket is
// full: EAGAIN).
//
// It is a raw system call (syscall.RawSyscall: no entersyscall and
// exitsyscall around it): TryFlush's caller, a class feed's goroutine, makes
// one per student, thousands in a row on every P. Through syscall.Write each
// was marked blocking, and the runtime's monitor, seeing every P in a system
// call for 20 µs at a time, took the P away and handed it to another thread,
// which the writer then had to win back: at 1,000 students that was a third
// of the server's CPU beyond the write itself (docs/performance.md,
// Classes). The socket is non-blocking (Go's net package opens every socket
// so), so the call returns as soon as the kernel took what fits.
// writeOnce writes what the socket raw takes of p at once, with one
// write(2) that never waits (TryFlush, TryWrite): how many bytes went.
// Nothing goes without a raw connection (TLS) or bytes.
func writeOnce(raw syscall.RawConn, p []byte) (int, error) {
	if raw == nil || len(p) == 0 {
		return 0, nil
	}
	n := 0
	var werr error
	if err := raw.Write(func(fd uintptr) bool {
		n, werr = writeNow(fd, p)
		return true // one try, never a wait
	}); err != nil {
		return n, err
	}
	return n, werr
}

func writeNow(fd uintptr, p []byte) (int, error) {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		switch e {
		case 0:
			return int(r), nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		}
		return 0, e
	}
}
