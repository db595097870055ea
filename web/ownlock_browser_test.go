package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserOwnLock is issue 19 item 5 as a learner does it: paste the
// Redisson example's variant file and scripts on the Explore page, get the
// course table, open lesson 12 in the player under the lock (the first
// step that differs, its narration generated and marked), and open the
// lock's link in a fresh browser context: the same table and files.
func TestBrowserOwnLock(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	ts := startServer(t, Config{Lessons: lockCourse(t, "nested-after-expiry-lost")}, "127.0.0.1:0")
	files := redissonFiles(t)
	run(t, ctx, chromedp.Navigate(ts.url+"/explore?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('[data-testid="lock-form"]')`, "the Your lock form")
	fields := []string{"variant_name", "variant", "script_name_1", "script_1", "script_name_2", "script_2", "script_name_3", "script_3"}
	for _, name := range fields {
		run(t, ctx, chromedp.SetValue(chromedp.CSS(fmt.Sprintf(`[data-testid="lock-form"] [name=%q]`, name)), files[name]))
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lock-check"]`)))
	// readyState: the page is parsed whole, every row in (a loaded machine
	// parsed the table in chunks, and a read found 43 rows of 47).
	waitNewDocument(t, ctx, `location.pathname === '/explore/lock' && document.readyState !== 'loading' && !!document.querySelector('[data-testid="lock-table"]')`, "the course table")
	share := eval[string](t, ctx, `location.href`)
	table := func() string {
		return eval[string](t, ctx, `JSON.stringify([...document.querySelectorAll('[data-testid="lock-table"] tr[data-lesson]')].map(r => r.dataset.lesson + ':' + r.dataset.kind + ':' + r.dataset.step))`)
	}
	rows := table()
	if !strings.Contains(rows, "nested-after-expiry-lost:differs:6") {
		t.Fatalf("the course table under Redisson: %s", rows)
	}
	// Open lesson 12 in the player under the lock: it starts at step 6,
	// narrated from the run.
	run(t, ctx, chromedp.Click(chromedp.CSS(`tr[data-lesson="nested-after-expiry-lost"] [data-testid="lock-open"]`)))
	waitNewDocument(t, ctx, `!!document.getElementById('player') && document.getElementById('player').dataset.conn === 'open'`, "the player under the lock")
	waitStep(t, ctx, 6)
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="outcome"]')?.textContent || ''`); got != "ACQUIRED" {
		t.Errorf("step 6 under Redisson shows %q", got)
	}
	if !eval[bool](t, ctx, `!!document.querySelector('[data-testid="say-generated"]') && !document.querySelector('[data-testid="say"]').textContent.includes('answers LOST')`) {
		t.Error("step 6's narration is not the generated one, marked")
	}
	if crumb := eval[string](t, ctx, `document.title + ' | ' + document.body.innerText`); !strings.Contains(crumb, "Explore: your lock") || !strings.Contains(crumb, "redisson-rlock") {
		t.Errorf("the player does not say it runs your lock: %.200s", crumb)
	}
	// The lock's link, in a fresh browser context.
	fresh := newTab(t)
	run(t, fresh, chromedp.Navigate(share))
	waitJS(t, fresh, `document.readyState !== 'loading' && !!document.querySelector('[data-testid="lock-table"]')`, "the shared course table")
	again := eval[string](t, fresh, `JSON.stringify([...document.querySelectorAll('[data-testid="lock-table"] tr[data-lesson]')].map(r => r.dataset.lesson + ':' + r.dataset.kind + ':' + r.dataset.step))`)
	if again != rows {
		t.Errorf("the shared link's table differs:\n%s\n%s", again, rows)
	}
	if v := eval[string](t, fresh, `document.querySelector('[data-testid="lock-variant"]').value`); v != files["variant"] {
		t.Error("the shared link does not carry the variant file")
	}
}
