package backend

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// An embedded run reaches its miniredis through an in-memory connection.
// miniredis's own Dial serves a net.Pipe, which has no buffer: a write
// blocks until the other end reads it. go-redis writes a whole MULTI/EXEC
// before it reads a reply, and miniredis writes each reply before it reads
// the next command, so once a transaction's replies outgrow the two bufio
// buffers (a run of some 45 keys: every step reads each key twice) both
// ends block writing and neither reads: a deadlock no deadline ends, since
// the run's context bounded nothing below go-redis's write.
//
// memPipe is the same in-memory connection with a buffer in each direction
// that grows as needed: a write never waits, a read waits for data, for the
// other end to close, or for its deadline. What is buffered is bounded by
// one batch's commands (client to server) and its replies (back), both of
// which the caller's batch already holds in memory.

// memPipe returns the two ends of a buffered in-memory connection.
func memPipe() (client, server net.Conn) {
	a, b := newMemQueue(), newMemQueue()
	client = &memConn{in: b, out: a, rd: newDeadline(), wd: newDeadline()}
	server = &memConn{in: a, out: b, rd: newDeadline(), wd: newDeadline()}
	return client, server
}

// memQueue is one direction of a memPipe.
type memQueue struct {
	mu     sync.Mutex
	buf    []byte
	closed bool          // the writing end closed: reads drain, then EOF
	ready  chan struct{} // signalled (capacity 1) when data or close arrives
}

func newMemQueue() *memQueue { return &memQueue{ready: make(chan struct{}, 1)} }

func (q *memQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *memQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// memConn is one end of a memPipe; it implements net.Conn.
type memConn struct {
	in, out   *memQueue
	rd, wd    *deadline
	closeOnce sync.Once
	mu        sync.Mutex
	shut      bool // this end closed
}

func (c *memConn) isShut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shut
}

// Read reads what the other end wrote, waiting until there is some, the
// other end closes (io.EOF once drained), this end closes (net.ErrClosed) or
// the read deadline passes (os.ErrDeadlineExceeded).
func (c *memConn) Read(p []byte) (int, error) {
	for {
		if c.isShut() {
			return 0, net.ErrClosed
		}
		c.in.mu.Lock()
		if len(c.in.buf) > 0 {
			n := copy(p, c.in.buf)
			c.in.buf = c.in.buf[n:]
			if len(c.in.buf) == 0 {
				c.in.buf = nil // let a large batch's buffer go
			} else {
				c.in.signal() // more for the next read
			}
			c.in.mu.Unlock()
			return n, nil
		}
		closed := c.in.closed
		c.in.mu.Unlock()
		if closed {
			return 0, io.EOF
		}
		select {
		case <-c.in.ready:
		case <-c.rd.wait():
			if c.isShut() {
				return 0, net.ErrClosed
			}
			return 0, os.ErrDeadlineExceeded
		}
	}
}

// Write appends p to the other end's input; it never waits for a reader.
func (c *memConn) Write(p []byte) (int, error) {
	if c.isShut() {
		return 0, net.ErrClosed
	}
	if c.wd.expired() {
		return 0, os.ErrDeadlineExceeded
	}
	c.out.mu.Lock()
	if c.out.closed {
		c.out.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	c.out.buf = append(c.out.buf, p...)
	c.out.mu.Unlock()
	c.out.signal()
	return len(p), nil
}

// Close closes this end: its reads and writes fail with net.ErrClosed, and
// the other end reads what was written, then io.EOF, and its writes fail.
func (c *memConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.shut = true
		c.mu.Unlock()
		c.out.close()
		c.in.close() // the other end's writes fail from now on
		c.rd.stop()
		c.wd.stop()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr  { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr { return memAddr{} }

func (c *memConn) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}

func (c *memConn) SetReadDeadline(t time.Time) error  { c.rd.set(t); return nil }
func (c *memConn) SetWriteDeadline(t time.Time) error { c.wd.set(t); return nil }

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "miniredis" }

// deadline is a settable point in time with a channel closed once it has
// passed (or the connection closed). The zero time means none.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	passed chan struct{}
	done   bool // closed connection: passed stays closed
}

func newDeadline() *deadline { return &deadline{passed: make(chan struct{})} }

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return
	}
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed // the timer fired: wait for it to close passed
	}
	d.timer = nil
	if isClosed(d.passed) {
		d.passed = make(chan struct{})
	}
	if t.IsZero() {
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		close(d.passed)
		return
	}
	passed := d.passed
	d.timer = time.AfterFunc(dur, func() { close(passed) })
}

// stop closes passed for good: a closed connection's waits end.
func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed
	}
	d.timer = nil
	d.done = true
	if !isClosed(d.passed) {
		close(d.passed)
	}
}

func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed
}

func (d *deadline) expired() bool { return isClosed(d.wait()) }

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
