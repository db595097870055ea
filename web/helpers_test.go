package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
)

// testLessons is the course plus the lessons of testdata/ (a stale owner,
// forks and a crash), which exercise every drawing of the player even while
// the course has no such lesson.
func testLessons(tb testing.TB) []*sim.Lesson {
	tb.Helper()
	all, err := lessons.All()
	if err != nil {
		tb.Fatal(err)
	}
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		l, err := sim.LoadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, l)
	}
	return all
}

func lessonByID(tb testing.TB, all []*sim.Lesson, id string) *sim.Lesson {
	tb.Helper()
	for _, l := range all {
		if l.ID == id {
			return l
		}
	}
	tb.Fatalf("no lesson %q", id)
	return nil
}

// embedded opens an embedded backend for a test.
func embedded(tb testing.TB) Backend {
	tb.Helper()
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return RedisBackend(be)
}

// withDefaults is cfg with an embedded backend and testLessons where it
// names none.
func withDefaults(tb testing.TB, cfg Config) Config {
	tb.Helper()
	if cfg.Backend == nil {
		cfg.Backend = embedded(tb)
	}
	if cfg.Lessons == nil {
		cfg.Lessons = testLessons(tb)
	}
	if cfg.ScriptTimeLimit == 0 {
		// A learner's script gets 2 s a step by default; under -race on a
		// loaded 2-core machine an ordinary step of the sandbox took
		// longer, and the course table then skips the rest. Tests of the
		// time limit set their own.
		cfg.ScriptTimeLimit = 30 * time.Second
	}
	if cfg.SandboxTimePerAddr == 0 && cfg.SandboxTimeTotal == 0 {
		// The sandbox's time budgets reserve a step's time limit (30 s
		// here, above) cut to the budget, so that every address would get
		// one step a minute; tests of the budgets set their own.
		cfg.SandboxTimePerAddr, cfg.SandboxTimeTotal = -1, -1
	}
	if cfg.LockTableTimeout == 0 {
		// The course table's 30 s ran out under -race on a loaded machine
		// with the lessons' scripts in the sandbox's process.
		cfg.LockTableTimeout = 5 * time.Minute
	}
	return cfg
}

// expectedFrames runs a lesson to the end on a fresh embedded store.
func expectedFrames(tb testing.TB, l *sim.Lesson) []sim.Frame {
	tb.Helper()
	frames, err := sim.RunFrames(context.Background(), l, embedded(tb).OpenStore)
	if err != nil {
		tb.Fatal(err)
	}
	return frames
}

// testServer is a Server behind a real listener on loopback.
type testServer struct {
	srv  *Server
	hs   *http.Server
	addr string
	url  string
	done chan struct{}
}

// startServer serves cfg on addr ("127.0.0.1:0" for any port). It retries
// for a while when the address is still taken (a restart on the same port).
func startServer(tb testing.TB, cfg Config, addr string) *testServer {
	tb.Helper()
	srv, err := New(withDefaults(tb, cfg))
	if err != nil {
		tb.Fatal(err)
	}
	var ln net.Listener
	deadline := time.Now().Add(20 * time.Second)
	for {
		ln, err = net.Listen("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		tb.Fatal(err)
	}
	ts := &testServer{srv: srv, hs: &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr().String(), done: make(chan struct{})}
	ts.url = "http://" + ts.addr
	go func() {
		defer close(ts.done)
		if err := ts.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			tb.Errorf("serve: %v", err)
		}
	}()
	tb.Cleanup(ts.stop)
	return ts
}

// stop shuts the server down as the CLI does; safe to call twice.
func (ts *testServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = ts.hs.Shutdown(ctx)
	_ = ts.srv.Close(ctx)
	<-ts.done
}

// noRedirect returns an HTTP client that does not follow redirects: a
// 3xx response is what it returns.
func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// getPage GETs path from base (a server's URL) and returns the body; for a
// want of 303 See Other it does not follow the redirect and returns the
// Location instead. A status other than want fails the test.
func getPage(t *testing.T, base, path string, want int) string {
	t.Helper()
	client := http.DefaultClient
	if want == http.StatusSeeOther {
		client = noRedirect()
	}
	resp, err := client.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d\n%.400s", path, resp.StatusCode, want, b)
	}
	if want == http.StatusSeeOther {
		return resp.Header.Get("Location")
	}
	return string(b)
}

// getDOM GETs url (whatever its status) and parses the body.
func getDOM(t *testing.T, url string) dom {
	t.Helper()
	_, body := get(t, url, nil)
	return parseDOM(t, body)
}

// playerDOM GETs the player page of lesson id's step in locale loc (the
// student's view) from the server at base and parses it.
func playerDOM(t *testing.T, base, id string, step int, loc sim.Locale) dom {
	t.Helper()
	return getDOM(t, base+lessonURL(id, step, loc, false))
}

// repoRoot is the module's root: the parent of the package's folder, where
// go test runs the test.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(wd)
}

// realBackend starts a redis-server for the test (on a free loopback port)
// and opens a backend on it, closed when the test ends.
func realBackend(tb testing.TB) (*backend.Backend, *redistest.Server) {
	tb.Helper()
	rs := redistest.Start(tb)
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.URL})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { be.Close() })
	return be, rs
}

// logRecorder keeps what a Server logs: its Logf is a Config.Logf.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Logf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, a...))
}

// Lines returns what was logged so far.
func (r *logRecorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// testTranslators are the embedded catalogue's translators, for tests that
// compare a page with the texts it should show. A catalogue and its
// translators are never changed once built, so one set serves every test,
// also in parallel.
var testTranslators = sync.OnceValue(func() *translators {
	c, err := catalog.New()
	if err != nil {
		panic(err)
	}
	return newTranslators(c)
})

// tr returns the translator of locale l of the embedded catalogue.
func tr(l sim.Locale) *translator { return testTranslators().get(l) }
