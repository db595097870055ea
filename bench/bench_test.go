package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/internal/benchtable"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// The benchmarks below measure what the table of `go run ./bench` reports,
// one figure each, for `go test -bench . ./bench` and for profiling
// (-cpuprofile). The table itself is what gives each figure its reference.

func embedded(b testing.TB) *backend.Backend { return lessontest.Open(b, backend.Config{}) }

func real(b testing.TB) (*backend.Backend, *redistest.Server) {
	rs := redistest.Start(b)
	return lessontest.Open(b, backend.Config{URL: rs.URL}), rs
}

func lessonsOf(b testing.TB) []*sim.Lesson {
	ls, err := course()
	if err != nil {
		b.Fatal(err)
	}
	return ls
}

// benchSteps reports the websocket step round trip, waiting pace before
// each step (0: back to back): ns/op is one step, pace included.
func benchSteps(b *testing.B, be *backend.Backend, pace time.Duration) {
	ls := lessonsOf(b)
	s, err := startServer(be, ls, 10, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	c, err := dial(s.ws + "/ws")
	if err != nil {
		b.Fatal(err)
	}
	defer c.conn.Close()
	c.pace = pace
	var d []time.Duration
	b.ResetTimer()
	for i := 0; len(d) < b.N; i++ {
		if err := c.stepLesson(ls[i%len(ls)], &d); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := summarize(d)
	b.ReportMetric(float64(st.p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(st.p99.Microseconds()), "p99-µs")
}

func BenchmarkStepRoundTripEmbedded(b *testing.B) { benchSteps(b, embedded(b), 0) }

func BenchmarkStepRoundTripReal(b *testing.B) {
	be, _ := real(b)
	benchSteps(b, be, 0)
}

// readerPace is the wait before each step of the paced benchmarks (the
// table's -pace): the server and the client go idle between steps, as they
// do for a person, whose pauses are seconds. ns/op includes the wait, so
// give these benchmarks a count: -benchtime 1000x.
const readerPace = 20 * time.Millisecond

func BenchmarkStepRoundTripEmbeddedPaced(b *testing.B) { benchSteps(b, embedded(b), readerPace) }

func BenchmarkStepRoundTripRealPaced(b *testing.B) {
	be, _ := real(b)
	benchSteps(b, be, readerPace)
}

func BenchmarkWebsocketEcho(b *testing.B) {
	s, err := startServer(embedded(b), lessonsOf(b), 10, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	b.ResetTimer()
	if _, err := echoRoundTrips(s, b.N, 0); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkRedisPing(b *testing.B) {
	_, rs := real(b)
	c := realClient(rs.Addr)
	defer c.Close()
	b.ResetTimer()
	if _, err := pingRoundTrips(context.Background(), c, b.N, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLockPair: ns/op is one acquire+release through Store.Exec.
func BenchmarkLockPair(b *testing.B) {
	be, _ := real(b)
	for _, v := range sim.Variants() {
		b.Run(v, func(b *testing.B) {
			if _, _, err := lockPairs(context.Background(), be, v, 1, b.N); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkEvalShaCeiling: ns/op is one EVALSHA of the variant's acquire
// script in a plain go-redis loop.
func BenchmarkEvalShaCeiling(b *testing.B) {
	_, rs := real(b)
	c := realClient(rs.Addr)
	defer c.Close()
	for _, v := range sim.Variants() {
		b.Run(v, func(b *testing.B) {
			calls, err := sim.LockCalls(v, "bench", "t-bench", 30000, 1)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := evalShaLoop(context.Background(), c, calls[0].Script, calls[0], b.N); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkRunnerEmbedded: ns/op is one pass over the course on the
// embedded backend, no web layer.
func BenchmarkRunnerEmbedded(b *testing.B) {
	be, ls := embedded(b), lessonsOf(b)
	b.ResetTimer()
	if _, err := runnerCost(context.Background(), be, ls, b.N); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSessions1000: one op is 1,000 concurrent sessions stepping a
// lesson each on the embedded backend, then reclaimed when idle.
func BenchmarkSessions1000(b *testing.B) {
	ls := lessonsOf(b)
	for i := 0; i < b.N; i++ {
		r, err := manySessions(1000, time.Second, ls)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.steps.p99.Microseconds()), "p99-µs")
		b.ReportMetric(float64(r.peakRSS)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(r.peakGoroutines), "peak-goroutines")
	}
}

// BenchmarkSearchRows runs section 6 of the table alone and prints it:
// go test ./bench -run '^$' -bench SearchRows -benchtime 1x.
func BenchmarkSearchRows(b *testing.B) {
	for b.Loop() {
		t := &benchtable.Table{Header: machine()}
		if err := searchRows(context.Background(), t, io.Discard); err != nil {
			b.Fatal(err)
		}
		t.Print(os.Stdout)
	}
}

// BenchmarkLockPageAgain reports section 8's row: the Redisson example's
// page viewed again, with the table cache and without (the row's ratio).
func BenchmarkLockPageAgain(b *testing.B) {
	if err := os.Chdir(".."); err != nil {
		b.Fatal(err)
	}
	defer os.Chdir("bench")
	t := &benchtable.Table{}
	if err := lockPageRows(t, embedded(b), lessonsOf(b), max(1, b.N)); err != nil {
		b.Fatal(err)
	}
	t.Print(os.Stdout)
}

// TestMain serves as the Lua sandbox's process when run as one (section
// 8's course table runs a learner's scripts there).
func TestMain(m *testing.M) {
	backend.RunSandboxIfChild()
	os.Exit(m.Run())
}
