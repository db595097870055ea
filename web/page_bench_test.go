package web

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
)

// BenchmarkPlayerPageClass is a class opening the teacher's deep link: one
// op is 1,000 GETs of /lessons/stale-owner?step=6 on one server, 50 at a
// time (the pages a class's browsers ask for before their websockets
// connect), each page with its step's panels drawn from the lesson's
// frames. "cached" keeps the frames of the lesson's first run (the
// server's frameCache), "uncached" runs the lesson for every page. ns/op is
// the 1,000 pages; page-µs is one page's share.
func BenchmarkPlayerPageClass(b *testing.B) {
	for _, c := range []struct {
		name string
		off  bool
	}{{"cached", false}, {"uncached", true}} {
		b.Run(c.name, func(b *testing.B) {
			be := lessontest.Open(b, backend.Config{})
			srv, err := New(Config{Backend: RedisBackend(be), Lessons: testLessons(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close(context.Background())
			srv.frames.off = c.off
			const class, together = 1000, 50
			get := func() {
				if w := serveGet(srv, "/lessons/stale-owner?step=6&lang=zh-CN"); w.Code != http.StatusOK {
					b.Errorf("status %d", w.Code)
				}
			}
			b.ResetTimer()
			for range b.N {
				var wg sync.WaitGroup
				next := make(chan struct{}, class)
				for range class {
					next <- struct{}{}
				}
				close(next)
				for range together {
					wg.Go(func() {
						for range next {
							get()
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*class), "page-µs")
		})
	}
}
