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
