package live_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"lockstep/catalog"
	"lockstep/internal/redistest"
	"lockstep/live"
	"lockstep/proxy"
	"lockstep/static"
)

// browserWait bounds each browser condition: generous for a loaded
// 2-core machine.
const browserWait = 60 * time.Second

// liveTab starts a headless Chromium (one per test: this package has one
// browser test) and opens the live page of p, served with the static
// files as the server serves them.
func liveTab(t *testing.T, p *proxy.Proxy, path string) context.Context {
	t.Helper()
	redistest.Need(t, "chromium", "make test")
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/live", live.New(live.Config{Proxy: p, Catalog: cat}))
	mux.Handle("/live/ws", live.New(live.Config{Proxy: p, Catalog: cat}))
	mux.Handle("GET /static/", http.StripPrefix("/static/", static.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
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
	browse(t, ctx, chromedp.Navigate(srv.URL+path))
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
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// TestBrowserLive: the live page shows a lane when a client connects and
// locks, injects a pause from its form (drawn as a fault), and lists the
// overlap finding, which highlights its commands when clicked.
func TestBrowserLive(t *testing.T) {
	p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx := liveTab(t, p, "/live")
	waitFor(t, ctx, `document.querySelector("#live-timeline .live-head[data-lane=redis]") !== null`, "the Redis lane")

	a := redisClient(t, p, "worker-a")
	if ok, err := a.SetNX(context.Background(), "lock:job", "token-a", 400*time.Millisecond).Result(); err != nil || !ok {
		t.Fatalf("worker-a SET NX = %v %v", ok, err)
	}
	waitFor(t, ctx, `[...document.querySelectorAll("[data-testid=live-lane]")].some(h => h.textContent.includes("worker-a"))`, "worker-a's lane")
	waitFor(t, ctx, `document.querySelector(".live-cell.lock") !== null && document.querySelector(".live-cell.command") !== null`, "the SET and the lock state")

	lane := p.Snapshot().Lanes[0].Lane
	browse(t, ctx,
		chromedp.SetValue(chromedp.CSS(`#live-fault select[name=type]`), "pause"),
		chromedp.SetValue(chromedp.CSS(`#live-fault input[name=client]`), lane),
		chromedp.SetValue(chromedp.CSS(`#live-fault input[name=ms]`), "300"),
		chromedp.Click(chromedp.CSS(`#live-fault button[type=submit]`), chromedp.NodeVisible),
	)
	waitFor(t, ctx, `document.querySelector(".live-cell.fault") !== null`, "the pause drawn on the lane")

	time.Sleep(500 * time.Millisecond) // worker-a's lease runs out unreleased
	b := redisClient(t, p, "worker-b")
	if ok, err := b.SetNX(context.Background(), "lock:job", "token-b", 10*time.Second).Result(); err != nil || !ok {
		t.Fatalf("worker-b SET NX = %v %v", ok, err)
	}
	waitFor(t, ctx, `document.querySelector("[data-testid=live-finding][data-code=overlap]") !== null`, "the overlap finding")
	browse(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid=live-finding][data-code=overlap]`), chromedp.NodeVisible))
	waitFor(t, ctx, `document.querySelectorAll(".live-cell.hl").length > 0`, "the finding's commands highlighted")
}
