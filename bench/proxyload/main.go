// Command proxyload measures the lock-aware proxy (package proxy) against
// Redis directly, in one run, and prints one table (`make bench`, or
// `go run ./bench/proxyload`): redis-benchmark -t set,get -P 16 and -P 1
// through the proxy and directly, interleaved (throughput ratio, p50
// added), a lock/unlock loop (SET
// NX PX and an EVALSHA release on a lock key, so every command is traced
// and its lock state read) through the proxy and directly, the proxy's
// memory per traced event and per client connection. The live page is open
// all along: package live's handler on a loopback server with a websocket
// client reading every message.
//
// -rows runs only the rows it names (say -rows loop, for before/after runs of
// one row); make bench runs them all.
//
// -soak D instead runs 50 clients looping lock/unlock through one proxy for
// D (10m for the figure) and prints its RSS over time; it is not
// part of `make bench` or `make test`.
//
// It starts its own redis-server on a free loopback port (package
// internal/redistest) and needs redis-benchmark (Debian's redis-tools).
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/benchtable"
	"lockstep/internal/redistest"
	"lockstep/proxy"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxyload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	requests := fs.Int("requests", 100000, "requests of each redis-benchmark run")
	loops := fs.Int("loops", 5000, "lock/unlock pairs of the EVALSHA loop")
	conns := fs.Int("conns", 200, "client connections of the memory row")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the whole run to this file")
	livePage := fs.Bool("live", true, "open the live page during the rows (false: measure the proxy without it, to see the page's share)")
	soakFor := fs.Duration("soak", 0, "instead of the rows, run the soak for this long (10m for the issue's figure)")
	soakEvery := fs.Duration("soak-every", 30*time.Second, "the soak's sampling interval")
	soakClients := fs.Int("soak-clients", 50, "the soak's client connections")
	rowsFlag := fs.String("rows", "all", "which rows to run, comma-separated: mem (P3, P4), c50p16, c50p1, c1p16, c1p1 (P1's redis-benchmark shapes), loop (P2); all: every row (make bench)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *requests < 1 || *loops < 1 || *conns < 1 || *conns > proxy.MaxMaxClients {
		fmt.Fprintln(stderr, "proxyload: -requests, -loops and -conns must be at least 1 (-conns at most the proxy's -max-clients bound)")
		return 2
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "proxyload: %v\n", err)
			return 2
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memProfile)
			if err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	rows, err := parseRows(*rowsFlag)
	if err != nil {
		fmt.Fprintf(stderr, "proxyload: %v\n", err)
		return 2
	}
	t := &benchtable.Table{}
	if *soakFor > 0 {
		err = soak(context.Background(), *soakFor, *soakEvery, *soakClients, t, stderr)
	} else {
		err = measure(context.Background(), *requests, *loops, *conns, *livePage, rows, t, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxyload: %v\n", err)
		return 1
	}
	t.Print(stdout)
	return 0
}

// rowNames returns the -rows a run may name.
func rowNames() []string { return []string{"mem", "c50p16", "c50p1", "c1p16", "c1p1", "loop"} }

// parseRows reads -rows: the set of rowNames to run ("all": every one).
func parseRows(s string) (map[string]bool, error) {
	rows := map[string]bool{}
	for _, r := range strings.Split(s, ",") {
		r = strings.TrimSpace(r)
		switch {
		case r == "all":
			for _, n := range rowNames() {
				rows[n] = true
			}
		case slices.Contains(rowNames(), r):
			rows[r] = true
		default:
			return nil, fmt.Errorf("-rows: %q is none of all, %s", r, strings.Join(rowNames(), ", "))
		}
	}
	return rows, nil
}

func measure(ctx context.Context, requests, loops, conns int, withPage bool, rows map[string]bool, t *benchtable.Table, log io.Writer) error {
	rs, err := redistest.Launch("")
	if err != nil {
		return err
	}
	defer rs.Stop()
	if rows["mem"] {
		if err := memPerEvent(ctx, rs.URL, t); err != nil {
			return err
		}
	}
	p, err := proxy.Start(ctx, proxy.Config{Listen: "127.0.0.1:0", RedisURL: rs.URL, Locks: "lock:*", MaxClients: conns + 60, TraceSize: 20000})
	if err != nil {
		return err
	}
	defer p.Close()
	pageState := "the live page open (a websocket reading every message)"
	var page *livePage
	if withPage {
		if page, err = openLivePage(ctx, p); err != nil {
			return err
		}
		defer page.close()
	} else {
		pageState = "NO live page (-live=false)"
	}
	t.Header = []string{fmt.Sprintf("proxy (package proxy) in front of redis-server on %s; %s, GOMAXPROCS %d; %s", rs.Addr, runtime.Version(), runtime.GOMAXPROCS(0), pageState)}
	if err := pipelines(ctx, rs.Addr, p.Addr(), requests, rows, t, log); err != nil {
		return err
	}
	if rows["loop"] {
		if err := lockLoops(ctx, rs.Addr, p.Addr(), loops, t, log); err != nil {
			return err
		}
	}
	if page != nil {
		t.Add("P2", "the live page during P1 and P2", page.stats(), "", "", "report", "-")
	}
	if rows["mem"] {
		return memPerConn(p.Addr(), conns, t)
	}
	return nil
}

// memPerEvent adds P3: heap per traced event.
func memPerEvent(ctx context.Context, redisURL string, t *benchtable.Table) error {
	// 0. Memory per traced event, first, in a process that has done
	// nothing else yet: a proxy of its own whose ring (10,000 events) the
	// lock loop fills, against the same proxy empty, after two collections.
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const ring = 10000
	p2, err := proxy.Start(ctx, proxy.Config{Listen: "127.0.0.1:0", RedisURL: redisURL, Locks: "lock:*", TraceSize: ring})
	if err != nil {
		return err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	empty := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if _, err := lockLoop(ctx, p2.Addr(), ring/2); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond) // the lock reader catches up
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	full := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	events := len(p2.Snapshot().Events)
	t.Add("P3", fmt.Sprintf("heap per traced event (a ring of %d filled by the lock loop: commands and lock states; the ring's own slots included)", events),
		fmt.Sprintf("%d B", full/int64(events)), fmt.Sprintf("empty proxy %s", benchtable.MiB(uint64(max(empty, 0)))), "", "report", "-")
	p2.Close()
	return nil
}

// pipelines adds P1: redis-benchmark's rows named in rows, direct (at
// direct) and through the proxy (at via).
func pipelines(ctx context.Context, directAddr, viaAddr string, requests int, rows map[string]bool, t *benchtable.Table, log io.Writer) error {
	// 1. redis-benchmark, direct and through the proxy, interleaved
	// (direct, proxy, proxy, direct: a load that drifts during the pair
	// weighs on both sides alike), with -P 16 and -P 1: with 50 clients
	// (throughput: the proxy's CPU shares the two cores with redis-server
	// and redis-benchmark) and with one client (p50: what the proxy adds
	// to a round trip; with 50 clients p50 is queueing, up to 800 commands
	// in flight over the throughput).
	fmt.Fprintln(log, "proxyload: redis-benchmark")
	for _, run := range []struct {
		row                  string
		pipeline, clients, n int
	}{
		{"c50p16", 16, 50, requests}, {"c50p1", 1, 50, max(requests/5, 1)}, {"c1p16", 16, 1, max(requests/5, 1)}, {"c1p1", 1, 1, max(requests/20, 1)},
	} {
		if !rows[run.row] {
			continue
		}
		var direct, via []map[string]bench
		var proxyCPU, redisCPU time.Duration // over the runs through the proxy
		for round := range 2 {
			for i := range 2 {
				if (i == 0) != (round == 0) { // through the proxy
					self0, redis0 := selfCPU(), redisServerCPU(ctx, directAddr)
					v, err := benchmark(viaAddr, run.n, run.clients, run.pipeline)
					if err != nil {
						return err
					}
					proxyCPU += selfCPU() - self0
					redisCPU += redisServerCPU(ctx, directAddr) - redis0
					via = append(via, v)
					continue
				}
				d, err := benchmark(directAddr, run.n, run.clients, run.pipeline)
				if err != nil {
					return err
				}
				direct = append(direct, d)
			}
		}
		if run.clients == 50 && run.pipeline == 16 {
			cmds := float64(2 * 2 * run.n) // two runs of SET and GET
			t.Add("P1", fmt.Sprintf("CPU per command through the proxy, the %d-client -P %d runs (the proxy's process: forwarding, trace, lock reader, live page)", run.clients, run.pipeline),
				fmt.Sprintf("%.2f µs", float64(proxyCPU.Microseconds())/cmds), fmt.Sprintf("redis-server %.2f µs", float64(redisCPU.Microseconds())/cmds),
				fmt.Sprintf("%.1fx redis-server's", float64(proxyCPU)/float64(max(redisCPU, 1))), "report", "-")
		}
		for _, test := range []string{"SET", "GET"} {
			d, v := mean(direct, test), mean(via, test)
			ratio := v.rps / d.rps
			added := (v.p50 - d.p50) * 1000
			target, met := "≥ 0.5x", benchtable.Yes(ratio >= 0.5)
			if run.clients == 1 {
				target, met = "p50 added ≤ 100 µs", benchtable.Yes(added <= 100)
			}
			t.Add("P1", fmt.Sprintf("redis-benchmark -t %s -P %d -c %d -n %d, through the proxy (mean of 2, interleaved)", strings.ToLower(test), run.pipeline, run.clients, run.n),
				fmt.Sprintf("%.0f req/s, p50 %.3f ms", v.rps, v.p50), fmt.Sprintf("direct %.0f req/s, p50 %.3f ms", d.rps, d.p50),
				fmt.Sprintf("%.2fx throughput, p50 %+.0f µs", ratio, added), target, met)
		}
	}
	return nil
}

// lockLoops adds P2: the lock/unlock loop direct (at directAddr) and
// through the proxy (at viaAddr).
func lockLoops(ctx context.Context, directAddr, viaAddr string, loops int, t *benchtable.Table, log io.Writer) error {
	// 2. The lock/unlock loop, direct and through the proxy interleaved
	// in four rounds (direct first in two, the proxy first in the other
	// two).
	fmt.Fprintln(log, "proxyload: lock/unlock loop")
	var dl, vl loopResult
	for round := range 4 {
		for i := range 2 {
			addr, into := directAddr, &dl
			if (i == 0) != (round%2 == 0) {
				addr, into = viaAddr, &vl
			}
			self0, csw0, redis0 := selfCPU(), selfSwitches(), redisServerCPU(ctx, directAddr)
			r, err := lockLoop(ctx, addr, max(loops/4, 1))
			if err != nil {
				return err
			}
			into.cpu += selfCPU() - self0
			into.switches += selfSwitches() - csw0
			into.redisCPU += redisServerCPU(ctx, directAddr) - redis0
			into.total += r.total
			into.times = append(into.times, r.times...)
		}
	}
	pairs := len(dl.times)
	dp50, vp50 := dl.p50(), vl.p50()
	ratio := float64(dl.total) / float64(vl.total)
	added := vp50 - dp50
	t.Add("P2", fmt.Sprintf("lock/unlock loop, %d pairs (SET NX PX + EVALSHA release on lock:bench), through the proxy (4 rounds, interleaved)", pairs),
		fmt.Sprintf("%.0f pairs/s, p50 %s", float64(pairs)/vl.total.Seconds(), us(vp50)),
		fmt.Sprintf("direct %.0f pairs/s, p50 %s", float64(pairs)/dl.total.Seconds(), us(dp50)),
		fmt.Sprintf("%.2fx throughput, p50 +%s per pair", ratio, us(added)), "≥ 0.5x, p50 added ≤ 100 µs per command",
		benchtable.Yes(ratio >= 0.5 && added <= 200*time.Microsecond))
	perPair := func(d time.Duration) string { return us(d / time.Duration(pairs)) }
	t.Add("P2", "the lock/unlock loop's cost a pair: this process's CPU (the loop's client, and the proxy's forwarding, trace, analyzer and live page), its voluntary context switches (a thread that blocked: each a wake-up), redis-server's CPU",
		fmt.Sprintf("%s, %.1f switches, redis %s", perPair(vl.cpu), float64(vl.switches)/float64(pairs), perPair(vl.redisCPU)),
		fmt.Sprintf("direct %s, %.1f switches, redis %s", perPair(dl.cpu), float64(dl.switches)/float64(pairs), perPair(dl.redisCPU)),
		fmt.Sprintf("+%s CPU, %+.1f switches, redis %+s", perPair(vl.cpu-dl.cpu), float64(vl.switches-dl.switches)/float64(pairs), perPair(vl.redisCPU-dl.redisCPU)), "report", "-")
	return nil
}

// memPerConn adds P4: heap per client connection of the proxy at addr.
func memPerConn(addr string, conns int, t *benchtable.Table) error {
	// 4. Memory per client connection: raw connections that each sent a PING.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var open []net.Conn
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		open = append(open, c)
		if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
			return err
		}
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			return err
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perConn := func(a, b uint64) string {
		return fmt.Sprintf("%.1f KiB", float64(int64(a)-int64(b))/float64(conns)/1024)
	}
	t.Add("P4", fmt.Sprintf("heap per client connection (%d connections that sent a PING: on the shared upstream connections, with no upstream connection of their own)", conns),
		perConn(after.HeapAlloc, before.HeapAlloc), "goroutine stacks "+perConn(after.StackInuse, before.StackInuse), "", "report", "-")
	for _, c := range open {
		c.Close()
	}
	return nil
}

type bench struct{ rps, p50 float64 } // req/s, ms

// mean averages runs' figures for test.
func mean(runs []map[string]bench, test string) bench {
	var b bench
	for _, r := range runs {
		b.rps += r[test].rps / float64(len(runs))
		b.p50 += r[test].p50 / float64(len(runs))
	}
	return b
}

// benchmark runs redis-benchmark -t set,get -P pipeline -c clients against
// addr.
func benchmark(addr string, n, clients, pipeline int) (map[string]bench, error) {
	host, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command("redis-benchmark", "-h", host, "-p", port, "-t", "set,get", "-P", strconv.Itoa(pipeline), "-c", strconv.Itoa(clients),
		"-n", strconv.Itoa(n), "--csv").Output()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark (Debian's redis-tools; make deps installs it): %w", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark output: %w", err)
	}
	res := map[string]bench{}
	for _, r := range rows[1:] {
		if len(r) < 5 {
			continue
		}
		rps, _ := strconv.ParseFloat(r[1], 64)
		p50, _ := strconv.ParseFloat(r[4], 64)
		res[r[0]] = bench{rps, p50}
	}
	if _, ok := res["SET"]; !ok {
		return nil, fmt.Errorf("redis-benchmark printed no SET row: %q", out)
	}
	return res, nil
}

// loopResult is a lock loop's wall time and each pair's round trip; cpu,
// switches and redisCPU are what lockLoops measured around its runs (this
// process's CPU and voluntary context switches, redis-server's CPU).
type loopResult struct {
	total time.Duration
	times []time.Duration

	cpu, redisCPU time.Duration
	switches      int64
}

// p50 is the median pair.
func (r loopResult) p50() time.Duration {
	if len(r.times) == 0 {
		return 0
	}
	s := slices.Clone(r.times)
	slices.Sort(s)
	return s[len(s)/2]
}

const releaseLua = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

// lockLoop acquires and releases lock:bench n times over one connection.
func lockLoop(ctx context.Context, addr string, n int) (loopResult, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1, DisableIdentity: true})
	defer c.Close()
	sha, err := c.ScriptLoad(ctx, releaseLua).Result()
	if err != nil {
		return loopResult{}, err
	}
	times := make([]time.Duration, n)
	start := time.Now()
	for i := range n {
		t0 := time.Now()
		token := strconv.Itoa(i)
		if err := c.SetNX(ctx, "lock:bench", token, 10*time.Second).Err(); err != nil {
			return loopResult{}, err
		}
		if err := c.EvalSha(ctx, sha, []string{"lock:bench"}, token).Err(); err != nil {
			return loopResult{}, err
		}
		times[i] = time.Since(t0)
	}
	return loopResult{total: time.Since(start), times: times}, nil
}

// selfCPU is the CPU time this process has used (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfSwitches is how many times this process's threads blocked
// (voluntary context switches: each wait for a socket, a futex or a timer).
func selfSwitches() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Nvcsw
}

// redisServerCPU is the CPU time redis-server at addr has used (INFO cpu:
// used_cpu_user and used_cpu_sys; its main thread and its others).
func redisServerCPU(ctx context.Context, addr string) time.Duration {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1, DisableIdentity: true})
	defer c.Close()
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
			f, _ := strconv.ParseFloat(v, 64)
			total += f
		}
	}
	return time.Duration(total * float64(time.Second))
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
