package live_test

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/internal/redistest"
	"lockstep/live"
	"lockstep/proxy"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/web"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/screenshot-live-1280x800.png and docs/screenshot-live-390x844.png")

// browserWait bounds each browser condition: generous for a loaded
// 2-core machine.
const browserWait = 60 * time.Second

// liveSite serves the whole web server with the live page of p mounted,
// as `lockstep -proxy` does (cli/serve.go), and returns its URL.
func liveSite(t *testing.T, p *proxy.Proxy) string {
	t.Helper()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	var srv *web.Server
	h := live.New(live.Config{Proxy: p, Catalog: cat,
		Locale: func(r *http.Request) sim.Locale { return srv.Locale(r) },
		Site:   func(r *http.Request) (templates.Site, view.Texts) { return srv.LiveSite(r) }})
	srv, err = web.New(web.Config{Live: h, Backend: web.RedisBackend(be), Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		_ = srv.Close(context.Background())
	})
	return hs.URL
}

// browser starts a headless Chromium (one per test: this package has one
// browser test).
func browser(t *testing.T) context.Context {
	t.Helper()
	redistest.Need(t, "chromium", "make test")
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath("/usr/bin/chromium"), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-gpu-rasterization", true), chromedp.Flag("disable-extensions", true),
		chromedp.WindowSize(1280, 800))
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Do binds the browser's life to its context: ctx, not a
	// deadline's.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func browse(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// waitFor polls a JS expression until it is truthy.
func waitFor(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, browserWait+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(browserWait), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main#live") ? document.querySelector("main#live").innerText.slice(0, 3000) : document.title`))
		t.Fatalf("waiting for %s: %v\npage: %s", what, err, state)
	}
}

// waitAcrossNavigation polls a JS expression, as waitFor does, on a page
// that is being replaced (a clicked link): an evaluation that fails while
// the old page goes is tried again.
func waitAcrossNavigation(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	deadline := time.Now().Add(browserWait)
	for {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](js))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval evaluates a JS expression.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// box is an element's place on the page, in CSS pixels.
type box struct {
	Left, Top, Right, Bottom, Width float64
	Found                           bool
}

func rect(t *testing.T, ctx context.Context, selector string) box {
	t.Helper()
	return eval[box](t, ctx, `(() => { const e = document.querySelector(`+jsString(selector)+`); if (!e) return {Found: false};
		const r = e.getBoundingClientRect(); return {Left: r.left, Top: r.top + scrollY, Right: r.right, Bottom: r.bottom + scrollY, Width: r.width, Found: true}; })()`)
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TestBrowserLive: the live page under the site's header (the live link
// current, the language picker linking /live), the player's state
// diagram, lanes for two redsync workers in connection order with their
// lock library, clock times on the axis; a pause injected from the page's
// form and ended from it once the other worker holds the lock; the
// overlap finding, which highlights its commands; the state
// diagram following the lock; Save as lesson and its link, which opens
// the saved lesson in the player. Then the page at a phone's width: the
// header and the cards fit. With -update-screenshot it writes the two
// screenshots into docs/.
func TestBrowserLive(t *testing.T) {
	p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	site := liveSite(t, p)
	ctx := browser(t)
	browse(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(site+"/live?lang=en"))
	waitFor(t, ctx, `document.querySelector("#live-timeline .live-head[data-lane=redis]") !== null`, "the Redis lane")

	// The site's header, on top, the width of the page, the live page's
	// link current and the languages linking /live.
	header, main := rect(t, ctx, "header.site"), rect(t, ctx, "main#live")
	vw := eval[float64](t, ctx, `document.documentElement.clientWidth`)
	if !header.Found || header.Top != 0 || header.Width < vw-1 || main.Top < header.Bottom {
		t.Errorf("header %+v, main %+v, viewport width %v: want the site's header across the top, the page under it", header, main, vw)
	}
	if cur := eval[string](t, ctx, `(document.querySelector('header.site nav.site-nav a[aria-current=page]') || {}).getAttribute?.('href') || ""`); !strings.HasPrefix(cur, "/live?") {
		t.Errorf("current link in the header %q, want /live", cur)
	}
	if zh := eval[string](t, ctx, `document.querySelector('header.site nav.langs a[hreflang=zh-TW]').getAttribute('href')`); zh != "/live?lang=zh-TW" {
		t.Errorf("zh-TW link %q, want /live?lang=zh-TW", zh)
	}
	if d := rect(t, ctx, "figure.state-diagram svg.dg-screen"); !d.Found || d.Width < 300 {
		t.Errorf("state diagram %+v: want the player's drawing", d)
	}
	if s := eval[string](t, ctx, `document.querySelector("figure.state-diagram").dataset.state`); s != "idle" {
		t.Errorf("diagram state %q before any lock, want idle", s)
	}

	// Two redsync workers: A takes the lock and is paused from the page's
	// form (its lease long enough for the form, so the pause comes first);
	// B takes it once A's lease has run out.
	const lease = 2 * time.Second
	a, b := redisClient(t, p, "worker-a"), redisClient(t, p, "worker-b")
	ma := redsync.New(goredis.NewPool(a)).NewMutex("lock:job", redsync.WithExpiry(lease), redsync.WithTries(1))
	mb := redsync.New(goredis.NewPool(b)).NewMutex("lock:job", redsync.WithExpiry(time.Minute), redsync.WithTries(3000), redsync.WithRetryDelay(20*time.Millisecond))
	if err := ma.Lock(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `[...document.querySelectorAll("[data-testid=live-lane]")].some(h => h.textContent.includes("worker-a"))`, "worker-a's lane")
	waitFor(t, ctx, `document.querySelector("figure.state-diagram").dataset.state === "held-once"`, "the diagram at held once")
	waitFor(t, ctx, `document.querySelector('#live-suggested input[value="lock:job"]') !== null`, "lock:job among the keys to tick")
	if c := eval[string](t, ctx, `document.querySelector("figure.state-diagram figcaption").textContent`); !strings.Contains(c, "lock:job") {
		t.Errorf("diagram caption %q, want it to name lock:job", c)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("figure.state-diagram svg.dg-screen g.dg-node.current").length`); n != 1 {
		t.Errorf("%d current states on the diagram, want 1", n)
	}
	lane := p.Snapshot().Lanes[0].Lane
	browse(t, ctx,
		chromedp.SetValue(chromedp.CSS(`#live-fault select[name=type]`), "pause"),
		chromedp.SetValue(chromedp.CSS(`#live-fault input[name=client]`), lane),
		chromedp.SetValue(chromedp.CSS(`#live-fault input[name=ms]`), "60000"),
		chromedp.Click(chromedp.CSS(`#live-fault button[type=submit]`), chromedp.NodeVisible),
	)
	waitFor(t, ctx, `document.querySelector(".live-cell.fault") !== null`, "the pause drawn on the lane")
	if err := mb.Lock(); err != nil {
		t.Fatalf("worker-b: %v", err)
	}
	waitFor(t, ctx, `document.querySelector("[data-testid=live-finding][data-code=overlap]") !== null`, "the overlap finding")
	// Once B holds the lock, A's pause ends from the page.
	browse(t, ctx,
		chromedp.SetValue(chromedp.CSS(`#live-fault select[name=type]`), "resume"),
		chromedp.Click(chromedp.CSS(`#live-fault button[type=submit]`), chromedp.NodeVisible),
	)
	waitFor(t, ctx, `[...document.querySelectorAll(".live-cell.fault")].some(c => c.textContent.startsWith("pause-end"))`, "the pause's end drawn on the lane")
	if ok, _ := ma.Unlock(); ok {
		t.Error("worker-a's late unlock succeeded; want not owner")
	}
	waitFor(t, ctx, `document.querySelector("[data-testid=live-finding][data-code=release-not-owner]") !== null`, "worker-a's release answered not owner")
	if ok, err := mb.Unlock(); !ok || err != nil {
		t.Fatalf("worker-b's unlock: %v %v", ok, err)
	}
	browse(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid=live-finding][data-code=overlap]`), chromedp.NodeVisible))
	waitFor(t, ctx, `document.querySelectorAll(".live-cell.hl").length > 0`, "the finding's commands highlighted")

	// The lanes: Redis's, then the workers in the order they connected,
	// side by side, each headed by its lock library once it ran a script.
	waitFor(t, ctx, `[...document.querySelectorAll("[data-testid=live-lane]")].filter(h => h.querySelector("[data-testid=live-lock-lib]")?.textContent.includes("redsync")).length === 2`, "both lanes known as redsync")
	heads := eval[[]box](t, ctx, `[...document.querySelectorAll("#live-timeline .live-head")].map(e => { const r = e.getBoundingClientRect(); return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom, Width: r.width, Found: true}; })`)
	names := eval[[]string](t, ctx, `[...document.querySelectorAll("#live-timeline .live-head")].map(e => e.dataset.lane === "redis" ? "redis" : e.dataset.lane ? (e.querySelector("strong")?.textContent || e.dataset.lane) : "axis")`)
	if strings.Join(names, ",") != "axis,redis,worker-a,worker-b" {
		t.Errorf("lane heads %v, want the axis, Redis, worker-a, worker-b", names)
	}
	for i := 1; i < len(heads); i++ {
		if heads[i].Left < heads[i-1].Right || heads[i].Top != heads[0].Top {
			t.Errorf("lane head %d at %+v after %+v: want one row, left to right", i, heads[i], heads[i-1])
		}
	}
	// The axis is this computer's clock: HH:MM:SS.mmm.
	if times := eval[[]string](t, ctx, `[...document.querySelectorAll("#live-timeline time.live-time")].map(e => e.textContent)`); len(times) == 0 || !clockPattern(times[0]) {
		t.Errorf("axis times %v, want HH:MM:SS.mmm", times)
	}

	// Save as lesson: the link opens the saved lesson in the player.
	browse(t, ctx,
		chromedp.SetValue(chromedp.CSS(`#live-save input[name=id]`), "browser-live"),
		chromedp.Click(chromedp.CSS(`#live-save button[type=submit]`), chromedp.NodeVisible),
	)
	waitFor(t, ctx, `document.querySelector("[data-testid=live-open]") !== null`, "the link to the saved lesson")
	href := eval[string](t, ctx, `document.querySelector("[data-testid=live-open]").getAttribute("href")`)
	if !strings.HasPrefix(href, "/explore?") || !strings.Contains(href, "t=") {
		t.Errorf("the saved lesson's link %q, want a share link /explore?t=...", href)
	}
	if *updateScreenshot {
		browse(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		shot(t, ctx, "screenshot-live-1280x800.png")
	}
	browse(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid=live-open]`), chromedp.NodeVisible))
	waitAcrossNavigation(t, ctx, `document.getElementById("lesson-title") !== null && document.getElementById("lesson-title").textContent.includes("lock:job") && location.pathname === "/explore"`, "the player with the saved lesson")

	// A page opened on more events than its window: the newest only, the
	// lock key's state heading the Redis lane though its commands are
	// older, and scrolling up fetches the older ones, back to the first.
	firstCmd := uint64(0)
	for _, e := range p.Snapshot().Events {
		if e.Kind == proxy.EventCommand && firstCmd == 0 {
			firstCmd = e.Seq
		}
	}
	filler := redisClient(t, p, "filler")
	pipe := filler.Pipeline()
	for range proxy.WindowEvents + 100 {
		pipe.Ping(ctx)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	browse(t, ctx, chromedp.Navigate(site+"/live?lang=en"))
	waitAcrossNavigation(t, ctx, `document.querySelector("[data-testid=live-older]") !== null`, "the button to earlier events")
	if st := eval[[]string](t, ctx, `[...document.querySelectorAll("[data-testid=live-lock-state]")].map(e => e.textContent)`); len(st) != 1 || !strings.HasPrefix(st[0], "lock:job") {
		t.Errorf("the Redis lane's lock states %q, want lock:job's", st)
	}
	minSeq := `Math.min(...[...document.querySelectorAll("#live-timeline .live-cell")].map(e => Number(e.dataset.seq)))`
	if m := eval[float64](t, ctx, minSeq); m <= float64(firstCmd) {
		t.Fatalf("the page opened with row %v, at or before the first command %d: want the newest events only", m, firstCmd)
	}
	// Down to the newest, then up until the first row shows; each scroll
	// is drawn (two frames) before the next.
	for _, scroll := range []string{"window.scrollTo(0, document.documentElement.scrollHeight)", `document.querySelector("[data-testid=live-older]").scrollIntoView()`} {
		browse(t, ctx, chromedp.Evaluate[chromedp.Void](`new Promise(r => { `+scroll+`; requestAnimationFrame(() => requestAnimationFrame(() => r(true))); })`, chromedp.EvalAwaitPromise))
	}
	waitFor(t, ctx, `document.querySelector("[data-testid=live-older]") === null && `+minSeq+` <= `+strconv.FormatUint(firstCmd, 10), "the earliest events after scrolling up")

	// A phone: the header and the cards fit its width (the lanes scroll
	// inside their card).
	browse(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(site+"/live?lang=zh-TW"))
	waitFor(t, ctx, `document.querySelectorAll("[data-testid=live-lane]").length >= 2`, "the lanes on a phone")
	if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > 391 {
		t.Errorf("the page is %v px wide on a 390 px phone: something does not fit", w)
	}
	for _, sel := range []string{"header.site", "section.live-diagram", "section.live-findings", "section.live-lanes"} {
		if r := rect(t, ctx, sel); !r.Found || r.Left < 0 || r.Right > 391 {
			t.Errorf("%s at %+v on a 390 px phone", sel, r)
		}
	}
	if *updateScreenshot {
		shot(t, ctx, "screenshot-live-390x844.png")
	}
}

func clockPattern(s string) bool {
	if len(s) != len("07:01:02.345") {
		return false
	}
	for i, c := range s {
		switch i {
		case 2, 5:
			if c != ':' {
				return false
			}
		case 8:
			if c != '.' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// shot writes the viewport's screenshot into docs/.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(buf)); err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	_, file, _, _ := runtime.Caller(0)
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "..", "docs", name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
