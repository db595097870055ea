// Command bench measures how fast and how robust Lockstep is and prints one
// table (`make bench`, or `go run ./bench`): step round trips over the
// websocket against the floor of a Redis PING plus a websocket echo, lock
// calls against a plain EVALSHA loop, the embedded backend's cost per step
// against one miniredis EVALSHA, 1,000 concurrent sessions, and a
// redis-server killed mid-lesson, searches, and the bytes and CPU of a
// lesson's first load. Every figure is a ratio to a reference
// measured in the same run, so machine noise cancels.
//
// It starts its own redis-server on a free loopback port (package
// internal/redistest) and stops it at the end. The same measurements run
// as Go benchmarks: go test -bench . ./bench.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/benchtable"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

func main() {
	// "Your lock"'s course table runs a learner's scripts in the Lua
	// sandbox, a child process of this binary (section 8).
	backend.RunSandboxIfChild()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	rounds     int           // passes over the course for the step round trips, back to back, and for sim.Runner.Step alone
	paced      int           // passes over the course at a reader's pace
	pace       time.Duration // the wait before each step at a reader's pace
	pacedPings int           // floor samples at a reader's pace
	pings      int           // floor samples
	pairs      int           // lock nests per variant
	sessions   int           // concurrent sessions of the load row
	idle       time.Duration // the load server's idle timeout
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.rounds, "rounds", 5, "passes over the course for the step round trips, back to back, and for sim.Runner.Step alone")
	fs.IntVar(&o.paced, "paced-rounds", 2, "passes over the course for the step round trips at a reader's pace")
	fs.DurationVar(&o.pace, "pace", 20*time.Millisecond, "the wait before each step at a reader's pace (a person's is seconds)")
	fs.IntVar(&o.pacedPings, "paced-pings", 1000, "samples of each floor at a reader's pace")
	fs.IntVar(&o.pings, "pings", 20000, "samples of each floor (PING, websocket echo)")
	fs.IntVar(&o.pairs, "pairs", 5000, "acquire+release nests per lock variant")
	fs.IntVar(&o.sessions, "sessions", 1000, "concurrent websocket sessions of the load row")
	fs.DurationVar(&o.idle, "idle-timeout", 20*time.Second, "idle timeout of the load row's server (the reclaim it measures)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"rounds", o.rounds}, {"paced-rounds", o.paced}, {"pings", o.pings}, {"paced-pings", o.pacedPings}, {"pairs", o.pairs}, {"sessions", o.sessions}} {
		if f.n < 1 {
			fmt.Fprintf(stderr, "bench: flag -%s: must be at least 1, not %d\n", f.name, f.n)
			return 2
		}
	}
	if o.pace <= 0 || o.idle <= 0 {
		fmt.Fprintf(stderr, "bench: flags -pace and -idle-timeout must be positive (got %s and %s)\n", o.pace, o.idle)
		return 2
	}
	t := &benchtable.Table{}
	if err := measure(context.Background(), o, t, stderr); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		t.Print(stdout)
		return 1
	}
	t.Print(stdout)
	return 0
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

func machine() []string {
	cpu := "?"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	mem := "?"
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		line, _, _ := strings.Cut(string(data), "\n")
		mem = strings.Join(strings.Fields(strings.TrimPrefix(line, "MemTotal:")), " ")
	}
	redisV := "?"
	if out, err := exec.Command("redis-server", "--version").Output(); err == nil {
		redisV = strings.TrimSpace(string(out))
	}
	return []string{
		"lockstep bench, " + time.Now().UTC().Format("2006-01-02 15:04 MST"),
		fmt.Sprintf("machine: %d CPUs (%s), %s memory, %s %s/%s, %s",
			runtime.NumCPU(), cpu, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH, redisV),
	}
}

// gcSettings names the garbage collector settings the run has, read from
// runtime/metrics.
func gcSettings() string {
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	return fmt.Sprintf("garbage collector: GOGC %d, memory limit %d bytes", samples[0].Value.Uint64(), samples[1].Value.Uint64())
}

func measure(ctx context.Context, o options, t *benchtable.Table, log io.Writer) error {
	t.Header = append(machine(), gcSettings())
	ls, err := course()
	if err != nil {
		return err
	}
	steps := 0
	for _, l := range ls {
		steps += len(l.Steps)
	}
	rs, err := redistest.Launch("")
	if err != nil {
		return err
	}
	defer rs.Stop()
	t.Header = append(t.Header, fmt.Sprintf("redis-server on %s (started for this run); %d lessons, %d steps per pass (the lessons on servers of their own, a replica pair or nodes, are left out)", rs.Addr, len(ls), steps))

	emb, err := backend.Open(ctx, backend.Config{})
	if err != nil {
		return err
	}
	real, err := backend.Open(ctx, backend.Config{URL: rs.URL})
	if err != nil {
		return err
	}
	defer real.Close()

	se, err := startServer(emb, ls, 10, time.Hour)
	if err != nil {
		return err
	}
	defer se.close()
	sr, err := startServer(real, ls, 10, time.Hour)
	if err != nil {
		return err
	}
	defer sr.close()
	rc := realClient(rs.Addr)
	defer rc.Close()
	m, mc := miniClient()
	defer m.Close()
	defer mc.Close()

	// Floors, back to back and at a reader's pace: a round trip after a
	// pause costs more (threads and caches go cold), so the paced step
	// round trips are compared with paced floors.
	fmt.Fprintln(log, "bench: floors")
	modes := []struct {
		how    string
		rounds int           // passes over the course
		pings  int           // floor samples
		pace   time.Duration // wait before each round trip
	}{{"back to back", o.rounds, o.pings, 0}, {fmt.Sprintf("at a reader's pace (%s between)", o.pace), o.paced, o.pacedPings, o.pace}}
	type floors struct{ real, mini, echo stats }
	fl := make([]floors, len(modes))
	for i, md := range modes {
		pingReal, err := pingRoundTrips(ctx, rc, md.pings, md.pace)
		if err != nil {
			return err
		}
		pingMini, err := pingRoundTrips(ctx, mc, md.pings, md.pace)
		if err != nil {
			return err
		}
		echo, err := echoRoundTrips(se, md.pings, md.pace)
		if err != nil {
			return err
		}
		fl[i] = floors{summarize(pingReal), summarize(pingMini), summarize(echo)}
		pr, pm, ec := fl[i].real, fl[i].mini, fl[i].echo
		t.Add("0", "floor: Redis PING round trip (redis-server, go-redis, 1 conn), "+md.how, "p50 "+us(pr.p50)+", p99 "+us(pr.p99), "", "", "", "")
		t.Add("0", "floor: embedded PING round trip (miniredis via Dial), "+md.how, "p50 "+us(pm.p50)+", p99 "+us(pm.p99), "", "", "", "")
		t.Add("0", "floor: websocket echo round trip (same listener), "+md.how, "p50 "+us(ec.p50)+", p99 "+us(ec.p99), "", "", "", "")
	}

	// 1. Step round trips.
	fmt.Fprintln(log, "bench: step round trips")
	var typical []byte
	works := map[string]runnerWork{}
	for _, c := range []struct {
		name string
		s    *server
		be   *backend.Backend
		ping func(floors) stats
	}{{"embedded", se, emb, func(f floors) stats { return f.mini }}, {"real", sr, real, func(f floors) stats { return f.real }}} {
		for i, md := range modes {
			r, err := stepRoundTrips(c.s, ls, md.rounds, md.pace)
			if err != nil {
				return err
			}
			if typical == nil {
				typical = r.typical
			}
			st := summarize(r.times)
			floor50, floor99 := c.ping(fl[i]).p50+fl[i].echo.p50, c.ping(fl[i]).p99+fl[i].echo.p99
			r99 := float64(st.p99) / float64(floor99)
			target, met := "p99 ≤ 3x floor", r99 <= 3
			if c.name == "embedded" {
				target += ", < 1 ms"
				met = met && st.p99 < time.Millisecond
			}
			verdict := benchtable.Yes(met)
			if md.pace > 0 {
				// The floor is back to back; a paced floor's p99 is
				// a handful of wake-ups on an idle machine, too noisy to
				// hold a target to.
				target, verdict = "report", "-"
			}
			t.Add("1", fmt.Sprintf("step round trip, %s, %s (%d steps, message %.1f KiB; a load's %.0f KiB)", c.name, md.how, st.n, float64(r.stepSize)/1024, float64(r.loadSize)/1024),
				"p50 "+us(st.p50)+", p99 "+us(st.p99),
				"floor p50 "+us(floor50)+", p99 "+us(floor99),
				fmt.Sprintf("p50 %.1fx, p99 %.1fx", float64(st.p50)/float64(floor50), r99), target, verdict)
		}
		// The step's own Redis work, with no web layer and no websocket:
		// sim.Runner.Step over the same passes, back to back. Its p99
		// against the target's budget (3x the floor's p99) says how much of
		// the budget the work alone leaves for the message.
		w, err := runnerCost(ctx, c.be, ls, o.rounds)
		if err != nil {
			return err
		}
		works[c.name] = w
		st := summarize(w.steps)
		// The budget is what row 1's target allows at p99: 3x the floor's
		// back-to-back p99, and on the embedded backend at most 1 ms.
		budget := 3 * (c.ping(fl[0]).p99 + fl[0].echo.p99)
		if c.name == "embedded" {
			budget = min(budget, time.Millisecond)
		}
		n, fewest, most, singleP99 := w.tail()
		t.Add("1", fmt.Sprintf("its Redis work alone: sim.Runner.Step, %s, no web, back to back (%d steps; the %d at or over p99 sent %d-%d script calls; steps of at most 1 call: p99 %s)", c.name, st.n, n, fewest, most, us(singleP99)),
			"p50 "+us(st.p50)+", p99 "+us(st.p99),
			"budget (target's p99) "+us(budget),
			fmt.Sprintf("p99 %.0f%% of the budget", 100*float64(st.p99)/float64(budget)), "report: what bounds row 1", "-")
	}
	// What the message alone costs: the same websocket round trip as a
	// step, answered at once with a recorded step frame message, and with
	// that message without its HTML (its panels and timeline patch): the
	// frame's data, what a page that drew its own panels would get.
	dataOnly, err := withoutHTML(typical)
	if err != nil {
		return err
	}
	for _, m := range []struct {
		what string
		msg  []byte
	}{{"a step's message alone: round trip of a recorded %.1f KiB step frame message, no work, %s", typical},
		{"its frame data alone: the same message without its HTML (%.1f KiB), no work, %s", dataOnly}} {
		for i, md := range modes {
			d, err := cannedRoundTrips(se, m.msg, md.pings, md.pace)
			if err != nil {
				return err
			}
			st, ec := summarize(d), fl[i].echo
			t.Add("1", fmt.Sprintf(m.what, float64(len(m.msg))/1024, md.how),
				"p50 "+us(st.p50)+", p99 "+us(st.p99),
				"echo p50 "+us(ec.p50)+", p99 "+us(ec.p99),
				fmt.Sprintf("p50 %.1fx, p99 %.1fx", float64(st.p50)/float64(ec.p50), float64(st.p99)/float64(ec.p99)), "report: what the message size costs", "-")
		}
	}

	// 2. Lock calls.
	fmt.Fprintln(log, "bench: lock calls")
	for _, v := range sim.Variants() {
		calls, err := sim.LockCalls(v, "bench", "t-bench", 30000, 1)
		if err != nil {
			return err
		}
		// Alternate chunks of the ceiling, of ours and of the plain calls,
		// so that drift in the machine's speed hits all three alike.
		var ceil, ours, plain time.Duration
		n := 0
		const chunks = 50
		for k := 0; k < chunks; k++ {
			d, err := evalShaLoop(ctx, rc, calls[0].Script, calls[0], o.pairs*len(calls)/chunks)
			if err != nil {
				return err
			}
			ceil += d
			d, n, err = lockPairs(ctx, real, v, 1, o.pairs/chunks)
			if err != nil {
				return err
			}
			ours += d
			if d, err = plainPairs(ctx, rc, v, o.pairs/chunks); err != nil {
				return err
			}
			plain += d
		}
		perCallCeil := ceil / time.Duration(o.pairs*len(calls))
		perCallOurs := ours / time.Duration(o.pairs*n)
		perCallPlain := plain / time.Duration(o.pairs*n)
		// Ours is the calls as a lesson step sends them: each a
		// Store.Exec, on a real Redis a MULTI/EXEC with TIME on both sides
		// (the exact-PTTL guard of simulated time). Beside it, the same
		// calls as plain EVALSHAs, what the scripts and the adapter cost.
		stepRatio := float64(perCallCeil) / float64(perCallOurs)
		plainRatio := float64(perCallCeil) / float64(perCallPlain)
		t.Add("2", fmt.Sprintf("%s: acquire+release, Store.Exec; plain EVALSHA", v),
			fmt.Sprintf("%.0f; %.0f pairs/s", float64(o.pairs)/ours.Seconds(), float64(o.pairs)/plain.Seconds()),
			fmt.Sprintf("EVALSHA acquire loop %.0f calls/s", float64(o.pairs*len(calls))/ceil.Seconds()),
			fmt.Sprintf("%.2fx; %.2fx", stepRatio, plainRatio), "≥ 0.9x per call", benchtable.Yes(stepRatio >= 0.9))
	}
	for _, v := range []string{"local-count", "hash-refresh", "token-count"} {
		d, n, err := lockPairs(ctx, real, v, 3, o.pairs/2)
		if err != nil {
			return err
		}
		t.Add("2", fmt.Sprintf("%s: nested ×3 acquire, ×3 release", v),
			fmt.Sprintf("%d round trips, %.0f nests/s", n, float64(o.pairs/2)/d.Seconds()),
			"6 calls made", fmt.Sprintf("%d/6 reach Redis", n), "local-count: reentry free", benchtable.Yes(v != "local-count" || n == 2))
	}

	// 3. Per-step cost without the web layer.
	fmt.Fprintln(log, "bench: runner cost")
	// The steps' times are row 1's runs of sim.Runner.Step.
	for _, c := range []struct {
		name string
		cl   *redis.Client
	}{{"embedded", mc}, {"real", rc}} {
		cl := c.cl
		acq, err := sim.LockCalls("hash-refresh", "bench", "t-bench", 30000, 1)
		if err != nil {
			return err
		}
		ceil, err := evalShaLoop(ctx, cl, acq[0].Script, acq[0], o.pings/4)
		if err != nil {
			return err
		}
		perEval := ceil / time.Duration(o.pings/4)
		perStep, perExec := summarize(works[c.name].steps).mean, works[c.name].perExec
		t.Add("3", fmt.Sprintf("%s: sim.Runner.Step, no web (Store.Exec share)", c.name),
			fmt.Sprintf("%s/step (Exec %s)", us(perStep), us(perExec)),
			"one EVALSHA hash-refresh/acquire "+us(perEval),
			fmt.Sprintf("%.1fx (Exec %.1fx)", float64(perStep)/float64(perEval), float64(perExec)/float64(perEval)), "report", "-")
	}

	if err := derivedRows(ctx, t, log); err != nil {
		return err
	}

	// 4. Many sessions.
	fmt.Fprintf(log, "bench: %d sessions\n", o.sessions)
	lr, err := manySessions(o.sessions, o.idle, ls)
	t.Add("4", fmt.Sprintf("%d concurrent sessions, embedded, each a whole lesson", lr.sessions),
		fmt.Sprintf("%d errors; step p50 %s, p99 %s (%d steps)", lr.errors, us(lr.steps.p50), us(lr.steps.p99), lr.steps.n),
		"1 session: see row 1", "", "no errors", benchtable.Yes(err == nil && lr.errors == 0))
	t.Add("4", "peak during the load", fmt.Sprintf("RSS %s, %d goroutines", benchtable.MiB(lr.peakRSS), lr.peakGoroutines),
		fmt.Sprintf("before (warm): RSS %s, %d goroutines", benchtable.MiB(lr.base.rss), lr.base.goroutines),
		fmt.Sprintf("%.1f KiB RSS/session", float64(lr.peakRSS-min(lr.base.rss, lr.peakRSS))/1024/float64(max(1, lr.sessions))), "report", "-")
	t.Add("4", fmt.Sprintf("idle sessions reclaimed (-idle-timeout %s)", o.idle),
		fmt.Sprintf("%d/%d closed 4000 after %s", lr.reclaimed, lr.sessions-lr.errors, lr.reclaimWait.Round(10*time.Millisecond)),
		"", "", "all", benchtable.Yes(lr.reclaimed == lr.sessions-lr.errors))
	heapRatio := float64(lr.after.heap) / float64(max(1, lr.base.heap))
	t.Add("4", "memory after reclaim (2 GCs; heap = live HeapAlloc)", fmt.Sprintf("heap %s, RSS %s, %d goroutines", benchtable.MiB(lr.after.heap), benchtable.MiB(lr.after.rss), lr.after.goroutines),
		fmt.Sprintf("after an identical warm-up load: heap %s, RSS %s, %d goroutines (cold: heap %s, RSS %s)",
			benchtable.MiB(lr.base.heap), benchtable.MiB(lr.base.rss), lr.base.goroutines, benchtable.MiB(lr.cold.heap), benchtable.MiB(lr.cold.rss)),
		fmt.Sprintf("heap %.2fx, RSS %.2fx", heapRatio, float64(lr.after.rss)/float64(max(1, lr.base.rss))),
		"back to baseline (heap ≤ 1.25x, goroutines =)", benchtable.Yes(heapRatio <= 1.25 && lr.after.goroutines <= lr.base.goroutines))
	if err != nil {
		return err
	}

	// 5. Faults.
	fmt.Fprintln(log, "bench: redis-server killed mid-lesson")
	fr, err := redisFault(ctx, rs, rs.URL, ls)
	if err != nil {
		return err
	}
	t.Add("5", "redis-server killed mid-lesson: the step answers", fmt.Sprintf("error %q after %s", fr.errCode, us(fr.errAnswer)),
		"", "", "clear error", benchtable.Yes(fr.errCode == "redis"))
	t.Add("5", "while Redis is down", fmt.Sprintf("other session served: %s, /healthz: %s", benchtable.Yes(fr.otherServed), benchtable.Yes(fr.healthz)),
		"", "", "keeps serving", benchtable.Yes(fr.otherServed && fr.healthz))
	t.Add("5", "redis-server restarted on its port: lesson resumes", fmt.Sprintf("after %s, %d failed retries", fr.resume.Round(time.Millisecond), fr.retries),
		"", "", "resumes", "yes")
	t.Add("5", "keys of ours after the resume / after close", fmt.Sprintf("%d keys, %d without TTL / %d left", fr.keys, fr.noTTL, fr.keysAfterClose),
		"", "", "every key has a TTL", benchtable.Yes(fr.noTTL == 0 && fr.keysAfterClose == 0))

	// 6. Search (bench/search.go).
	if err := searchRows(ctx, t, log); err != nil {
		return err
	}
	// 7. Bytes on the wire (bench/wire.go).
	fmt.Fprintln(log, "bench: bytes on the wire")
	if err := wireRows(t, se, emb, ls, 300); err != nil {
		return err
	}
	// 8. "Your lock"'s page (bench/lockpage.go).
	fmt.Fprintln(log, "bench: a lock's page viewed again")
	return lockPageRows(t, emb, ls, 3)
}
