package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/sim"
)

// redisAlert is what the page shows of the Redis alert.
const readRedisAlert = `(() => {
	const a = document.getElementById('redis-alert');
	const p = document.getElementById('player');
	return JSON.stringify({
		role: a.getAttribute('role'),
		title: a.querySelector('.ra-title')?.textContent || '',
		body: a.querySelector('.ra-body')?.textContent || '',
		button: a.querySelector('button[data-action="retry"]')?.textContent || '',
		detail: a.querySelector('details code')?.textContent || '',
		visible: a.getBoundingClientRect().height > 0,
		conn: p.dataset.conn,
		connText: document.getElementById('conn').textContent,
		step: document.querySelector('[data-panel="narration"] .narr')?.dataset.step || '',
		search: location.search,
	});
})()`

type redisAlertShown struct {
	Role, Title, Body, Button, Detail string
	Visible                           bool
	Conn, ConnText, Step, Search      string
}

func readAlert(t *testing.T, ctx context.Context) redisAlertShown {
	t.Helper()
	var a redisAlertShown
	raw := eval[string](t, ctx, readRedisAlert)
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestBrowserRedisUnavailable stops redis-server under the player: the step
// answers a persistent, localized alert (role=alert) that names the backend,
// the connection indicator says Redis is unavailable, going back keeps the
// alert, a deep link keeps its step in the URL, and Try again runs the step
// once Redis is back, which clears the alert.
func TestBrowserRedisUnavailable(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	ctx, l, ts, frames := staleOnRedis(t, be, 4)
	if a := readAlert(t, ctx); a.Visible || a.Title != "" {
		t.Fatalf("alert shown while Redis answers: %+v", a)
	}

	rs.Stop()
	press(t, ctx, kb.ArrowRight)
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'redis' && !!document.querySelector('#redis-alert .ra-title')`, "the Redis alert")
	// Going back (a computed frame) is served, and the alert stays.
	press(t, ctx, kb.ArrowLeft)
	waitJS(t, ctx, `document.querySelector('[data-panel="narration"] .narr').dataset.step === '3'`, "step 3")
	a := readAlert(t, ctx)
	en := tr(sim.English).UI()
	badge := tr(sim.English).T("BackendReal") // the page names no Redis address or version (issue 37, item 8)
	if a.Role != "alert" || !a.Visible || a.Title != en.RedisDownTitle || a.Button != en.TryAgain || a.Conn != "redis" || a.ConnText != en.RedisDownConn {
		t.Fatalf("after a failed step and a step back: %+v", a)
	}
	if want := fill(en.RedisDownBody, "5", badge); a.Body != want {
		t.Fatalf("alert body %q, want %q", a.Body, want)
	}
	if !strings.Contains(a.Detail, "step 5") {
		t.Fatalf("alert detail %q", a.Detail)
	}
	if dir := os.Getenv("LOCKSTEP_SHOTS"); dir != "" {
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "player-redis-down.png"), buf, 0o644)
	}
	// The alert follows the language.
	click(t, ctx, `.langs a[data-lang="zh-CN"]`)
	waitJS(t, ctx, `document.documentElement.lang === 'zh-CN'`, "zh-CN")
	zh := tr(sim.SimplifiedChinese).UI()
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#redis-alert .ra-title')?.textContent === %q`, zh.RedisDownTitle), "the alert in zh-CN")
	if a := readAlert(t, ctx); a.ConnText != zh.RedisDownConn || a.Button != zh.TryAgain || !strings.Contains(a.Body, "第 5 步") {
		t.Fatalf("zh-CN alert: %+v", a)
	}

	// A deep link while Redis is down keeps its step and offers Try again.
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 6, sim.English, false)))
	// The run stays at step 0 (step 1 already needs Redis).
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'redis' && document.querySelector('[data-panel="narration"] .narr')?.dataset.step === '0' && !!document.querySelector('#redis-alert .ra-title')`, "the alert on a deep link")
	a = readAlert(t, ctx)
	if !strings.Contains(a.Search, "step=6") || a.Body != fill(en.RedisDownBody, "6", badge) {
		t.Fatalf("deep link with Redis down: %+v", a)
	}

	// Redis is back: Try again runs the step (the pool may need a try to
	// redial) and the alert goes.
	rs.Restart(t)
	for tries := 0; ; tries++ {
		n := eval[string](t, ctx, `document.getElementById('player').dataset.errors || '0'`)
		click(t, ctx, `#redis-alert button[data-action="retry"]`)
		waitJS(t, ctx, fmt.Sprintf(`(() => { const p = document.getElementById('player');
			return (p.dataset.conn === 'open' && p.dataset.step === '6') || (p.dataset.errors !== %q && !!document.querySelector('#redis-alert button')); })()`, n), "try again")
		if eval[string](t, ctx, `document.getElementById('player').dataset.step`) == "6" {
			break
		}
		if tries > 50 {
			t.Fatal("Try again never ran the step")
		}
	}
	checkShown(t, l, frames[6], stepShown(t, ctx, 6))
	if a := readAlert(t, ctx); a.Visible || a.Title != "" || a.ConnText != en.Connected || !strings.Contains(a.Search, "step=6") {
		t.Fatalf("after Try again: %+v", a)
	}
}

func fill(tmpl, step, backend string) string {
	return strings.NewReplacer("{step}", step, "{backend}", backend).Replace(tmpl)
}

// TestBrowserCompletion: a deep link to the last step does not complete the
// lesson; stepping to the end does.
func TestBrowserCompletion(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	n := len(l.Steps)
	card := fmt.Sprintf(`document.querySelector('.lesson-card[data-lesson="%s"]')`, l.ID)
	openStep(t, ctx, ts, l.ID, n, sim.English)
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, card+`.classList.contains('started')`, "the lesson marked started")
	if eval[bool](t, ctx, card+`.classList.contains('done')`) {
		t.Fatal("a deep link to the last step completed the lesson")
	}
	// End (a seek) does not complete it either.
	openStep(t, ctx, ts, l.ID, 1, sim.English)
	press(t, ctx, kb.End)
	waitStep(t, ctx, n)
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, card+`.classList.contains('started')`, "the lesson marked started")
	if eval[bool](t, ctx, card+`.classList.contains('done')`) {
		t.Fatal("End completed the lesson")
	}
	// Stepping to the end does.
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, n-1, sim.English, false)))
	waitStep(t, ctx, n-1)
	press(t, ctx, kb.ArrowRight)
	waitStep(t, ctx, n)
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, card+`.classList.contains('done')`, "the lesson marked done")
}

// TestBrowserLeavingEndsSession: a player page the learner leaves ends its
// session (and so its run's keys), though the browser keeps the page in its
// back/forward cache; back on it, the page connects again at the step it
// showed.
func TestBrowserLeavingEndsSession(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	sessions := func(n int, when string) {
		t.Helper()
		deadline := time.Now().Add(waitTimeout)
		for ts.srv.Sessions() != n {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d sessions open, want %d", when, ts.srv.Sessions(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	openStep(t, ctx, ts, l.ID, 2, sim.English)
	click(t, ctx, "#btn-step")
	waitStep(t, ctx, 3)
	sessions(1, "on the player")
	run(t, ctx, chromedp.Navigate(ts.url+"/"))
	sessions(0, "after leaving the player for the course page")
	run(t, ctx, chromedp.NavigateBack())
	// The page comes back from the cache. chromedp's Poll (waitStep, click)
	// keeps the page's old execution context then; Evaluate finds the new
	// one, so the rest polls with eval.
	shows := func(n int) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const p = document.getElementById('player'); const n = document.querySelector('[data-panel="narration"] .narr');
			return !!(p && p.dataset.conn === 'open' && p.dataset.step === '%d' && n && n.dataset.step === '%d'); })()`, n, n)
		waitNewDocument(t, ctx, js, fmt.Sprintf("back on the player, showing step %d, connected", n))
	}
	shows(3)
	sessions(1, "back on the player")
	eval[bool](t, ctx, `(document.getElementById('btn-step').click(), true)`)
	shows(4)
}

// TestBrowserIdleLinkOpensNoSession: on a page closed for inactivity, a
// click on a link that leaves the page does not open a session first (one
// the page would close at once, having started a run for nothing).
func TestBrowserIdleLinkOpensNoSession(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayerOn(t, Config{IdleTimeout: time.Second})
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 2, sim.English, false)))
	// Step 2 shown, connected or already closed again (a busy machine can
	// take the second before the page is looked at).
	waitJS(t, ctx, `document.querySelector('[data-panel="narration"] .narr')?.dataset.step === '2'`, "step 2")
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'idle'`, "the page to be closed for inactivity")
	// Count the sockets the page opens from now on, in the tab's
	// sessionStorage, which the next page of the same origin still reads.
	eval[bool](t, ctx, `(() => { const W = window.WebSocket;
		window.WebSocket = function (...a) { sessionStorage.setItem('sockets', String(+(sessionStorage.getItem('sockets') || 0) + 1)); return new W(...a); };
		return true; })()`)
	click(t, ctx, "a.logo")
	// The course page, polled with Evaluate: chromedp's Poll keeps the
	// player page's execution context.
	waitNewDocument(t, ctx, `!document.getElementById('player') && !!document.querySelector('a.logo') && document.readyState === 'complete'`, "the course page to load")
	if n := eval[string](t, ctx, `sessionStorage.getItem('sockets') || '0'`); n != "0" {
		t.Fatalf("the idle page opened %s socket(s) on its way out", n)
	}
}

// TestBrowserPhoneWidth: at a phone's width (390 CSS px) no page is wider
// than the screen, in any language: the course page (with its sources, one
// of them a long URL), a lesson whose source is that URL, and the explore
// page.
func TestBrowserPhoneWidth(t *testing.T) {
	t.Parallel()
	ctx, _, ts := courseTab(t, Config{})
	for _, lang := range []string{"en", "zh-CN", "zh-TW"} {
		for _, path := range []string{"/", "/lessons/clock-jump", "/explore"} {
			run(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(ts.url+path+"?lang="+lang))
			waitJS(t, ctx, `document.readyState === 'complete'`, path+" loaded")
			if w := eval[string](t, ctx, `document.documentElement.scrollWidth + ' > ' + document.documentElement.clientWidth`); eval[bool](t, ctx, `document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
				t.Errorf("%s?lang=%s at 390 px: the page is %s px wide", path, lang, w)
			}
		}
	}
}
