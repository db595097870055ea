package search

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTokenCount3 is the measured search: token-count, three
// actors, default moves, depth 10, on the embedded Redis (one miniredis per
// worker) and with the reference model (sim/refmodel) as the store, in
// alternation within one run, so that the ratio between the two is read
// under one load. One op is one whole search on each store; the metrics are
// the embedded search's seconds, the reference's and their ratio, the ratio
// of the CPU time each used, and the states and the transitions (the same
// on both). Profile the embedded side
// alone with -bench 'TokenCount3/embedded' -cpuprofile cpu.prof:
//
//	go test ./search -run '^$' -bench 'TokenCount3$' -benchtime 1x
func BenchmarkTokenCount3(b *testing.B) {
	f, err := Parse("token-count-3x10", []byte("variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}, {id: C}]\ndepth: 10\n"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	timed := func(cfg Config) (res *Result, wall, cpu time.Duration) {
		cpu0 := processCPU(b)
		start := time.Now()
		res, err := Run(ctx, f, cfg)
		if err != nil {
			b.Fatal(err)
		}
		return res, time.Since(start), processCPU(b) - cpu0
	}
	var emb, mod, embCPU, modCPU time.Duration
	var res *Result
	for b.Loop() {
		r, e, ec := timed(Config{})
		_, m, mc := timed(Config{Backend: Model()})
		emb, mod, embCPU, modCPU, res = emb+e, mod+m, embCPU+ec, modCPU+mc, r
		fmt.Printf("token-count 3x10: embedded %.2f s (CPU %.2f s), refmodel %.2f s (CPU %.2f s), ratio %.2fx (CPU %.2fx)\n",
			e.Seconds(), ec.Seconds(), m.Seconds(), mc.Seconds(), e.Seconds()/m.Seconds(), ec.Seconds()/mc.Seconds())
	}
	n := float64(b.N)
	b.ReportMetric(emb.Seconds()/n, "embedded-s")
	b.ReportMetric(mod.Seconds()/n, "refmodel-s")
	b.ReportMetric(emb.Seconds()/mod.Seconds(), "ratio")
	b.ReportMetric(embCPU.Seconds()/modCPU.Seconds(), "CPU-ratio")
	b.ReportMetric(float64(res.States), "states")
	b.ReportMetric(float64(res.Transitions), "transitions")
	b.ReportMetric(float64(res.States)/(emb.Seconds()/n), "embedded-states/s")
	b.ReportMetric(float64(res.States)/(mod.Seconds()/n), "refmodel-states/s")
}

// processCPU is the CPU time the process has used (user and system): on a
// machine shared with other work the wall time of a search mostly measures
// the queue for the cores, its CPU time what it asked of them.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTokenCount3Store is one store's side of BenchmarkTokenCount3,
// to profile it alone.
func BenchmarkTokenCount3Store(b *testing.B) {
	f, err := Parse("token-count-3x10", []byte("variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}, {id: C}]\ndepth: 10\n"))
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []struct {
		name string
		be   func() *Backend
	}{{"embedded", Embedded}, {"refmodel", Model}} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), f, Config{Backend: side.be()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
