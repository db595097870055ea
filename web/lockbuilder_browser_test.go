package web

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// TestBrowserLockBuilderRenew is issue 33 item 8 as a learner does it: on
// the "Your lock" page, the builder (static/lockform.js) writes a variant
// file with a renew section (a watchdog every lease/3) and names its
// scripts in the form; with the scripts of testdata/builder pasted under
// those names, the server's checks accept the file (the lock passes and
// its page carries the builder's file as written) and the course's
// watchdog lesson runs under it, renewals and all. The server serves only
// that lesson, so the table costs one lesson's run.
func TestBrowserLockBuilderRenew(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	watchdog, err := sim.LoadFile("../lessons/15-watchdog-renewal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{Lessons: []*sim.Lesson{watchdog}}, "127.0.0.1:0")
	run(t, ctx, chromedp.Navigate(ts.url+"/explore/lock?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('[data-testid="lock-builder"]')`, "the variant file builder")
	click(t, ctx, `[data-testid="lock-builder"] summary`)
	click(t, ctx, `[data-lock-builder] [name="b_renew_on"]`)
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`[data-lock-builder] [name="b_renew_every"]`), "lease/3"))
	click(t, ctx, `[data-lock-builder] [data-lock-write]`)
	written := eval[string](t, ctx, `document.querySelector('[data-testid="lock-variant"]').value`)
	if !strings.Contains(written, "\nrenew:\n  script: renew.lua\n  every: lease/3\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {1: RENEWED, 0: GONE}\n") {
		t.Fatalf("the builder wrote no renew section:\n%s", written)
	}
	var slots []string
	if err := json.Unmarshal(eval[[]byte](t, ctx, `[...document.querySelectorAll('[data-testid="lock-form"] input[name^="script_name_"]')].map(f => f.value)`), &slots); err != nil {
		t.Fatal(err)
	}
	if strings.Join(slots, ",") != "acquire.lua,release.lua,renew.lua," {
		t.Fatalf("the builder named the scripts %q", slots)
	}
	for i, name := range slots[:3] {
		text, err := os.ReadFile("testdata/builder/" + name)
		if err != nil {
			t.Fatal(err)
		}
		run(t, ctx, chromedp.SetValue(chromedp.CSS(fmt.Sprintf(`[data-testid="lock-script-%d"]`, i+1)), string(text)))
	}
	click(t, ctx, `[data-testid="lock-check"]`)
	waitNewDocument(t, ctx, `!!document.querySelector('[data-testid="lock-table"], [data-testid="lock-errors"], [data-testid="lock-failed"]')`, "the check's answer")
	if problems := eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="lock-error"], [data-testid="lock-failed"]')].map(e => e.textContent).join('\n')`); problems != "" {
		t.Fatalf("the server refused the builder's file:\n%s\n%s", problems, written)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="lock-passed"]')?.dataset.lock || ''`); got != "my-lock" {
		t.Fatalf("the lock that passed is %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="lock-variant"]').value`); got != written {
		t.Errorf("the lock's page carries another file:\n%s", got)
	}
	row := eval[string](t, ctx, `(() => { const r = document.querySelector('tr[data-lesson="watchdog-renewal"]'); return r ? r.dataset.kind + ': ' + r.querySelector('[data-testid="lock-verdict"]').textContent : ''; })()`)
	if !strings.HasPrefix(row, "same:") {
		t.Errorf("the watchdog lesson under the builder's lock: %q", row)
	}
}
