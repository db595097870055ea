package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/backend"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/screenshot-player.png (the player at the stale-owner step)")

// waitTimeout is how long a browser condition may take: generous, since a
// 2-core CI machine runs Chromium, the server and the race detector at once.
const waitTimeout = 60 * time.Second

// chromium is the package's one headless Chromium: the first browser test
// that runs starts it (newTab), TestMain stops it. Each test gets a tab of
// its own in a browser context of its own (storage, cookies and cache
// apart, as a fresh profile has them), so the tests stay isolated and run
// in parallel, while the browser starts once (seconds of CPU on a 2-core
// machine) instead of once per test.
var chromium sharedBrowser

// sharedBrowser starts one Chromium on first use and stops it at the end.
type sharedBrowser struct {
	once sync.Once
	tab  context.Context // the browser's first tab: the parent of every test's tab
	stop context.CancelFunc
	err  error
}

// start starts the browser once and returns its first tab.
func (b *sharedBrowser) start() (context.Context, error) {
	b.once.Do(func() {
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath("/usr/bin/chromium"),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true),
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-backgrounding-occluded-windows", true),
			chromedp.Flag("force-color-profile", "srgb"),
			chromedp.WindowSize(1280, 800),
			// Debian's /usr/bin/chromium adds --enable-gpu-rasterization and
			// loads its extensions: with no GPU that rasterizes through
			// SwiftShader in the GPU process. Off, Chromium rasterizes on
			// the CPU as headless does by default, and starts no extension:
			// some 15-20% less of its CPU in TestBrowserLessons
			// (docs/testing.md).
			chromedp.Flag("disable-gpu-rasterization", true),
			chromedp.Flag("disable-extensions", true),
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		tab, cancel := chromedp.NewContext(allocCtx)
		b.tab = tab
		b.stop = func() {
			cancel()
			cancelAlloc()
		}
		// The first Run binds the browser's life to its context: tab,
		// which ends only in close.
		b.err = chromedp.Do(tab)
	})
	return b.tab, b.err
}

// close stops the browser if it was started.
func (b *sharedBrowser) close() {
	if b.stop != nil {
		b.stop()
	}
}

// TestMain runs the tests, then stops the shared browser. The test binary
// is also the Lua sandbox's child process (backend.Sandbox).
func TestMain(m *testing.M) {
	backend.RunSandboxIfChild()
	code := m.Run()
	chromium.close()
	os.Exit(code)
}

// newTab opens a tab of the shared headless Chromium in a fresh browser
// context (nothing stored, as with a new profile), at 1280 × 800, closed
// when the test ends.
func newTab(t *testing.T) context.Context {
	t.Helper()
	redistest.Need(t, "chromium", "make test")
	parent, err := chromium.start()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// courseTab opens a tab (newTab) and serves cfg with testLessons as its
// lessons (startServer, on any loopback port): it returns the tab, the
// lessons served and the server.
func courseTab(t *testing.T, cfg Config) (context.Context, []*sim.Lesson, *testServer) {
	t.Helper()
	ctx := newTab(t)
	cfg.Lessons = testLessons(t)
	return ctx, cfg.Lessons, startServer(t, cfg, "127.0.0.1:0")
}

// tabAt opens a tab (newTab), serves cfg (startServer, on any loopback
// port) and navigates the tab to path on it: it returns the tab and the
// server.
func tabAt(t *testing.T, cfg Config, path string) (context.Context, *testServer) {
	t.Helper()
	ctx := newTab(t)
	ts := startServer(t, cfg, "127.0.0.1:0")
	run(t, ctx, chromedp.Navigate(ts.url+path))
	return ctx, ts
}

// newStillTab is newTab with prefers-reduced-motion: reduce emulated, so
// the page's CSS (static/app.css) runs no animation or transition and the
// timeline scrolls without smoothing: a walk through every step then
// renders each step once instead of animating it for a second (about a
// quarter of Chromium's CPU in TestBrowserLessons, docs/testing.md). For
// tests that check what the page shows at each step, not how it moves.
func newStillTab(t *testing.T) context.Context {
	t.Helper()
	ctx := newTab(t)
	run(t, ctx, reduceMotion)
	return ctx
}

// reduceMotion emulates prefers-reduced-motion: reduce in a tab (newStillTab).
var reduceMotion = chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
	_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
	return err
})

// openUnpaintedTab opens a tab of the browser whose first tab is parent
// (chromium.start), in a browser context of its own (nothing stored), at
// 1280 × 800, as a hidden target (Target.createTarget's hidden and
// background): a page that is in no window, so Chromium lays it out when
// asked (a script's read of innerText, a click's hit test, getBoundingClientRect)
// but never paints, rasterizes or composites it. Its document is hidden:
// it runs no animation frame (requestAnimationFrame, ResizeObserver,
// IntersectionObserver callbacks) and no smooth scroll. For walks that
// check what the DOM holds, not how it looks or moves: TestBrowserLessons
// took 107 CPU-s on 12 lessons in painted tabs, 55 in these
// (docs/testing.md). Its Network domain is off (see lessonTabs): a page
// in it cannot answer chromedp.RunResponse (navigateStatus). stop closes
// the tab and its browser context.
func openUnpaintedTab(parent context.Context) (ctx context.Context, stop func(), err error) {
	b := chromedp.FromContext(parent).Browser
	bc, err := cdp.Call(parent, b, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return nil, nil, fmt.Errorf("create a browser context: %w", err)
	}
	dispose := func() {
		_, _ = cdp.Call(parent, b, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: bc.BrowserContextID})
	}
	yes := true
	tg, err := cdp.Call(parent, b, target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", BrowserContextID: bc.BrowserContextID, Hidden: &yes, Background: &yes})
	if err != nil {
		dispose()
		return nil, nil, fmt.Errorf("create a hidden tab: %w", err)
	}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithTargetID(tg.TargetID))
	stop = func() {
		cancel()
		dispose()
	}
	// The Network domain (chromedp turns it on in every tab) reports every
	// websocket frame, panels and all, to the test binary.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), reduceMotion, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Disable, cdp.Empty{})
		return err
	})); err != nil {
		stop()
		return nil, nil, fmt.Errorf("set up a hidden tab: %w", err)
	}
	// A page in no window has the emulated viewport all the same: checked,
	// since the walks' geometry is measured against it.
	if size, err := chromedp.Run(ctx, chromedp.Evaluate[[]int]("[innerWidth, innerHeight]")); err != nil || len(size) != 2 || size[0] != 1280 || size[1] != 800 {
		stop()
		return nil, nil, fmt.Errorf("a hidden tab's viewport is %v, want 1280 x 800 (%v)", size, err)
	}
	return ctx, stop, nil
}

// lessonTabs lends the subtests of one test unpainted tabs
// (openUnpaintedTab), each used by one subtest at a time and then by the
// next: a lesson's walk opens its pages afresh (a new document each), but
// in a tab whose renderer process is already up and whose HTTP cache holds
// the page's scripts and styles (content-hashed, immutable), where a tab
// per lesson started a renderer and fetched and compiled them 49 times
// (TestBrowserLessons on 12 lessons: 55 -> 43 CPU-s, docs/testing.md). As
// many tabs as subtests run at once (go test's -parallel) are opened, on
// demand; all close when the test that made the pool ends. A subtest that
// failed does not give its tab back: a new one replaces it.
type lessonTabs struct {
	free  chan context.Context
	mu    sync.Mutex
	stops []func()
}

// newLessonTabs makes a pool of tabs for t's subtests, closed when t ends.
func newLessonTabs(t *testing.T) *lessonTabs {
	t.Helper()
	p := &lessonTabs{free: make(chan context.Context, 256)}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, stop := range p.stops {
			stop()
		}
	})
	return p
}

// take lends t a free tab of the pool, or a new one; t gives it back with
// give once done.
func (p *lessonTabs) take(t *testing.T) context.Context {
	t.Helper()
	select {
	case ctx := <-p.free:
		return ctx
	default:
	}
	ctx, stop := startUnpaintedTab(t)
	p.mu.Lock()
	p.stops = append(p.stops, stop)
	p.mu.Unlock()
	return ctx
}

// give returns the tab ctx that t took, unless t failed (the page may be
// anywhere): the pool's end closes it then.
func (p *lessonTabs) give(t *testing.T, ctx context.Context) {
	if !t.Failed() {
		p.free <- ctx
	}
}

// stillTabOnCourse is a still tab (newStillTab), a server of the whole
// course on a free loopback port, and the course: the presenter tests
// walk every lesson.
func stillTabOnCourse(t *testing.T) (context.Context, *testServer, []*sim.Lesson) {
	t.Helper()
	ctx := newStillTab(t)
	ts, course := courseServer(t)
	return ctx, ts, course
}

// courseServer is a server of the whole course on a free loopback port,
// and the course.
func courseServer(t *testing.T) (*testServer, []*sim.Lesson) {
	t.Helper()
	course, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, Config{Lessons: course}, "127.0.0.1:0"), course
}

// courseTabs is how many tabs a walk through every lesson of the course
// takes at once (eachTab): one tab walked the course on one core while
// the other waited, the longest tests of the package (a lesson's page is
// some seconds of the server's and Chromium's CPU under -race); in four,
// the walk takes a quarter of the wall time on a 2-core machine, within
// go test's -parallel 4.
const courseTabs = 4

// eachTab runs walk in courseTabs parallel subtests of t, each in a still
// tab of its own (newStillTab) given its share of the course: the lessons
// whose index i in the course has i%courseTabs == shard (course order is
// kept within a share, so a walk that treats every third or fifth lesson
// otherwise by its index still does). It returns once every share's walk
// has ended, so t can check what they found together.
func eachTab(t *testing.T, walk func(t *testing.T, ctx context.Context, shard int)) {
	t.Helper()
	eachTabOf(t, newStillTab, walk)
}

// eachUnpaintedTab is eachTab in unpainted tabs (unpaintedTab), for walks
// that read only the DOM and its geometry.
func eachUnpaintedTab(t *testing.T, walk func(t *testing.T, ctx context.Context, shard int)) {
	t.Helper()
	eachTabOf(t, unpaintedTab, walk)
}

// eachTabOf is eachTab with tabs opened by open.
func eachTabOf(t *testing.T, open func(*testing.T) context.Context, walk func(t *testing.T, ctx context.Context, shard int)) {
	t.Helper()
	t.Run("tabs", func(t *testing.T) {
		for shard := range courseTabs {
			t.Run(fmt.Sprintf("tab%d", shard), func(t *testing.T) {
				t.Parallel()
				walk(t, open(t), shard)
			})
		}
	})
}

// startUnpaintedTab opens an unpainted tab (openUnpaintedTab) of the
// shared browser, started if need be; the caller closes it with stop.
func startUnpaintedTab(t *testing.T) (ctx context.Context, stop func()) {
	t.Helper()
	redistest.Need(t, "chromium", "make test")
	parent, err := chromium.start()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, stop, err = openUnpaintedTab(parent)
	if err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx, stop
}

// unpaintedTab opens an unpainted tab (openUnpaintedTab), closed when t
// ends.
func unpaintedTab(t *testing.T) context.Context {
	t.Helper()
	ctx, stop := startUnpaintedTab(t)
	t.Cleanup(stop)
	return ctx
}

// run runs browser actions with a generous deadline.
func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JS expression into T.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitJS polls until a JS expression is truthy.
func waitJS(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	waitValue[bool](t, ctx, js, what)
}

// waitValue polls until a JS expression is truthy and returns its value.
func waitValue[T any](t *testing.T, ctx context.Context, js, what string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, waitTimeout+5*time.Second)
	defer cancel()
	deadline := time.Now().Add(waitTimeout)
	v, err := chromedp.Run(tctx, chromedp.Poll[T](js, chromedp.WithPollingTimeout(waitTimeout), chromedp.WithPollingInterval(20*time.Millisecond)))
	// A poll begun in the document a navigation is replacing loses its
	// execution context ("Cannot find context with specified id"): on a
	// loaded machine chromedp.Navigate can return before the old
	// document's context is gone. Poll again, in the new document.
	for err != nil && staleContext(err) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		v, err = chromedp.Run(tctx, chromedp.Poll[T](js, chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(20*time.Millisecond)))
	}
	if err != nil {
		// A page that answers nothing must not hang the test: a short
		// deadline for the state read too.
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		defer scancel()
		state, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`JSON.stringify({...document.getElementById('player')?.dataset, conn: document.getElementById('conn')?.textContent})`))
		t.Fatalf("waiting for %s: %v (player %s)", what, err, state)
	}
	return v
}

// staleContext reports whether err is the DevTools protocol's answer to an
// evaluation in an execution context that a navigation destroyed.
func staleContext(err error) bool {
	var pe *cdproto.Error
	return errors.As(err, &pe) && strings.Contains(pe.Message, "Cannot find context with specified id")
}

// waitNewDocument waits until js is true in the tab, across a navigation
// to another document: it evaluates afresh each time (chromedp's Poll may
// keep the old document's context), and takes an error for "not yet" (the
// tab between documents).
func waitNewDocument(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(20 * time.Millisecond) {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](js))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page is at %s", what, eval[string](t, ctx, `location.href`))
		}
	}
}

// stepReady is a JS expression: the player shows step %[1]d, connected.
const stepReady = `(() => { const p = document.getElementById('player'); const n = document.querySelector('[data-panel="narration"] .narr');
	return !!(p && p.dataset.conn === 'open' && p.dataset.step === '%[1]d' && n && n.dataset.step === '%[1]d'); })()`

// openStep opens lesson id at step n in locale loc on the server ts, and
// waits until the player shows that step, connected.
func openStep(t *testing.T, ctx context.Context, ts *testServer, id string, n int, loc sim.Locale) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(id, n, loc, false)))
	waitStep(t, ctx, n)
}

// waitStep waits until the player shows step n, connected.
func waitStep(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(stepReady, n), fmt.Sprintf("step %d", n))
}

// stepShown waits until the player shows step n, connected, and returns
// what it shows then: one round trip to the browser, where waitStep and
// readPage take two.
func stepShown(t *testing.T, ctx context.Context, n int) shown {
	t.Helper()
	raw := waitValue[[]byte](t, ctx, fmt.Sprintf(`%s && %s`, fmt.Sprintf(stepReady, n), readShown), fmt.Sprintf("step %d", n))
	var s shown
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// shown is what the page shows of one step. Panels holds, for each
// data-panel region, a digest of its innerHTML (its length and two 32-bit
// FNV-1a hashes, computed in the page): the panels are only compared, a
// step reached one way against the same step reached another, and their
// whole HTML was tens of KB a step to serialize and decode in the
// race-instrumented test binary.
type shown struct {
	Step      int               `json:"step"`
	RedisText string            `json:"redis"`
	State     string            `json:"state"`
	Outcome   string            `json:"outcome"`
	Say       string            `json:"say"`
	Lang      string            `json:"lang"`
	Panels    map[string]string `json:"panels"`
}

const readShown = `(() => {
	const q = s => document.querySelector(s);
	const panels = {};
	const digest = (s) => {
		let a = 0x811c9dc5, b = 0x01000193;
		for (let i = 0; i < s.length; i++) {
			const c = s.charCodeAt(i);
			a = Math.imul(a ^ c, 16777619);
			b = Math.imul(b ^ c, 2246822519);
		}
		return s.length + ':' + (a >>> 0).toString(16) + ':' + (b >>> 0).toString(16);
	};
	for (const el of document.querySelectorAll('[data-panel]')) panels[el.dataset.panel] = digest(el.innerHTML);
	return {
		step: Number(q('#player').dataset.step),
		redis: q('[data-panel="redis"]').innerText,
		state: q('[data-testid="diagram"]').dataset.state,
		outcome: q('[data-panel="narration"] .narr').dataset.outcome,
		say: (q('[data-testid="say"]') || {innerText: ''}).innerText,
		lang: document.documentElement.lang,
		panels,
	};
})()`

func readPage(t *testing.T, ctx context.Context) shown {
	t.Helper()
	raw := eval[[]byte](t, ctx, readShown)
	var s shown
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// focusState is the state the diagram must highlight for a frame.
func focusState(l *sim.Lesson, f sim.Frame) sim.LockState {
	name := l.Lock
	if f.Step != nil && f.Step.Lock != "" {
		name = f.Step.Lock
	}
	for _, lk := range f.Locks {
		if lk.Name == name {
			return lk.State
		}
	}
	if len(f.Locks) > 0 {
		return f.Locks[0].State
	}
	return sim.Idle
}

// checkShown compares what the page shows with the expected frame.
func checkShown(t *testing.T, l *sim.Lesson, f sim.Frame, s shown) {
	t.Helper()
	if s.Step != f.Index {
		t.Fatalf("%s: page at step %d, want %d", l.ID, s.Step, f.Index)
	}
	for _, k := range f.Keys {
		if !strings.Contains(s.RedisText, k.Name) {
			t.Errorf("%s step %d: Redis panel lacks key %s:\n%s", l.ID, f.Index, k.Name, s.RedisText)
		}
		if !k.Exists() {
			continue
		}
		for _, fl := range k.Fields {
			if !strings.Contains(s.RedisText, fl.Name) || !strings.Contains(s.RedisText, fl.Value) {
				t.Errorf("%s step %d: Redis panel lacks field %s=%s of %s:\n%s", l.ID, f.Index, fl.Name, fl.Value, k.Name, s.RedisText)
			}
		}
		if k.Type == sim.TypeString && !strings.Contains(s.RedisText, k.Value) {
			t.Errorf("%s step %d: Redis panel lacks value %q of %s", l.ID, f.Index, k.Value, k.Name)
		}
		if pttl := strconv.FormatInt(k.PTTL, 10) + " ms"; !strings.Contains(s.RedisText, pttl) {
			t.Errorf("%s step %d: Redis panel lacks PTTL %q of %s:\n%s", l.ID, f.Index, pttl, k.Name, s.RedisText)
		}
	}
	if want := focusState(l, f); s.State != string(want) {
		t.Errorf("%s step %d: diagram highlights %q, want %q", l.ID, f.Index, s.State, want)
	}
	if s.Outcome != string(f.Outcome) {
		t.Errorf("%s step %d: outcome %q, want %q", l.ID, f.Index, s.Outcome, f.Outcome)
	}
}

// TestBrowserScreenshots writes the player's screenshot at the stale-owner
// step: to docs/screenshot-player.png with -update-screenshot, else to a
// temporary file that the test only checks. LOCKSTEP_SHOTS=DIR also writes
// every locale and a narrow layout there, for people to look at.
func TestBrowserScreenshots(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayerOn(t, Config{})
	step := staleStep(expectedFrames(t, l))
	if step < 0 {
		t.Fatalf("lesson %s has no stale owner", l.ID)
	}
	shoot := func(lang string, width int64, present bool) []byte {
		u := ts.url + lessonURL(l.ID, step, sim.Locale(lang), present)
		run(t, ctx, chromedp.EmulateViewport(width, 800), chromedp.Navigate(u))
		waitStep(t, ctx, step)
		// Let the one-second animations settle.
		waitJS(t, ctx, `document.getAnimations().every(a => a.playState !== 'running')`, "animations")
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(buf)); err != nil {
			t.Fatalf("screenshot is not a PNG: %v", err)
		}
		return buf
	}
	buf := shoot("en", 1280, false)
	out := filepath.Join(t.TempDir(), "screenshot-player.png")
	if *updateScreenshot {
		out = filepath.Join(repoRoot(t), "docs", "screenshot-player.png")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("lesson %s, step %d: %s", l.ID, step, out)
	if dir := os.Getenv("LOCKSTEP_SHOTS"); dir != "" {
		for _, c := range []struct {
			name    string
			lang    string
			width   int64
			present bool
		}{{"en", "en", 1280, false}, {"zh-CN", "zh-CN", 1280, false}, {"zh-TW", "zh-TW", 1280, false}, {"narrow", "en", 420, false}, {"presenter", "en", 1280, true}} {
			b := shoot(c.lang, c.width, c.present)
			if err := os.WriteFile(filepath.Join(dir, "player-"+c.name+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// LOCKSTEP_SHOT_LESSONS="id:step,id:step" shoots more lessons.
		for _, spec := range strings.FieldsFunc(os.Getenv("LOCKSTEP_SHOT_LESSONS"), func(r rune) bool { return r == ',' }) {
			id, n, _ := strings.Cut(spec, ":")
			k, _ := strconv.Atoi(n)
			run(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+lessonURL(id, k, sim.English, false)))
			waitStep(t, ctx, k)
			waitJS(t, ctx, `document.getAnimations().every(a => a.playState !== 'running')`, "animations")
			b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			_ = os.WriteFile(filepath.Join(dir, "lesson-"+id+"-"+n+".png"), b, 0o644)
		}
		run(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+"/?lang=en"))
		waitJS(t, ctx, `!!document.querySelector('.lesson-card')`, "course")
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "course.png"), b, 0o644)
	}
}

// staleLesson is the course's stale-owner lesson, or the test one until the
// course has it.
func staleLesson(t *testing.T, all []*sim.Lesson) *sim.Lesson {
	for _, l := range all {
		if l.ID == "stale-owner" {
			return l
		}
	}
	return lessonByID(t, all, "test-stale-owner")
}

// staleStep is the first step after which an actor believes it holds a lock
// that Redis no longer gives it; -1 if none.
func staleStep(frames []sim.Frame) int {
	for _, f := range frames {
		for _, a := range f.Actors {
			if a.Status == sim.StatusCrashed {
				continue
			}
			for _, h := range a.Holds {
				if h.Count > 0 && !h.InRedis {
					return f.Index
				}
			}
		}
	}
	return -1
}

// blur takes the focus off any control, as a presenter's remote finds it.
const blur = `document.activeElement && document.activeElement.blur(), true`

func press(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	_ = eval[bool](t, ctx, blur)
	run(t, ctx, chromedp.KeyEvent(key))
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	run(t, ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// scrubTo seeks with the scrubber as a pointer would: set and change.
func scrubTo(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	_ = eval[bool](t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById('scrubber'); s.value = '%d';
		s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, n))
}

// TestBrowserLessons loads every lesson of the course (and the test
// lessons) and steps through it with the buttons, then with the keys, back
// with the keys, and by seeking: at every step the Redis panel, the
// highlighted state and the outcome match the frame, and going back or
// seeking shows exactly what stepping forward did. The lessons run in
// parallel, each walked in an unpainted tab that the walks before it in
// that tab have left (lessonTabs: each walk loads its pages afresh).
func TestBrowserLessons(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	ts := startServer(t, Config{Lessons: all}, "127.0.0.1:0")
	tabs := newLessonTabs(t)
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			ctx := tabs.take(t)
			clickThrough(t, ctx, ts, l)
			tabs.give(t, ctx)
		})
	}
}

// clickThrough is TestBrowserLessons for one lesson, in the tab ctx.
func clickThrough(t *testing.T, ctx context.Context, ts *testServer, l *sim.Lesson) {
	frames := expectedFrames(t, l)
	n := len(l.Steps)
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, false)))
	s := stepShown(t, ctx, 0)
	checkShown(t, l, frames[0], s)
	forward := []map[string]string{s.Panels}
	// Buttons.
	for i := 1; i <= n; i++ {
		click(t, ctx, "#btn-step")
		s := stepShown(t, ctx, i)
		checkShown(t, l, frames[i], s)
		forward = append(forward, s.Panels)
	}
	// same checks that step i, reached by how, shows what stepping
	// forward did.
	same := func(i int, how string) {
		t.Helper()
		s := stepShown(t, ctx, i)
		checkShown(t, l, frames[i], s)
		for name, html := range forward[i] {
			if s.Panels[name] != html {
				t.Fatalf("%s: step %d reached by %s shows another %s panel than stepping forward", l.ID, i, how, name)
			}
		}
	}
	click(t, ctx, "#btn-back")
	same(n-1, "the back button")
	// Keys: Home, → to the end, End, ← to the start.
	press(t, ctx, kb.Home)
	same(0, "Home")
	for i := 1; i <= n; i++ {
		press(t, ctx, kb.ArrowRight)
		same(i, "→")
	}
	press(t, ctx, kb.Home)
	waitStep(t, ctx, 0)
	press(t, ctx, kb.End)
	same(n, "End")
	for i := n - 1; i >= 0; i-- {
		press(t, ctx, kb.ArrowLeft)
		same(i, "←")
	}
	// The scrubber.
	for _, i := range []int{n / 2, n, 1, 0} {
		scrubTo(t, ctx, i)
		same(i, "the scrubber")
	}
	// A fresh page at the last step, whose panels come whole, shows
	// what the steps' patches built.
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, n, sim.English, false)))
	same(n, "a fresh page")
}

// TestBrowserPlayAndLanguage plays with Space, pauses with ".", switches
// the language and checks the narration and the URL follow.
func TestBrowserPlayAndLanguage(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	frames := expectedFrames(t, l)
	openStep(t, ctx, ts, l.ID, 1, sim.English)
	if got := readPage(t, ctx).Say; got != strings.TrimSpace(frames[1].Say.In(sim.English)) {
		t.Fatalf("English narration %q", got)
	}
	// Language switch: narration, <html lang> and the URL change.
	for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese, sim.English} {
		click(t, ctx, fmt.Sprintf(`.langs a[data-lang="%s"]`, loc))
		waitJS(t, ctx, fmt.Sprintf(`document.documentElement.lang === '%s' && new URL(location.href).searchParams.get('lang') === '%s'`, loc, loc), "language "+string(loc))
		waitStep(t, ctx, 1)
		s := readPage(t, ctx)
		if want := strings.TrimSpace(frames[1].Say.In(loc)); s.Say != want {
			t.Fatalf("%s narration %q, want %q", loc, s.Say, want)
		}
		title := eval[string](t, ctx, `document.getElementById('lesson-title').textContent`)
		if title != l.Title.In(loc) {
			t.Fatalf("%s title %q", loc, title)
		}
	}
	// Play with Space at 4×, pause with ".", play to the end.
	_ = eval[bool](t, ctx, `(() => { const s = document.getElementById('speed'); s.value = '4'; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
	press(t, ctx, " ")
	waitJS(t, ctx, `document.getElementById('player').dataset.playing === 'true'`, "playing")
	press(t, ctx, ".")
	waitJS(t, ctx, `document.getElementById('player').dataset.playing === 'false'`, "paused")
	// Play stops on its own where the story happens (play.js); Space goes on.
	for i := 0; eval[string](t, ctx, `document.getElementById('player').dataset.step`) != strconv.Itoa(len(l.Steps)); i++ {
		if i > len(l.Steps) {
			t.Fatal("Play did not reach the end")
		}
		press(t, ctx, " ")
		waitJS(t, ctx, `document.getElementById('player').dataset.playing === 'false' && !!document.getElementById('player').dataset.playStop`, "Play to stop")
	}
	waitStep(t, ctx, len(l.Steps))
	waitJS(t, ctx, `document.getElementById('player').dataset.playStop === 'end'`, "stopped at the end")
	checkShown(t, l, frames[len(l.Steps)], readPage(t, ctx))
	// Presenter mode with P.
	press(t, ctx, "p")
	waitJS(t, ctx, `document.body.classList.contains('presenter') && location.search.includes('present=1')`, "presenter mode")
	// The course page shows the progress the player stored.
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('.lesson-card[data-lesson="%s"]').classList.contains('done')`, l.ID), "the lesson marked done")
}

// TestBrowserReconnect restarts the server under the page: it reconnects
// and comes back to the same lesson and step.
func TestBrowserReconnect(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	frames := expectedFrames(t, l)
	openStep(t, ctx, ts, l.ID, 2, sim.SimplifiedChinese)
	click(t, ctx, "#btn-step")
	waitStep(t, ctx, 3)
	ts.stop()
	waitJS(t, ctx, `document.getElementById('player').dataset.conn !== 'open'`, "the page to notice")
	ts2 := startServer(t, Config{Lessons: ts.srv.cfg.Lessons}, ts.addr)
	_ = ts2
	waitStep(t, ctx, 3)
	s := readPage(t, ctx)
	checkShown(t, l, frames[3], s)
	if s.Lang != "zh-CN" || s.Say != strings.TrimSpace(frames[3].Say.In(sim.SimplifiedChinese)) {
		t.Fatalf("after reconnect: lang %q say %q", s.Lang, s.Say)
	}
	click(t, ctx, "#btn-step")
	checkShown(t, l, frames[4], stepShown(t, ctx, 4))
}

// TestBrowserRealRedis steps through the stale-owner lesson on a real
// redis-server: the badge names it, and every step matches the frames.
func TestBrowserRealRedis(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	ctx, l, _, frames := staleOnRedis(t, be, 0)
	badge := eval[string](t, ctx, `document.querySelector('[data-testid="backend"]').textContent`)
	// A real Redis, without its address (issue 37, item 8).
	if strings.Contains(badge, rs.Addr) || !strings.Contains(badge, "a real Redis") {
		t.Fatalf("badge %q names %s, or not a real Redis", badge, rs.Addr)
	}
	for i := 1; i <= len(l.Steps); i++ {
		click(t, ctx, "#btn-step")
		checkShown(t, l, frames[i], stepShown(t, ctx, i))
	}
}

// TestBrowserIdleResume: a session closed for inactivity comes back, at the
// same step, when the learner presses a key, and the key takes effect: →
// steps once the session is back.
func TestBrowserIdleResume(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayerOn(t, Config{IdleTimeout: 2 * time.Second})
	frames := expectedFrames(t, l)
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 5, sim.English, false)))
	waitJS(t, ctx, `document.querySelector('[data-panel="narration"] .narr')?.dataset.step === '5'`, "step 5")
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'idle'`, "the idle close")
	if got := eval[string](t, ctx, `document.getElementById('conn').textContent`); !strings.Contains(got, "Press any key") {
		t.Fatalf("idle message %q", got)
	}
	press(t, ctx, kb.ArrowRight) // wakes the session, then steps
	checkShown(t, l, frames[6], stepShown(t, ctx, 6))
	// A click on a button after the idle close takes effect too.
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'idle'`, "the second idle close")
	click(t, ctx, "#btn-back")
	checkShown(t, l, frames[5], stepShown(t, ctx, 5))
}
