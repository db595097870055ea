// Command classload measures classes (issue 20): it starts Lockstep server
// processes (bench/classserver: cli.Serve plus a memory probe), and from
// its own process, apart from the servers, a presenter and N students that
// speak the class protocol of docs/classroom.md over websockets. It prints
// one table, rows in the format of `go run ./bench` (`make bench` runs
// both):
//
//   - one server, 100, 1,000 and 10,000 students in one class: the
//     presenter's move to the last student's frame, p50 and p99 over the
//     moves (-steps, 50), and the server's memory per student (RSS and heap
//     after two collections, over the server with the presenter alone);
//   - three servers sharing classes through one redis-server
//     (-classroom-redis), 3,000 students spread over them, the presenter on
//     the first: the same p50 and p99; then 10,000 students answering one
//     question, counted by the presenter's server; then the third server
//     killed: its students reconnect to the next server of their list and
//     must land on the class's current step.
//
// Run it from the module's root: go run ./bench/classload [-sizes
// 100,1000,10000] [-steps 50] [-spread 3000] [-answers 10000] [-wire
// plain,deflate] [-reference OLD-CLASSSERVER] [-cpuprofile FILE]; with
// -reference every one-server row is measured with the code before too, in
// the same run, the two builds in turn.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"lockstep/internal/benchtable"
	"lockstep/internal/redistest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	sizes   []int
	steps   int
	spread  int
	answers int
	lesson  string
	target  time.Duration
	// cpuprofile: where the one-server rows' server writes its CPU
	// profile ("": none).
	cpuprofile string
	// reference: a classserver binary of the code before ("": none), run
	// in turn with this code's for every one-server row.
	reference string
	// wires: the one-server rows' connections, plain (false) and/or
	// deflated (true).
	wires []bool
	// perf: record the one-server rows' server with perf(1) over the
	// moves and report its CPU without the loopback's receive (perf.go).
	perf bool
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("classload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "100,1000,10000", "class sizes on one server, comma-separated (empty: none)")
	var o options
	fs.IntVar(&o.steps, "steps", 50, "presenter moves measured per class")
	fs.IntVar(&o.spread, "spread", 3000, "students spread over three servers for the step row (0: no three-server rows)")
	fs.IntVar(&o.answers, "answers", 10000, "students answering one question over three servers, and in the fault row (0: none)")
	fs.StringVar(&o.lesson, "lesson", "stale-owner", "the course lesson the class shows")
	wires := fs.String("wire", "plain", "the one-server rows' connections, comma-separated: plain (loopback's plain frames) and/or deflate (every connection offers permessage-deflate and says it is forwarded, X-Forwarded-For, so the server compresses as for a classroom's network)")
	fs.StringVar(&o.reference, "reference", "", "a bench/classserver binary built from the code before (go build -o FILE ./bench/classserver in a checkout of it): every one-server row is measured with it, then with this code, in the same run")
	fs.BoolVar(&o.perf, "perf", false, "record the one-server rows' server with perf(1) over the moves (needs perf and the right to attach to the server) and add a row of its CPU per student without the loopback's receive, which this kernel charges to the sender")
	cpuprofile := fs.String("cpuprofile", "", "the one-server rows' server writes a CPU profile of its run to this file (the last size's run is kept)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cpuprofile != "" {
		p, err := filepath.Abs(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "classload: flag -cpuprofile: %v\n", err)
			return 2
		}
		o.cpuprofile = p
	}
	for _, w := range strings.Split(*wires, ",") {
		switch strings.TrimSpace(w) {
		case "plain":
			o.wires = append(o.wires, false)
		case "deflate":
			o.wires = append(o.wires, true)
		default:
			fmt.Fprintf(stderr, "classload: flag -wire: %q is neither plain nor deflate\n", w)
			return 2
		}
	}
	if o.reference != "" {
		if _, err := os.Stat(o.reference); err != nil {
			fmt.Fprintf(stderr, "classload: flag -reference: %v\n", err)
			return 2
		}
	}
	for _, f := range strings.Split(*sizes, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "classload: flag -sizes: %q is not a class size\n", f)
			return 2
		}
		o.sizes = append(o.sizes, n)
	}
	if o.steps < 1 || (o.answers > 0 && o.answers < o.spread) {
		fmt.Fprintln(stderr, "classload: -steps must be at least 1, and -answers at least -spread")
		return 2
	}
	o.target = 250 * time.Millisecond
	t := &benchtable.Table{}
	err := measure(context.Background(), o, t, stderr)
	t.Print(stdout)
	if err != nil {
		fmt.Fprintf(stderr, "classload: %v\n", err)
		return 1
	}
	return 0
}

func measure(ctx context.Context, o options, t *benchtable.Table, log io.Writer) error {
	t.Header = append(t.Header, "lockstep classload, "+time.Now().UTC().Format("2006-01-02 15:04 MST"),
		fmt.Sprintf("machine: %d CPUs, %s/%s, %s; load average before: %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), loadavg()))
	dir, err := os.MkdirTemp("", "classload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := buildServer(dir)
	if err != nil {
		return err
	}
	builds := []struct{ name, bin string }{{"", bin}}
	if o.reference != "" {
		builds = []struct{ name, bin string }{{"the code before", o.reference}, {"this code", bin}}
	}
	for _, n := range o.sizes {
		for _, deflate := range o.wires {
			for _, b := range builds {
				dialer.EnableCompression = deflate
				if err := oneServer(ctx, b.bin, b.name, bin, n, o, t, log); err != nil {
					return fmt.Errorf("one server, %d students: %w", n, err)
				}
			}
		}
	}
	dialer.EnableCompression = false
	if o.spread > 0 {
		if err := threeServers(ctx, bin, o, t, log); err != nil {
			return fmt.Errorf("three servers: %w", err)
		}
	}
	t.Header = append(t.Header, "load average after: "+loadavg())
	return nil
}

func limits(n int) []string {
	m := strconv.Itoa(n + 200)
	// Every student is on loopback: no place is kept for new addresses.
	return []string{"-max-sessions", m, "-max-sessions-per-addr", m, "-session-reserve", "-1", "-idle-timeout", "2h"}
}

// oneServer: a class of n students on one server, bin's (build names it in
// the rows when not ""), over plain or deflated connections as dialer says;
// floorBin is this code's classserver, whose write floor it measures
// after.
func oneServer(ctx context.Context, bin, build, floorBin string, n int, o options, t *benchtable.Table, log io.Writer) error {
	srv, err := startServer(bin, o.cpuprofile, limits(n)...)
	if err != nil {
		return err
	}
	defer srv.stop()
	p, err := newPresenter(ctx, srv.base, o.lesson)
	if err != nil {
		return err
	}
	defer p.conn.Close()
	before, err := srv.memory()
	if err != nil {
		return err
	}
	room := newRoom(n)
	defer room.close()
	start := time.Now()
	if err := room.join(ctx, []string{srv.base}, p.code, 0, n); err != nil {
		return err
	}
	joined := time.Since(start)
	fmt.Fprintf(log, "classload: %d students joined in %s\n", n, joined.Round(time.Millisecond))
	user0, sys0, err := srv.cpuParts()
	if err != nil {
		return err
	}
	self0 := selfCPU()
	bytes0 := received.Load()
	var rec *perfRecord
	if o.perf {
		dir, err := os.MkdirTemp("", "classload-perf")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if rec, err = startPerf(srv.cmd.Process.Pid, dir); err != nil {
			return err
		}
	}
	lat, err := room.moves(ctx, p, o.steps)
	if err != nil {
		return err
	}
	user1, sys1, err := srv.cpuParts()
	if err != nil {
		return err
	}
	self1 := selfCPU()
	cpu0, cpu1 := user0+sys0, user1+sys1
	wire := float64(received.Load()-bytes0) / float64(len(lat)) / float64(n)
	after, err := srv.memory()
	if err != nil {
		return err
	}
	p50, p99 := pct(lat, 50), pct(lat, 99)
	sec := "C1"
	wireName := map[bool]string{true: "deflated", false: "plain"}[dialer.EnableCompression]
	label := fmt.Sprintf("one server, %d students, %s", n, wireName)
	if build != "" {
		label += ", " + build
	}
	t.Add(sec, fmt.Sprintf("%s: presenter's move to the last student's frame (%d moves; joins took %s)", label, len(lat), joined.Round(time.Millisecond)),
		fmt.Sprintf("p50 %s, p99 %s", ms(p50), ms(p99)), "-", "-", "p99 ≤ 250 ms", benchtable.Yes(p99 <= o.target))
	// CPU time, unlike the time to the last frame, hardly depends on what
	// else the machine runs: the figure to compare changes by.
	perMove := func(d time.Duration) time.Duration { return d / time.Duration(len(lat)) }
	perStudentMove := float64(perMove(cpu1-cpu0)) / float64(time.Microsecond) / float64(n)
	t.Add(sec, fmt.Sprintf("%s: CPU time per move (user and system; the server's includes its part of the loopback's TCP receive)", label),
		fmt.Sprintf("server %s (%.1f µs per student: user %.1f, system %.1f)", ms(perMove(cpu1-cpu0)), perStudentMove,
			float64(perMove(user1-user0))/float64(time.Microsecond)/float64(n), float64(perMove(sys1-sys0))/float64(time.Microsecond)/float64(n)),
		fmt.Sprintf("load generator %s", ms(perMove(self1-self0))), "-", "≤ 8 µs per student (issue 34)", benchtable.Yes(perStudentMove <= 8))
	if rec != nil {
		share, samples, err := rec.stop()
		if err != nil {
			return err
		}
		own := perStudentMove * (1 - share)
		t.Add(sec, fmt.Sprintf("%s: server CPU per student per move without the loopback's receive (perf over the moves: the share of the server's samples under net_rx_action, the students' TCP receive that loopback runs in the server's write)", label),
			fmt.Sprintf("%.1f µs", own), fmt.Sprintf("%.1f µs with it; receive %.1f%% of %d samples", perStudentMove, 100*share, samples), "-", "≤ 8 µs per student (issue 34)", benchtable.Yes(own <= 8))
	}
	room.close() // the floor's n connections fit under the same ulimit -n
	floor, err := writeFloor(ctx, floorBin, n, len(lat), int(wire+0.5))
	if err != nil {
		return err
	}
	floorUS := float64(floor) / float64(time.Microsecond)
	t.Add(sec, fmt.Sprintf("%s: server CPU per student per move against the floor, one write(2) of the same bytes per student and move to as many loopback sockets with nothing else (bench/classserver's write floor, run right after)", label),
		fmt.Sprintf("%.1f µs", perStudentMove), fmt.Sprintf("floor %.1f µs", floorUS), fmt.Sprintf("%.2fx", perStudentMove/floorUS), "-", "-")
	t.Add(sec, fmt.Sprintf("%s: bytes a student reads per move (frame and status, websocket framing; the presenter's reads counted too, 1/%d of it)", label, n),
		fmt.Sprintf("%.0f B (%.2f KiB)", wire, wire/1024), "-", "-", "≤ 2 KiB", benchtable.Yes(wire <= 2048))
	heapPer := perStudent(after.heap, before.heap, n)
	rssPer := perStudent(after.rss, before.rss, n)
	t.Add(sec, fmt.Sprintf("%s: memory per student over the presenter alone (after 2 GCs)", label),
		fmt.Sprintf("heap %.1f KiB, RSS %.1f KiB", heapPer/1024, rssPer/1024),
		fmt.Sprintf("heap %s → %s, RSS %s → %s, goroutines %d → %d", benchtable.MiB(before.heap), benchtable.MiB(after.heap), benchtable.MiB(before.rss), benchtable.MiB(after.rss), before.goroutines, after.goroutines),
		"-", "≤ 64 KiB", benchtable.Yes(heapPer <= 64<<10 && rssPer <= 64<<10))
	return nil
}

// threeServers: three servers on one redis-server; the spread, the answers
// and the fault.
func threeServers(ctx context.Context, bin string, o options, t *benchtable.Table, log io.Writer) error {
	rs, err := redistest.Launch("")
	if err != nil {
		return err
	}
	defer rs.Stop()
	total := max(o.answers, o.spread)
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	var bases []string
	for range 3 {
		s, err := startServer(bin, "", append(limits(total), "-classroom-redis", rs.URL)...)
		if err != nil {
			return err
		}
		servers = append(servers, s)
		bases = append(bases, s.base)
	}
	p, err := newPresenter(ctx, bases[0], o.lesson)
	if err != nil {
		return err
	}
	defer p.conn.Close()
	room := newRoom(total)
	defer room.close()
	if err := room.join(ctx, bases, p.code, 0, o.spread); err != nil {
		return err
	}
	lat, err := room.moves(ctx, p, o.steps)
	if err != nil {
		return err
	}
	p50, p99 := pct(lat, 50), pct(lat, 99)
	t.Add("C2", fmt.Sprintf("three servers, one redis-server, %d students spread, presenter on the first: move to the last student's frame (%d moves)", o.spread, len(lat)),
		fmt.Sprintf("p50 %s, p99 %s", ms(p50), ms(p99)), "-", "-", "p99 ≤ 250 ms", benchtable.Yes(p99 <= o.target))
	if o.answers == 0 {
		return nil
	}
	if err := room.join(ctx, bases, p.code, o.spread, o.answers); err != nil {
		return err
	}
	counted, want, took, err := room.answer(ctx, p)
	if err != nil {
		return err
	}
	t.Add("C2", fmt.Sprintf("three servers: %d students answer one question; the presenter's server counts", o.answers),
		fmt.Sprintf("counted %s in %s", counts(counted), took.Round(time.Millisecond)), "sent "+counts(want), "-", "exact", benchtable.Yes(equalCounts(counted, want)))
	// The fault: the third server dies; its students move to the next
	// server of their list.
	victims := room.on(2)
	servers[2].kill()
	servers = servers[:2]
	moved, landed, tookMove, err := room.rejoin(ctx, bases[:2], p, victims)
	if err != nil {
		return err
	}
	t.Add("C3", fmt.Sprintf("three servers, one killed (SIGKILL): its %d students reconnect to the next server of their list", len(victims)),
		fmt.Sprintf("%d rejoined in %s, %d on the current step", moved, tookMove.Round(time.Millisecond), landed), fmt.Sprintf("step %d", p.step.Load()), "-", "all on the current step", benchtable.Yes(moved == len(victims) && landed == moved))
	lat, err = room.moves(ctx, p, 5)
	if err != nil {
		return fmt.Errorf("after the fault: %w", err)
	}
	t.Add("C3", fmt.Sprintf("after the fault: %d students on two servers follow %d more moves", room.live(), len(lat)),
		fmt.Sprintf("p50 %s, max %s", ms(pct(lat, 50)), ms(slices.Max(lat))), "-", "-", "every student", "yes")
	return nil
}

func perStudent(after, before uint64, n int) float64 {
	if after < before {
		return 0
	}
	return float64(after-before) / float64(n)
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
