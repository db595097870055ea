package proxy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"

	"lockstep/internal/redistest"
)

// BenchmarkForward measures the proxy's forwarding path over loopback in
// front of a real redis-server (started as the tests start it), beside the
// same traffic sent to redis-server directly: clients connections each
// sending SET and GET of keys that are not locks (-locks 'lock:*'), depth
// commands per write (redis-benchmark's -P), as redis-benchmark does. One
// op is one command. Profile it with
//
//	go test ./proxy -run '^$' -bench Forward -cpuprofile cpu.out
//
// and compare ns/op (and cpu-ns/op, this process's CPU a command, which
// a loaded machine disturbs less) of proxy/… against direct/… of the
// same run.
func BenchmarkForward(b *testing.B) {
	rs := redistest.Start(b)
	p, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", RedisURL: rs.URL, Locks: "lock:*"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, shape := range []struct{ clients, depth int }{{1, 1}, {1, 16}, {50, 1}, {50, 16}} {
		for _, to := range []struct{ name, addr string }{{"direct", rs.Addr}, {"proxy", p.Addr()}} {
			b.Run(fmt.Sprintf("%s/c%d-P%d", to.name, shape.clients, shape.depth), func(b *testing.B) {
				benchClients(b, to.addr, shape.clients, shape.depth)
			})
		}
	}
}

// benchClients spreads b.N commands over clients connections to addr, each
// writing depth commands at a time and reading their replies.
func benchClients(b *testing.B, addr string, clients, depth int) {
	conns := make([]*rawBench, clients)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		conns[i] = &rawBench{c: c, r: bufio.NewReaderSize(c, 16<<10)}
		key := fmt.Sprintf("bench:%d", i)
		set := encodeCommand([]string{"SET", key, "xxx"})
		get := encodeCommand([]string{"GET", key})
		for j := range depth {
			if j%2 == 0 {
				conns[i].batch = append(conns[i].batch, set...)
			} else {
				conns[i].batch = append(conns[i].batch, get...)
			}
		}
	}
	rounds := max(b.N/(clients*depth), 1)
	cpu0 := processCPU()
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for _, rc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				if err := rc.round(depth); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// This process's CPU (the clients, and the proxy when through it) per
	// command: proxy minus direct is the proxy's share, and it swings far
	// less than the wall clock on a loaded machine.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(rounds*clients*depth), "cpu-ns/op")
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// processCPU is the user and system CPU time this process has used, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

type rawBench struct {
	c     net.Conn
	r     *bufio.Reader
	batch []byte
}

// round writes the batch and reads its depth replies.
func (rc *rawBench) round(depth int) error {
	if _, err := rc.c.Write(rc.batch); err != nil {
		return err
	}
	for range depth {
		if _, _, err := readReply(rc.r); err != nil {
			return err
		}
	}
	return nil
}
