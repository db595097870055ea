package backend_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"lockstep/backend"
)

// cutProxy forwards a loopback port to a Redis until Cut, which closes the
// listener and every connection, as a Redis that went down looks to its
// clients; Mend listens on the same port again.
type cutProxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	p := &cutProxy{target: target}
	p.listen(t, "127.0.0.1:0")
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.Cut)
	return p
}

func (p *cutProxy) listen(t *testing.T, addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, r)
			p.mu.Unlock()
			go func() { io.Copy(r, c); r.Close() }()
			go func() { io.Copy(c, r); c.Close() }()
		}
	}()
}

func (p *cutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) Mend(t *testing.T) { p.listen(t, p.addr) }

// TestRealDeleteRetried: a run that ends while Redis cannot be reached
// leaves its keys; the backend deletes them once Redis answers again, and
// Backend.Close makes one last try (hardening finding 9).
func TestRealDeleteRetried(t *testing.T) {
	t.Parallel()
	srv, c, l := staleOnRealRedis(t)
	for _, how := range []string{"retry", "close"} {
		t.Run(how, func(t *testing.T) {
			proxy := newCutProxy(t, srv.Addr)
			retry := 50 * time.Millisecond
			if how == "close" {
				retry = time.Hour // only Close's last try deletes
			}
			be, err := backend.Open(context.Background(), backend.Config{URL: "redis://" + proxy.addr, DeleteRetry: retry, DialTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r, store := runnerToClose(t, be, l)
			for range 3 {
				if _, err := r.Step(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if len(scan(t, c, backend.KeyNamespace+"*")) == 0 {
				t.Fatal("the run wrote no keys; the test proves nothing")
			}
			proxy.Cut()
			if err := store.Close(context.Background()); err == nil {
				t.Fatal("Close deleted the keys through a cut connection")
			}
			if be.PendingDeletes() != 1 {
				t.Fatalf("pending deletes: %d", be.PendingDeletes())
			}
			proxy.Mend(t)
			if how == "close" {
				if err := be.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				defer be.Close()
				for deadline := time.Now().Add(20 * time.Second); be.PendingDeletes() > 0; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the keys were not deleted after Redis came back")
					}
				}
			}
			if left := scan(t, c, backend.KeyNamespace+"*"); len(left) > 0 {
				t.Fatalf("keys left: %v", left)
			}
		})
	}
}
