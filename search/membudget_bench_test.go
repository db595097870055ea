package search

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkSearchHeapAtLimit measures what a search at its byte budget
// holds: a 3-actor token-count search of depth 10 (the built-in lock) with
// a 32 MiB budget and a learner's lock whose values are 64 KiB with a
// 16 MiB budget, on the embedded Redis; both stop at their budget. After every depth the collector runs and the live
// heap above the start is read (live-MB: the states the search keeps, as
// stateBytes counts them in counted-MB); a sampler reads the heap every
// 10 ms, garbage included (peak-heap-MB: what the process needed). The
// ratio live/counted is at most 1 when stateBytes counts at least what is
// kept, which is how branchBytes was set.
//
//	go test ./search -run '^$' -bench SearchHeapAtLimit -benchtime 1x
func BenchmarkSearchHeapAtLimit(b *testing.B) {
	builtin, err := Parse("token-count-3x10", []byte("variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}, {id: C}]\ndepth: 10\n"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		budget int64
		f      func(*testing.B) *File
	}{
		{"builtin", 32 << 20, func(*testing.B) *File { return builtin }},
		{"60KiB-values", 16 << 20, func(b *testing.B) *File { return bigValueSearchTB(b, 60<<10) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := c.f(b)
			var live, counted, peak uint64
			var res *Result
			for b.Loop() {
				var base runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&base)
				stop, sampled := sampleHeap(base.HeapAlloc)
				r, err := Run(context.Background(), f, Config{MaxBytes: c.budget, Progress: func(p Progress) {
					var m runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > base.HeapAlloc && m.HeapAlloc-base.HeapAlloc > live {
						live, counted = m.HeapAlloc-base.HeapAlloc, uint64(p.Bytes)
					}
				}})
				if err != nil {
					b.Fatal(err)
				}
				stop()
				peak, res = max(peak, <-sampled), r
			}
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
			b.ReportMetric(float64(counted)/(1<<20), "counted-MB")
			b.ReportMetric(float64(live)/float64(max(counted, 1)), "live/counted")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(res.States), "states")
			b.ReportMetric(float64(res.Bytes)/(1<<20), "end-counted-MB")
			b.Logf("%s: end %s after %d states; live %.1f MB when %.1f MB counted; heap peak %.1f MB above the start",
				c.name, res.End, res.States, float64(live)/(1<<20), float64(counted)/(1<<20), float64(peak)/(1<<20))
		})
	}
}

// sampleHeap reads the heap every 10 ms until stop is called, and then
// sends the most it saw above base.
func sampleHeap(base uint64) (stop func(), most <-chan uint64) {
	done := make(chan struct{})
	out := make(chan uint64, 1)
	var once sync.Once
	go func() {
		var peak uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base {
				peak = max(peak, m.HeapAlloc-base)
			}
			select {
			case <-done:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }, out
}
