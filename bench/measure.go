package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"lockstep/backend"
	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/web"
)

// course returns the course's lessons that run on a single server: a
// lesson with a replica starts its own pair of redis-server processes, and
// one with nodes its own nodes, and would measure process start-up, not
// steps.
func course() ([]*sim.Lesson, error) {
	all, err := lessons.All()
	if err != nil {
		return nil, fmt.Errorf("bench: lessons: %w", err)
	}
	var out []*sim.Lesson
	for _, l := range all {
		if !l.Replica && l.Nodes == 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// stats summarises a sample of durations.
type stats struct {
	n             int
	p50, p99, max time.Duration
	mean          time.Duration
}

func summarize(d []time.Duration) stats {
	if len(d) == 0 {
		return stats{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return stats{n: len(s), p50: at(0.50), p99: at(0.99), max: s[len(s)-1], mean: sum / time.Duration(len(s))}
}

// server is a web.Server behind a loopback listener, with a websocket echo
// endpoint on the same listener for the floor.
type server struct {
	web *web.Server
	hs  *httptest.Server
	ws  string // ws://127.0.0.1:PORT
	// canned is what the /canned endpoint answers each message with: a
	// recorded step frame message (cannedRoundTrips sets it).
	canned atomic.Pointer[[]byte]
}

func startServer(be *backend.Backend, ls []*sim.Lesson, maxSessions int, idle time.Duration, opts ...func(*web.Config)) (*server, error) {
	s := &server{}
	cfg := web.Config{
		Backend: web.RedisBackend(be), Lessons: ls, MaxSessions: maxSessions, IdleTimeout: idle,
		// The benchmark clients step as fast as the server answers, far
		// above what a person sends; the rate limit is not what is measured.
		MessageRate: 1e9, MessageBurst: 1 << 30,
		// Every client is on loopback, and each steps back to back: neither
		// the per-address bound nor the fair share is what is measured.
		MaxSessionsPerAddr: maxSessions, FairRate: 1e9, FairBurst: 1 << 30,
		Limits: web.Limits{SessionReserve: -1},
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := web.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("bench: web server: %w", err)
	}
	s.web = srv
	up := websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 8192}
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	// answer serves a websocket that answers each message with what reply
	// returns for it, until reply has nothing to send.
	answer := func(reply func(typ int, data []byte) (int, []byte, bool)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			c, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer c.Close()
			for {
				typ, data, err := c.ReadMessage()
				if err != nil {
					return
				}
				typ, data, ok := reply(typ, data)
				if !ok || c.WriteMessage(typ, data) != nil {
					return
				}
			}
		}
	}
	mux.HandleFunc("/echo", answer(func(typ int, data []byte) (int, []byte, bool) { return typ, data, true }))
	// /canned answers each message with the recorded frame message: a step
	// round trip with none of the step's work, only its message.
	mux.HandleFunc("/canned", answer(func(int, []byte) (int, []byte, bool) {
		msg := s.canned.Load()
		if msg == nil {
			return 0, nil, false
		}
		return websocket.TextMessage, *msg, true
	}))
	s.hs = httptest.NewServer(mux)
	s.ws = "ws" + strings.TrimPrefix(s.hs.URL, "http")
	return s, nil
}

func (s *server) close() {
	s.hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.web.Close(ctx)
}

// dialer offers permessage-deflate, as browsers do; the player answers a
// loopback peer with plain frames all the same (webnet/compress.go).
var dialer = &websocket.Dialer{HandshakeTimeout: 30 * time.Second, EnableCompression: true}

// wsClient is a protocol client that reads every message the server sends.
type wsClient struct {
	conn *websocket.Conn
	// frames and frameBytes count the frame messages read and their size;
	// steps and stepBytes those that answered a step (stepLesson).
	frames, frameBytes int
	steps, stepBytes   int
	lastMsg            []byte // the last frame message read
	typical            []byte // a step message of about the mean size: the one nearest the running mean (stepLesson)
	// pace is how long the client waits before each step, as a reader
	// does; 0 steps back to back.
	pace time.Duration
}

func dial(url string) (*wsClient, error) {
	c, resp, err := dialer.Dial(url, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("bench: dial %s: %w", url, err)
	}
	return &wsClient{conn: c}, nil
}

type reply struct {
	Type    string `json:"type"`
	Step    int    `json:"step"`
	Total   int    `json:"total"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// errReply is a server error message.
type errReply struct{ r reply }

func (e *errReply) Error() string { return "bench: server error " + e.r.Code + ": " + e.r.Message }

// call sends msg and returns the first frame, state or error message.
func (c *wsClient) call(msg string) (reply, error) {
	_ = c.conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		return reply{}, fmt.Errorf("bench: send: %w", err)
	}
	return c.next()
}

func (c *wsClient) next() (reply, error) {
	for {
		_ = c.conn.SetReadDeadline(time.Now().Add(120 * time.Second))
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return reply{}, fmt.Errorf("bench: read: %w", err)
		}
		var r reply
		if err := json.Unmarshal(data, &r); err != nil {
			return reply{}, fmt.Errorf("bench: decode: %w", err)
		}
		switch r.Type {
		case web.MsgHello:
			continue
		case web.MsgError:
			return r, &errReply{r}
		case web.MsgFrame:
			c.frames++
			c.frameBytes += len(data)
			c.lastMsg = data
		}
		return r, nil
	}
}

// stepLesson loads l and steps to its end, timing each step from send to
// frame; the times are appended to out.
func (c *wsClient) stepLesson(l *sim.Lesson, out *[]time.Duration) error {
	if _, err := c.call(`{"type":"load","lesson":"` + l.ID + `"}`); err != nil {
		return fmt.Errorf("bench: load %s: %w", l.ID, err)
	}
	for i := 1; i <= len(l.Steps); i++ {
		if c.pace > 0 {
			time.Sleep(c.pace)
		}
		t0 := time.Now()
		r, err := c.call(`{"type":"step"}`)
		d := time.Since(t0)
		if err != nil {
			return fmt.Errorf("bench: %s step %d: %w", l.ID, i, err)
		}
		if r.Type != web.MsgFrame || r.Step != i {
			return fmt.Errorf("bench: %s step %d: got %s at step %d", l.ID, i, r.Type, r.Step)
		}
		*out = append(*out, d)
		c.steps++
		c.stepBytes += len(c.lastMsg)
		// Keep the step message nearest the mean size so far (the mean
		// settles within a pass), for the round trip of a step's message
		// alone (cannedRoundTrips).
		mean := c.stepBytes / c.steps
		if c.typical == nil || abs(len(c.lastMsg)-mean) < abs(len(c.typical)-mean) {
			c.typical = bytes.Clone(c.lastMsg)
		}
	}
	return nil
}

func abs(n int) int { return max(n, -n) }

// withoutHTML is frame message msg without its panels' HTML and its
// timeline patch: the frame's data and the message's small fields.
func withoutHTML(msg []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("bench: recorded frame message: %w", err)
	}
	delete(m, "panels")
	delete(m, "timeline_patch")
	return json.Marshal(m)
}

// cannedRoundTrips times n round trips of a step message to the /canned
// endpoint of s, which answers with msg at once, waiting pace before each;
// the answer is decoded as a step's is. It is a step round trip with the
// step's message and none of its work.
func cannedRoundTrips(s *server, msg []byte, n int, pace time.Duration) ([]time.Duration, error) {
	s.canned.Store(&msg)
	c, err := dial(s.ws + "/canned")
	if err != nil {
		return nil, err
	}
	defer c.conn.Close()
	return timed(n, pace, func() error {
		r, err := c.call(`{"type":"step"}`)
		if err == nil && r.Type != web.MsgFrame {
			err = fmt.Errorf("bench: canned reply is a %q message", r.Type)
		}
		return err
	})
}

// timed times n calls of op, waiting pace before each (0: back to back),
// and stops at the first error.
func timed(n int, pace time.Duration, op func() error) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		if pace > 0 {
			time.Sleep(pace)
		}
		t0 := time.Now()
		if err := op(); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// steps is what stepRoundTrips measured.
type steps struct {
	times    []time.Duration
	stepSize int    // a step's frame message, mean bytes
	loadSize int    // a load's frame message (every panel whole), mean bytes
	typical  []byte // the step frame message nearest the mean size
}

// stepRoundTrips steps one websocket client through every lesson rounds
// times, waiting pace before each step (0: back to back).
func stepRoundTrips(s *server, ls []*sim.Lesson, rounds int, pace time.Duration) (steps, error) {
	c, err := dial(s.ws + "/ws")
	if err != nil {
		return steps{}, err
	}
	c.pace = pace
	defer c.conn.Close()
	var out []time.Duration
	for r := 0; r < rounds; r++ {
		for _, l := range ls {
			if err := c.stepLesson(l, &out); err != nil {
				return steps{}, err
			}
		}
	}
	return steps{out, c.stepBytes / max(1, c.steps), (c.frameBytes - c.stepBytes) / max(1, c.frames-c.steps), c.typical}, nil
}

// echoRoundTrips times n round trips of a step-sized client message through
// the websocket echo endpoint of s, waiting pace before each.
func echoRoundTrips(s *server, n int, pace time.Duration) ([]time.Duration, error) {
	c, err := dial(s.ws + "/echo")
	if err != nil {
		return nil, err
	}
	defer c.conn.Close()
	msg := []byte(`{"type":"step"}`)
	return timed(n, pace, func() error {
		if err := c.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
			return fmt.Errorf("bench: echo send: %w", err)
		}
		if _, _, err := c.conn.ReadMessage(); err != nil {
			return fmt.Errorf("bench: echo read: %w", err)
		}
		return nil
	})
}

// pingRoundTrips times n PINGs on c, waiting pace before each.
func pingRoundTrips(ctx context.Context, c *redis.Client, n int, pace time.Duration) ([]time.Duration, error) {
	return timed(n, pace, func() error {
		if err := c.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("bench: PING: %w", err)
		}
		return nil
	})
}

// realClient is a go-redis client with one connection to addr, configured
// as the backend configures its own.
func realClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1, MaxRetries: 0})
}

// miniClient is a go-redis client of a fresh miniredis reached through
// Dial, as the embedded backend reaches its own.
func miniClient() (*miniredis.Miniredis, *redis.Client) {
	m := miniredis.NewMiniRedis()
	c := redis.NewClient(&redis.Options{Addr: "miniredis", Protocol: 2, DisableIdentity: true, PoolSize: 1,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		Dialer:                   func(context.Context, string, string) (net.Conn, error) { return m.Dial() }})
	return m, c
}

// evalShaLoop times n EVALSHA calls of the script on c (loaded first):
// the ceiling of any lock call over one connection.
func evalShaLoop(ctx context.Context, c *redis.Client, sc *sim.Script, call sim.Call, n int) (time.Duration, error) {
	sha, err := c.ScriptLoad(ctx, sc.Source).Result()
	if err != nil {
		return 0, fmt.Errorf("bench: SCRIPT LOAD %s: %w", sc.Name, err)
	}
	args := make([]any, len(call.Args))
	for i, a := range call.Args {
		args[i] = a
	}
	keys := []string{"lockstep:bench:ceiling:" + sc.Name + ":" + call.Keys[0]}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if err := c.EvalSha(ctx, sha, keys, args...).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return 0, fmt.Errorf("bench: EVALSHA %s: %w", sc.Name, err)
		}
	}
	d := time.Since(t0)
	_ = c.Del(ctx, keys...).Err()
	return d, nil
}

// lockPairs times n nests of a lock through Lockstep's own path: every call
// LockCalls returns is one Store.Exec, as a lesson step sends it (on a real
// Redis: MULTI, TIME, EVALSHA, TIME, EXEC in one round trip). It returns
// the time and the calls per nest.
func lockPairs(ctx context.Context, be *backend.Backend, variant string, depth, n int) (time.Duration, int, error) {
	calls, err := sim.LockCalls(variant, "bench", "t-bench", 30000, depth)
	if err != nil {
		return 0, 0, err
	}
	st, err := be.NewStore()
	if err != nil {
		return 0, 0, err
	}
	defer st.Close(context.WithoutCancel(ctx))
	batches := make([]*sim.Batch, len(calls))
	for i := range calls {
		batches[i] = &sim.Batch{Calls: calls[i : i+1]}
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		for _, b := range batches {
			res, err := st.Exec(ctx, b)
			if err != nil {
				return 0, 0, fmt.Errorf("bench: %s: %w", variant, err)
			}
			if r := res.Replies[0]; r.Kind == sim.ReplyError {
				return 0, 0, fmt.Errorf("bench: %s %s: error reply %s", variant, b.Calls[0].Script.Name, r)
			}
		}
	}
	return time.Since(t0), len(calls), nil
}

// timingStore is a sim.Store that times the Exec calls of the one below
// and counts the script calls they carry.
type timingStore struct {
	sim.Store
	exec  time.Duration
	calls int
}

func (t *timingStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	t0 := time.Now()
	r, err := t.Store.Exec(ctx, b)
	t.exec += time.Since(t0)
	t.calls += len(b.Calls)
	return r, err
}

// runnerWork is what runnerCost measured.
type runnerWork struct {
	steps   []time.Duration // each sim.Runner.Step
	calls   []int           // the script calls each step sent (its Store.Exec batches' calls)
	perExec time.Duration   // the Store.Exec share, per step
}

// tail describes the steps at or above the p99 (as summarize takes it:
// the sorted times from index int(0.99*n) on): how many they are and the
// fewest and most script calls one of them sent; and the p99 of the steps
// that sent at most one script call, which leaves out the steps that run
// several (a watchdog's renewals during a time advance).
func (w runnerWork) tail() (n, fewest, most int, singleP99 time.Duration) {
	idx := make([]int, len(w.steps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(w.steps[a], w.steps[b]) })
	var single []time.Duration
	for _, i := range idx {
		if w.calls[i] <= 1 {
			single = append(single, w.steps[i])
		}
	}
	fewest = -1
	for _, i := range idx[int(0.99*float64(len(idx))):] {
		n++
		if fewest < 0 || w.calls[i] < fewest {
			fewest = w.calls[i]
		}
		most = max(most, w.calls[i])
	}
	return n, max(0, fewest), most, summarize(single).p99
}

// runnerCost runs every lesson rounds times on be without the web layer,
// one sim.Runner.Step at a time, and returns each step's time and script
// calls, and the time per step of the Store.Exec calls inside them.
func runnerCost(ctx context.Context, be *backend.Backend, ls []*sim.Lesson, rounds int) (runnerWork, error) {
	var w runnerWork
	var exec time.Duration
	for r := 0; r < rounds; r++ {
		for _, l := range ls {
			st, err := be.NewStore()
			if err != nil {
				return w, err
			}
			ts := &timingStore{Store: st}
			run, err := sim.NewRunner(l, ts)
			if err != nil {
				st.Close(ctx)
				return w, err
			}
			for !run.Done() {
				calls := ts.calls
				t0 := time.Now()
				_, err = run.Step(ctx)
				w.steps = append(w.steps, time.Since(t0))
				w.calls = append(w.calls, ts.calls-calls)
				if err != nil {
					break
				}
			}
			exec += ts.exec
			st.Close(ctx)
			if err != nil {
				return w, fmt.Errorf("bench: %s: %w", l.ID, err)
			}
		}
	}
	w.perExec = exec / time.Duration(max(1, len(w.steps)))
	return w, nil
}

// memSample is the process's memory and goroutines at one moment.
type memSample struct {
	rss, heap  uint64 // bytes: resident set, live heap (HeapAlloc)
	goroutines int
}

func sampleMem() memSample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSample{rss: procStatus("VmRSS"), heap: ms.HeapAlloc, goroutines: runtime.NumGoroutine()}
}

// settledMem collects garbage, returns freed memory to the OS, and samples.
func settledMem() memSample {
	runtime.GC()
	runtime.GC() // a second cycle empties the sync.Pools' victim caches
	debug.FreeOSMemory()
	return sampleMem()
}

// procStatus reads a kB field of /proc/self/status, in bytes (0 when the
// file or field is missing).
func procStatus(field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n * 1024
		}
	}
	return 0
}

// loadResult is what the many-sessions run measured.
type loadResult struct {
	sessions, errors, reclaimed int
	steps                       stats
	peakRSS                     uint64
	peakGoroutines              int
	cold, base, after           memSample // before any load, after the warm-up load, after the measured one
	reclaimWait                 time.Duration
}

// manySessions opens n websocket sessions on a fresh embedded server, each
// loading a lesson (round robin) and stepping it to the end at once, all
// concurrently; then leaves them idle until the server reclaims them after
// idle, and measures memory against the baseline taken before.
func manySessions(n int, idle time.Duration, ls []*sim.Lesson) (loadResult, error) {
	var res loadResult
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		return res, err
	}
	s, err := startServer(be, ls, n+10, idle)
	if err != nil {
		return res, err
	}
	defer s.close()
	res.cold = settledMem()
	// Warm up with the same load, the clients then closing themselves: Go
	// maps and pools that grow under 1,000 sessions stay grown, once. The
	// baseline is taken after it, so that what is compared is what a load
	// leaves behind.
	wc, _, werrs := sessionsLoad(s, n, ls)
	for _, c := range wc {
		if c != nil {
			c.conn.Close()
		}
	}
	if len(werrs) > 0 {
		return res, fmt.Errorf("bench: warm-up: %d of %d sessions failed, first: %w", len(werrs), n, werrs[0])
	}
	for s.web.Sessions() > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	wc = nil
	res.base = settledMem()
	// The peak resident set of what follows: reset the kernel's high-water
	// mark (VmHWM) when it lets us, and sample VmRSS besides.
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	var peakG atomic.Int64
	var peakRSS atomic.Uint64
	stop := make(chan struct{})
	var samplerDone sync.WaitGroup
	samplerDone.Add(1)
	go func() {
		defer samplerDone.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if g := int64(runtime.NumGoroutine()); g > peakG.Load() {
				peakG.Store(g)
			}
			if r := procStatus("VmRSS"); r > peakRSS.Load() {
				peakRSS.Store(r)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	clients, lat, errs := sessionsLoad(s, n, ls)
	close(stop)
	samplerDone.Wait()
	res.sessions, res.errors, res.steps = n, len(errs), summarize(lat)
	res.peakRSS = max(peakRSS.Load(), procStatus("VmHWM"))
	res.peakGoroutines = int(peakG.Load())
	// Idle: the server closes every session after idle (code 4000).
	t0 := time.Now()
	var reclaimed atomic.Int64
	var rg sync.WaitGroup
	for _, c := range clients {
		if c == nil {
			continue
		}
		rg.Add(1)
		go func(c *wsClient) {
			defer rg.Done()
			defer c.conn.Close()
			_ = c.conn.SetReadDeadline(time.Now().Add(idle + 2*time.Minute))
			for {
				_, _, err := c.conn.ReadMessage()
				var ce *websocket.CloseError
				if errors.As(err, &ce) && ce.Code == web.CloseIdle {
					reclaimed.Add(1)
					return
				}
				if err != nil {
					return
				}
			}
		}(c)
	}
	rg.Wait()
	for s.web.Sessions() > 0 && time.Since(t0) < idle+2*time.Minute {
		time.Sleep(10 * time.Millisecond)
	}
	res.reclaimWait = time.Since(t0)
	res.reclaimed = int(reclaimed.Load())
	// Drop the clients' side (their closed connections keep buffers) so
	// that what is measured is what the server keeps.
	for i := range clients {
		clients[i] = nil
	}
	lat = nil
	// Let closed connections' goroutines finish before the last sample.
	for i := 0; i < 100 && runtime.NumGoroutine() > res.base.goroutines; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	res.after = settledMem()
	if len(errs) > 0 {
		return res, fmt.Errorf("bench: %d of %d sessions failed, first: %w", len(errs), n, errs[0])
	}
	return res, nil
}

// faultResult is what the Redis-fault run measured.
type faultResult struct {
	errCode        string        // the code of the error the failed step answered
	errAnswer      time.Duration // from sending the step to its error message
	otherServed    bool          // another session's back was answered while Redis was down
	healthz        bool          // /healthz answered ok while Redis was down
	resume         time.Duration // from the restart to the lesson's next frame
	retries        int           // steps that failed after the restart before one ran
	keys, noTTL    int           // keys of ours seen after the resume, and those without a TTL
	keysAfterClose int           // keys of ours left after the sessions closed
}

// redisFault runs two sessions of lessons on the real Redis rs, kills rs in
// the middle, steps, restarts rs on the same port and steps until the
// lesson resumes; then checks every key of ours for a TTL.
func redisFault(ctx context.Context, rs interface {
	Stop()
	Relaunch() error
}, url string, ls []*sim.Lesson) (faultResult, error) {
	var res faultResult
	be, err := backend.Open(ctx, backend.Config{URL: url})
	if err != nil {
		return res, err
	}
	defer be.Close()
	s, err := startServer(be, ls, 10, time.Hour)
	if err != nil {
		return res, err
	}
	defer s.close()
	a, err := dial(s.ws + "/ws")
	if err != nil {
		return res, err
	}
	defer a.conn.Close()
	b, err := dial(s.ws + "/ws")
	if err != nil {
		return res, err
	}
	defer b.conn.Close()
	if _, err := a.call(`{"type":"load","lesson":"stale-owner","step":1}`); err != nil {
		return res, err
	}
	if _, err := b.call(`{"type":"load","lesson":"nested-reentry","step":2}`); err != nil {
		return res, err
	}
	rs.Stop()
	t0 := time.Now()
	_, err = a.call(`{"type":"step"}`)
	res.errAnswer = time.Since(t0)
	var er *errReply
	if !errors.As(err, &er) {
		return res, fmt.Errorf("bench: step with Redis down answered %v, want an error message", err)
	}
	res.errCode = er.r.Code
	if r, err := a.next(); err != nil || r.Type != web.MsgFrame || r.Step != 1 {
		return res, fmt.Errorf("bench: after the failed step: %+v %v, want the frame of step 1", r, err)
	}
	if r, err := b.call(`{"type":"back"}`); err == nil && r.Type == web.MsgFrame && r.Step == 1 {
		res.otherServed = true
	}
	if resp, err := http.Get(s.hs.URL + "/healthz"); err == nil {
		res.healthz = resp.StatusCode == http.StatusOK
		resp.Body.Close()
	}
	if err := rs.Relaunch(); err != nil {
		return res, err
	}
	t0 = time.Now()
	for {
		r, err := a.call(`{"type":"step"}`)
		if errors.As(err, &er) && er.r.Code == web.ErrCodeRedis {
			res.retries++
			if _, err := a.next(); err != nil { // the frame of step 1 again
				return res, err
			}
			if res.retries > 500 {
				return res, fmt.Errorf("bench: lesson did not resume after 500 tries: %w", err)
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != nil {
			return res, err
		}
		if r.Type != web.MsgFrame || r.Step != 2 {
			return res, fmt.Errorf("bench: resume: %+v, want the frame of step 2", r)
		}
		break
	}
	res.resume = time.Since(t0)
	if _, err := b.call(`{"type":"step"}`); err != nil {
		return res, fmt.Errorf("bench: other session after the restart: %w", err)
	}
	rc := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0"), Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	keys, err := rc.Keys(ctx, backend.KeyNamespace+"*").Result()
	if err != nil {
		return res, fmt.Errorf("bench: KEYS: %w", err)
	}
	res.keys = len(keys)
	for _, k := range keys {
		if ttl, err := rc.PTTL(ctx, k).Result(); err != nil || ttl < 0 {
			res.noTTL++
		}
	}
	a.conn.Close()
	b.conn.Close()
	for i := 0; i < 500 && s.web.Sessions() > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	left, err := rc.Keys(ctx, backend.KeyNamespace+"*").Result()
	if err != nil {
		return res, fmt.Errorf("bench: KEYS: %w", err)
	}
	res.keysAfterClose = len(left)
	return res, nil
}

// plainPairs times n nests of a lock as a client library would make them:
// each call LockCalls returns as one EVALSHA (redis.Script.Run) on c, with
// no transaction around it.
func plainPairs(ctx context.Context, c *redis.Client, variant string, n int) (time.Duration, error) {
	calls, err := sim.LockCalls(variant, "bench", "t-bench", 30000, 1)
	if err != nil {
		return 0, err
	}
	type prepared struct {
		sc   *redis.Script
		keys []string
		args []any
	}
	ps := make([]prepared, len(calls))
	for i, cl := range calls {
		p := prepared{sc: redis.NewScript(cl.Script.Source)}
		for _, k := range cl.Keys {
			p.keys = append(p.keys, "lockstep:bench:plain:"+variant+":"+k)
		}
		for _, a := range cl.Args {
			p.args = append(p.args, a)
		}
		ps[i] = p
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		for _, p := range ps {
			if err := p.sc.Run(ctx, c, p.keys, p.args...).Err(); err != nil && !errors.Is(err, redis.Nil) {
				return 0, fmt.Errorf("bench: %s: %w", variant, err)
			}
		}
	}
	d := time.Since(t0)
	for _, p := range ps {
		_ = c.Del(ctx, p.keys...).Err()
	}
	return d, nil
}

// sessionsLoad opens n sessions on s, all before any steps, then has each
// load a lesson (round robin) and step it to the end, all at once. It
// returns the clients (nil where the dial failed), the step round trips and
// the errors.
func sessionsLoad(s *server, n int, ls []*sim.Lesson) ([]*wsClient, []time.Duration, []error) {
	var mu sync.Mutex
	var lat []time.Duration
	var errs []error
	clients := make([]*wsClient, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := dial(s.ws + "/ws")
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			clients[i] = c
			<-start
			var mine []time.Duration
			err = c.stepLesson(ls[i%len(ls)], &mine)
			mu.Lock()
			lat = append(lat, mine...)
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		}(i)
	}
	// Every session is open before any steps.
	for {
		mu.Lock()
		failed := len(errs)
		mu.Unlock()
		if s.web.Sessions()+failed >= n {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(start)
	wg.Wait()
	return clients, lat, errs
}
