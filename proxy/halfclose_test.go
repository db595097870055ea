package proxy

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestHalfCloseGetsReplies: a client that sends its commands and closes
// its side (shutdown(SHUT_WR), as nc -N, socat or Go's CloseWrite do)
// gets every reply before the connection ends, as from Redis (it got
// none from a real redis-server upstream, about half from the embedded
// one, before).
func TestHalfCloseGetsReplies(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		const want = "+OK\r\n$1\r\n1\r\n+OK\r\n$2\r\nt1\r\n"
		for i := range 20 {
			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Fatal(err)
			}
			// a plain key and a lock key (its SET NX read after it)
			if _, err := io.WriteString(c, "SET a 1\r\nGET a\r\nSET lock:h t1 PX 60000\r\nGET lock:h\r\n"); err != nil {
				t.Fatal(err)
			}
			if err := c.(*net.TCPConn).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(c)
			c.Close()
			if err != nil || string(got) != want {
				t.Fatalf("try %d: read %q, %v; want %q", i, got, err, want)
			}
		}
		// Each connection ends once its replies are written: its close
		// event follows the last reply the client read, so wait for it.
		closes := 0
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			closes = 0
			for _, e := range p.Snapshot().Events {
				if e.Kind == EventClose {
					closes++
				}
			}
			if closes == 20 || time.Now().After(deadline) {
				break
			}
		}
		if closes != 20 {
			t.Errorf("%d close events, want 20", closes)
		}
	})
}
