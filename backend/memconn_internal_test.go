package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestMemPipe: a write never waits for the reader, however large; a read
// waits for data and ends at its deadline, at the other end's close (EOF
// after the data) or at its own close.
func TestMemPipe(t *testing.T) {
	t.Parallel()
	c, s := memPipe()
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i)
	}
	if n, err := c.Write(big); n != len(big) || err != nil { // nobody reads yet
		t.Fatalf("write: %d, %v", n, err)
	}
	got, err := io.ReadAll(io.LimitReader(s, int64(len(big))))
	if err != nil || len(got) != len(big) || got[12345] != big[12345] {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}

	s.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := s.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
	s.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(10 * time.Millisecond)
		c.Write([]byte("x"))
	}()
	b := make([]byte, 4)
	if n, err := s.Read(b); n != 1 || err != nil || b[0] != 'x' {
		t.Fatalf("read after the deadline was cleared: %d, %v", n, err)
	}

	c.Write([]byte("last"))
	c.Close()
	if got, err := io.ReadAll(s); string(got) != "last" || err != nil {
		t.Fatalf("after the writer closed: %q, %v", got, err)
	}
	if _, err := s.Write([]byte("y")); err == nil {
		t.Fatal("write to a closed peer succeeded")
	}
	if _, err := c.Read(b); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a closed end: %v", err)
	}

	c2, s2 := memPipe()
	done := make(chan error, 1)
	go func() {
		_, err := s2.Read(b)
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	s2.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a blocked read when its end closed: %v", err)
	}
	c2.Close()
}

// BenchmarkEmbeddedConn compares, in one run, a step-sized transaction
// (10 PTTL+HGETALL pairs) on miniredis through its own unbuffered net.Pipe
// and through memPipe: the buffered connection must not cost the embedded
// backend speed.
func BenchmarkEmbeddedConn(b *testing.B) {
	for _, name := range []string{"net.Pipe", "memPipe"} {
		b.Run(name, func(b *testing.B) {
			m, client := NewMiniredis()
			defer m.Close()
			defer client.Close()
			if name == "net.Pipe" {
				client.Close()
				client = redis.NewClient(&redis.Options{Addr: "miniredis", Protocol: 2, DisableIdentity: true,
					MaintNotificationsConfig: noMaintNotifications(), ReadTimeout: -1, WriteTimeout: -1,
					Dialer: func(context.Context, string, string) (net.Conn, error) { return m.Dial() }})
			}
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				if _, err := client.TxPipelined(ctx, func(p redis.Pipeliner) error {
					for k := range 10 {
						p.PTTL(ctx, fmt.Sprint("k", k))
						p.HGetAll(ctx, fmt.Sprint("k", k))
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
