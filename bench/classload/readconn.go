package main

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
)

// received counts the bytes every connection of the load generator read
// from its socket (websocket frames as sent, deflated or not): per student
// per move, the class's cost on the network.
var received atomic.Int64

// readChunk is how much a student's connection reads from the socket at
// once: a move's frame and status (12 to 20 KiB, sent in one write) in one
// read system call, where gorilla's 4 KiB read buffer took three to five.
const readChunk = 64 << 10

// readBufs are the read buffers of every student: a connection holds one
// only from the read that filled it to the read that empties it, never
// while it waits for the socket, so that 10,000 idle students hold none.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// pooledConn is a TCP connection whose reads go through a pooled buffer of
// readChunk bytes (readBufs): the load generator's 10,000 students each
// read a move's bytes with one system call, and share a few buffers.
type pooledConn struct {
	*net.TCPConn
	raw  syscall.RawConn
	buf  *[]byte // nil when empty
	r, w int     // the unread bytes are (*buf)[r:w]
}

// dialPooled dials addr over TCP and returns it as a pooledConn (the
// websocket dialer's NetDialContext).
func dialPooled(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := c.(*net.TCPConn)
	raw, err := tc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	return &pooledConn{TCPConn: tc, raw: raw}, nil
}

// Read copies what the buffer holds, filling it first when empty.
func (c *pooledConn) Read(p []byte) (int, error) {
	if c.buf == nil {
		if err := c.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, (*c.buf)[c.r:c.w])
	c.r += n
	if c.r == c.w {
		readBufs.Put(c.buf)
		c.buf = nil
	}
	return n, nil
}

// fill reads once from the socket into a pooled buffer, waiting (within
// the read deadline) for it to be readable without holding the buffer.
func (c *pooledConn) fill() error {
	var n int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		b := readBufs.Get().(*[]byte)
		for {
			n, rerr = syscall.Read(int(fd), *b)
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			readBufs.Put(b)
			return false // wait for the socket
		}
		if n > 0 {
			received.Add(int64(n))
			c.buf, c.r, c.w = b, 0, n
		} else {
			readBufs.Put(b)
		}
		return true
	})
	switch {
	case err != nil:
		return err
	case rerr != nil:
		return rerr
	case n == 0:
		return io.EOF
	}
	return nil
}
