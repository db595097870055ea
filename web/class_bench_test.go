package web

// The benchmarks of a class at once on one server: its pages
// (BenchmarkPlayerPageClass) and its steps (BenchmarkClassSteps).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// BenchmarkClassSteps is a class stepping through the course: one op is
// 1,000 websocket sessions on one server, 50 at a time, each loading a
// course lesson in zh-CN (round robin over the course but its failover
// lesson, which starts redis-server processes of its own) and stepping it to its end, as the page does
// (each step's frame message read and decoded). "shared" lets the sessions
// of a lesson's canonical run share its step drawings (the frame cache's,
// prerender.go), "unshared" draws every step in every session. step-µs is
// one step's share of the op's time; p50-µs is a step's round trip;
// cache-KiB is what the cache's drawings hold after the op (0 unshared).
func BenchmarkClassSteps(b *testing.B) {
	for _, c := range []struct {
		name     string
		noShared bool
	}{{"shared", false}, {"unshared", true}} {
		b.Run(c.name, func(b *testing.B) {
			be := lessontest.Open(b, backend.Config{})
			all := lessontest.Course(b)
			var course []*sim.Lesson
			for _, l := range all {
				if !l.Replica && l.Nodes == 0 {
					course = append(course, l)
				}
			}
			// A class comes from one address here (the loopback), 50 at a time:
			// the per-address bound and the fair share would refuse it.
			srv, err := New(Config{Backend: RedisBackend(be), Lessons: course, MessageRate: 1e9, MessageBurst: 1 << 30,
				MaxSessionsPerAddr: 100, FairRate: 1e9, FairBurst: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			srv.frames.noShared = c.noShared
			hs := httptest.NewServer(srv)
			defer func() {
				hs.Close()
				_ = srv.Close(context.Background())
			}()
			url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
			const class, together = 1000, 50
			var mu sync.Mutex
			var rtts []time.Duration
			steps := 0
			b.ResetTimer()
			for range b.N {
				asClass(class, together, func(i int) {
					d, err := classSession(url, course[i%len(course)])
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					rtts = append(rtts, d...)
					steps += len(d)
					mu.Unlock()
				})
			}
			b.StopTimer()
			slices.Sort(rtts)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(steps), "step-µs")
			b.ReportMetric(float64(rtts[len(rtts)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(srv.frames.drawnBytes())/1024, "cache-KiB")
		})
	}
}

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
				asClass(class, together, func(int) { get() })
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*class), "page-µs")
		})
	}
}

// asClass is a class arriving at once: it calls learner for each of n
// learners (0 to n-1), together of them at a time, and returns when all
// are done.
func asClass(n, together int, learner func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range together {
		wg.Go(func() {
			for i := range next {
				learner(i)
			}
		})
	}
	wg.Wait()
}

// classSession is one learner of BenchmarkClassSteps: it loads l and steps
// to its end, and returns each step's round trip.
func classSession(url string, l *sim.Lesson) ([]time.Duration, error) {
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	read := func(typ string) error {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		_, data, err := conn.ReadMessage()
		if err != nil {
			return err
		}
		var m serverMsg
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.Type != typ {
			return fmt.Errorf("%s: got %s (%s), want %s", l.ID, m.Type, m.Message, typ)
		}
		return nil
	}
	if err := read(MsgHello); err != nil {
		return nil, err
	}
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"load","lesson":"`+l.ID+`","lang":"zh-CN"}`)); err != nil {
		return nil, err
	}
	if err := read(MsgFrame); err != nil {
		return nil, err
	}
	var d []time.Duration
	for range l.Steps {
		t0 := time.Now()
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"step"}`)); err != nil {
			return nil, err
		}
		if err := read(MsgFrame); err != nil {
			return nil, err
		}
		d = append(d, time.Since(t0))
	}
	return d, nil
}
