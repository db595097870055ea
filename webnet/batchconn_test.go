package webnet

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// countingConn is one end of a net.Pipe that counts the writes that reach
// it.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes int
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// TestBatchConnOneWritePerBatch: what is written between hold and flush,
// from the writer and from another goroutine, reaches the connection in
// one write, in order; outside a batch each write goes through.
func TestBatchConnOneWritePerBatch(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	cc := &countingConn{Conn: a}
	pool := sync.Pool{New: NewBatchBuf}
	bc := &BatchConn{Conn: cc, bufs: &pool}
	got := make(chan []byte, 1)
	go func() {
		all, _ := io.ReadAll(b)
		got <- all
	}()

	bc.Hold()
	if err := bc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"frame;", "status;"} {
		if _, err := bc.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { // a control frame from another goroutine, while held
		defer close(done)
		_, _ = bc.Write([]byte("ping;"))
	}()
	<-done
	if n := cc.count(); n != 0 {
		t.Fatalf("%d writes reached the connection while held", n)
	}
	if err := bc.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := cc.count(); n != 1 {
		t.Fatalf("flush made %d writes, want 1", n)
	}
	if _, err := bc.Write([]byte("alone;")); err != nil {
		t.Fatal(err)
	}
	if n := cc.count(); n != 2 {
		t.Fatalf("a write outside a batch: %d writes in all, want 2", n)
	}
	if err := bc.Flush(); err != nil { // nothing held: nothing written
		t.Fatal(err)
	}
	_ = a.Close()
	if all := <-got; !bytes.Equal(all, []byte("frame;status;ping;alone;")) {
		t.Fatalf("read %q", all)
	}
}

// TestBatchConnTryFlushLeavesTheRestPending: on a TCP connection whose
// peer does not read, TryFlush writes what the socket takes without
// waiting and keeps the rest pending; a write after it (a control frame
// of another goroutine) is kept behind the rest, never sent between its
// halves, and FlushPending sends it all, in order, once the peer reads.
func TestBatchConnTryFlushLeavesTheRestPending(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	if server == nil {
		t.Fatal("no connection accepted")
	}
	defer server.Close()
	// Small socket buffers, so that a batch of 8 MiB cannot fit.
	_ = server.(*net.TCPConn).SetWriteBuffer(64 << 10)
	_ = client.(*net.TCPConn).SetReadBuffer(64 << 10)
	pool := sync.Pool{New: NewBatchBuf}
	bc := &BatchConn{Conn: server, bufs: &pool}

	batch := bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16)
	bc.Hold()
	if _, err := bc.Write(batch); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done, err := bc.TryFlush()
	if err != nil {
		t.Fatal(err)
	}
	if done || !bc.Pending() {
		t.Fatalf("TryFlush of 8 MiB to a peer that reads nothing: done %v, pending %v; want the rest pending", done, bc.Pending())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("TryFlush waited %s", d)
	}
	if _, err := bc.Write([]byte("ping;")); err != nil { // after the rest, not between
		t.Fatal(err)
	}
	got := flushPendingToReader(t, bc, client)
	if bc.Pending() {
		t.Fatal("pending after FlushPending")
	}
	if _, err := bc.Write([]byte("alone;")); err != nil { // straight through again
		t.Fatal(err)
	}
	_ = server.Close()
	want := append(append(batch, "ping;"...), "alone;"...)
	if all := <-got; !bytes.Equal(all, want) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(all), len(want))
	}
}

// TestBatchConnTryFlushAllAtOnce: a batch the socket takes whole is
// written by TryFlush in one write, under the deadline set while holding,
// and nothing stays pending.
func TestBatchConnTryFlushAllAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	defer server.Close()
	pool := sync.Pool{New: NewBatchBuf}
	bc := &BatchConn{Conn: server, bufs: &pool}
	// A deadline that passed (the writer's last, long ago) does not fail
	// the batch: the one set while holding is the socket's before it goes.
	if err := bc.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	bc.Hold()
	if err := bc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"frame;", "status;"} {
		if _, err := bc.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	done, err := bc.TryFlush()
	if err != nil || !done || bc.Pending() {
		t.Fatalf("TryFlush of 13 bytes: done %v, err %v, pending %v", done, err, bc.Pending())
	}
	buf := make([]byte, 13)
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "frame;status;" {
		t.Fatalf("read %q, %v", buf, err)
	}
}

// tcpPair is a loopback TCP connection: the server's end and the client's.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	if server = <-accepted; server == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { server.Close() })
	return server, client
}

// TestBatchConnTryWriteAllAtOnce: bytes the socket takes whole go in one
// write under the deadline given (one that passed before does not fail
// it), nothing stays pending, and the caller's bytes are not kept: a
// change after does not reach the peer.
func TestBatchConnTryWriteAllAtOnce(t *testing.T) {
	server, client := tcpPair(t)
	pool := sync.Pool{New: NewBatchBuf}
	bc := &BatchConn{Conn: server, bufs: &pool}
	if err := bc.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	p := []byte("frame;status;")
	done, err := bc.TryWrite(p, time.Now().Add(time.Minute))
	if err != nil || !done || bc.Pending() {
		t.Fatalf("TryWrite of 13 bytes: done %v, err %v, pending %v", done, err, bc.Pending())
	}
	copy(p, "XXXXX")
	if _, err := bc.Write([]byte("alone;")); err != nil { // straight through
		t.Fatal(err)
	}
	buf := make([]byte, 19)
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "frame;status;alone;" {
		t.Fatalf("read %q, %v", buf, err)
	}
}

// TestBatchConnTryWriteLeavesTheRestPending: on a connection whose peer
// does not read, TryWrite writes what the socket takes, keeps a copy of
// the rest pending, and a write after it (a control frame) behind the
// rest; FlushPending sends it all in order once the peer reads. Another
// TryWrite meanwhile is refused: it would overtake the rest.
func TestBatchConnTryWriteLeavesTheRestPending(t *testing.T) {
	server, client := tcpPair(t)
	_ = server.(*net.TCPConn).SetWriteBuffer(64 << 10)
	_ = client.(*net.TCPConn).SetReadBuffer(64 << 10)
	pool := sync.Pool{New: NewBatchBuf}
	bc := &BatchConn{Conn: server, bufs: &pool}
	p := bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16)
	want := append(append([]byte(nil), p...), "ping;"...)
	start := time.Now()
	done, err := bc.TryWrite(p, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if done || !bc.Pending() {
		t.Fatalf("TryWrite of 8 MiB to a peer that reads nothing: done %v, pending %v; want the rest pending", done, bc.Pending())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("TryWrite waited %s", d)
	}
	clear(p) // the rest pending is a copy
	if _, err := bc.TryWrite([]byte("overtaking;"), time.Now().Add(time.Minute)); err == nil {
		t.Fatal("a TryWrite while bytes are pending was taken")
	}
	if _, err := bc.Write([]byte("ping;")); err != nil {
		t.Fatal(err)
	}
	got := flushPendingToReader(t, bc, client)
	_ = server.Close()
	if all := <-got; !bytes.Equal(all, want) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(all), len(want))
	}
}

// flushPendingToReader starts reading all that client (bc's peer) gets
// until it is closed, then writes what bc has pending (FlushPending,
// under a minute's deadline); the channel gives what client read.
func flushPendingToReader(t *testing.T, bc *BatchConn, client net.Conn) <-chan []byte {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		all, _ := io.ReadAll(client)
		got <- all
	}()
	if err := bc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := bc.FlushPending(); err != nil {
		t.Fatal(err)
	}
	return got
}
