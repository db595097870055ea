package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// axeScript is axe-core's script as `make deps` installs it from
// testdata/axe's lockfile (npm ci); the test fails under CI=true without
// it, and skips elsewhere.
func axeScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		msg := fmt.Sprintf("axe-core is not installed (make deps installs it): %v", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return string(b)
}

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// runAxe injects axe-core into the tab's page (through DevTools, so the
// page's Content-Security-Policy does not apply to it) and runs its WCAG
// 2 A and AA rules and best practices on the whole document: the
// violations it reports.
func runAxe(t *testing.T, tab context.Context, script string) []axeViolation {
	t.Helper()
	_ = eval[bool](t, tab, script+"\n;true")
	raw := evalAwait[[]byte](t, tab, `axe.run(document, {resultTypes: ['violations'],
		runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 5).map(n => ({target: n.target, failureSummary: n.failureSummary}))})))`)
	var out []axeViolation
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// seriousAxe fails the test for each serious or critical violation axe
// reports on the tab's page, named what.
func seriousAxe(t *testing.T, tab context.Context, script, what string) {
	t.Helper()
	for _, v := range runAxe(t, tab, script) {
		// region: content outside every landmark (the player's controls
		// were), moderate for axe but a screen reader's user misses it.
		if v.Impact != "serious" && v.Impact != "critical" && v.ID != "region" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+": "+strings.ReplaceAll(n.Summary, "\n", " "))
		}
		t.Errorf("%s: axe %s (%s) %s\n\t%s", what, v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
	}
}

// TestBrowserAxe runs axe-core (pinned in testdata/axe's lockfile) on the
// course page, a player at the stale-owner step (its Redis panel's key
// table and PTTL labels, its controls), the Search page, /join and the
// "Your lock" page, empty and with a check's problems, at 1280x800 and on a
// 390x844 phone:
// no serious or critical violation, and no content outside a landmark
// (issue 38, item 16).
func TestBrowserAxe(t *testing.T) {
	t.Parallel()
	script := axeScript(t)
	ctx, l, ts := stalePlayer(t)
	step := staleStep(expectedFrames(t, l))
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		run(t, ctx, chromedp.EmulateViewport(size[0], size[1]))
		at := fmt.Sprintf(" at %dx%d", size[0], size[1])
		run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
		waitJS(t, ctx, `document.readyState === 'complete'`, "the course page")
		seriousAxe(t, ctx, script, "the course page"+at)
		// Step 1: the lock's hash with its field table; the stale step: an
		// actor's belief that Redis no longer backs.
		for _, n := range []int{1, step} {
			openStep(t, ctx, ts, l.ID, n, sim.English)
			waitJS(t, ctx, `!!document.querySelector('[data-panel="redis"] .keys')`, "the Redis panel")
			seriousAxe(t, ctx, script, fmt.Sprintf("the player at step %d%s", n, at))
		}
		run(t, ctx, chromedp.Navigate(ts.url+"/search?lang=en"))
		waitJS(t, ctx, `document.readyState === 'complete'`, "the Search page")
		seriousAxe(t, ctx, script, "the Search page"+at)
		run(t, ctx, chromedp.Navigate(ts.url+"/join?lang=zh-TW"))
		waitJS(t, ctx, `document.readyState === 'complete'`, "the join page")
		seriousAxe(t, ctx, script, "the join page"+at)
		run(t, ctx, chromedp.Navigate(ts.url+"/explore/lock?lang=en"))
		waitJS(t, ctx, `document.readyState === 'complete'`, "the lock page")
		seriousAxe(t, ctx, script, "the lock page"+at)
		// The lock page with a check's problems listed.
		_ = eval[bool](t, ctx, `(document.querySelector('[data-lock-variant]').value = 'name: x\nreentry: sometimes\n', true)`)
		run(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lock-check"]`)))
		waitNewDocument(t, ctx, `!!document.querySelector('[data-testid="lock-errors"]') && document.readyState === 'complete'`, "the problems")
		seriousAxe(t, ctx, script, "the lock page's problems"+at)
	}
	// Presenter mode at 1024 x 768, where its cards held the most (a fresh
	// review of issue 38: scrollable-region-focusable, a card that
	// scrolled with nothing in it a keyboard reaches).
	run(t, ctx, chromedp.EmulateViewport(1024, 768))
	for _, c := range []struct {
		id   string
		step int
	}{{"idempotent-unlock", 8}, {"redlock-node-clock-jump", 6}, {"long-script-blocks", 3}, {"fencing-check-then-write", 9}} {
		run(t, ctx, chromedp.Navigate(ts.url+lessonURL(c.id, c.step, sim.English, true)))
		waitStep(t, ctx, c.step)
		evalAwait[bool](t, ctx, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
		seriousAxe(t, ctx, script, fmt.Sprintf("presenter mode, %s step %d at 1024x768", c.id, c.step))
	}
}

// evalAwait evaluates a JS expression whose value is a promise and returns
// what it resolves to, as T.
func evalAwait[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}
