package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/explore"
	"lockstep/sim"
)

// Explore mode in a real browser: forking a lesson from the "What if?"
// panel, undo, share links, import, the custom clock advance and compare.
// Every check reads what the page shows (the URL, the header, the counter,
// the narration, the panels), not the websocket messages.

// exploreShown is what the player page shows of an explore timeline.
type exploreShown struct {
	Href      string `json:"href"`
	Path      string `json:"path"`
	T         string `json:"t"`
	StepParam string `json:"stepParam"`
	Step      string `json:"step"`
	Total     string `json:"total"`
	Conn      string `json:"conn"`
	Counter   string `json:"counter"`
	Title     string `json:"title"`
	Crumb     string `json:"crumb"`
	StepLabel string `json:"stepLabel"`
	Headline  string `json:"headline"`
	NarrStep  string `json:"narrStep"`
	Outcome   string `json:"outcome"`
	Say       string `json:"say"`
	Redis     string `json:"redis"`
	Undo      string `json:"undo"` // "enabled", "disabled" or "absent"
	Columns   int    `json:"columns"`
	Origin    string `json:"origin"`
	OriginTxt string `json:"originText"`
	ForkAt    string `json:"forkAt"`
	ForkHelp  string `json:"forkHelp"`
}

const readExploreShown = `(() => {
	const q = s => document.querySelector(s);
	const u = new URL(location.href);
	const p = q('#player');
	const undo = q('[data-explore="undo"]');
	const o = q('[data-testid="origin-link"]');
	return JSON.stringify({
		href: location.href, path: u.pathname, t: u.searchParams.get('t') || '', stepParam: u.searchParams.get('step') || '',
		step: p.dataset.step, total: p.dataset.total, conn: p.dataset.conn,
		counter: q('#counter')?.textContent.trim() || '',
		title: q('#lesson-title')?.textContent.trim() || '',
		crumb: q('.lesson-head .crumbs')?.textContent.trim() || '',
		stepLabel: q('[data-panel="narration"] .step-label')?.textContent.trim() || '',
		headline: q('[data-panel="narration"] .what')?.textContent.trim() || '',
		narrStep: q('[data-panel="narration"] .narr')?.dataset.step || '',
		outcome: q('[data-panel="narration"] [data-testid="outcome"]')?.textContent.trim() || '',
		say: q('[data-panel="narration"] [data-testid="say"]')?.textContent.trim() || '',
		redis: q('[data-panel="redis"]')?.innerText || '',
		undo: undo ? (undo.disabled ? 'disabled' : 'enabled') : 'absent',
		columns: document.querySelectorAll('[data-panel="timeline"] [data-col]').length,
		origin: o ? o.getAttribute('href') : '',
		originText: o ? o.textContent.trim() : '',
		forkAt: q('[data-fork-menu]')?.dataset.at || '',
		forkHelp: q('[data-testid="fork-help"]')?.textContent.trim() || '',
	});
})()`

func readExplore(t *testing.T, ctx context.Context) exploreShown {
	t.Helper()
	var s exploreShown
	if err := json.Unmarshal([]byte(eval[string](t, ctx, readExploreShown)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitExplore waits until the player is connected and shows step of total,
// in its narration, its counter and its explore panel.
func waitExplore(t *testing.T, ctx context.Context, step, total int) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(`(() => { const p = document.getElementById('player'); const n = document.querySelector('[data-panel="narration"] .narr');
		const m = document.querySelector('[data-fork-menu]');
		return p && p.dataset.conn === 'open' && p.dataset.step === '%[1]d' && p.dataset.total === '%[2]d'
			&& n && n.dataset.step === '%[1]d' && m && m.dataset.at === '%[1]d'; })()`, step, total), fmt.Sprintf("step %d of %d", step, total))
}

// forkButton is the fork menu's button for an actor's action.
func forkButton(actor string, do sim.Action) string {
	sel := fmt.Sprintf(`[data-fork-menu] button.fork-choice[data-spec*='"do":"%s"']`, do)
	if actor != "" {
		sel += fmt.Sprintf(`[data-spec*='"actor":"%s"']`, actor)
	}
	return sel
}

// clickFork presses a fork menu button, checking first that exactly one
// button matches.
func clickFork(t *testing.T, ctx context.Context, actor string, do sim.Action) {
	t.Helper()
	sel := forkButton(actor, do)
	if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n != 1 {
		t.Fatalf("the fork menu has %d buttons for %s %s, want 1", n, actor, do)
	}
	click(t, ctx, sel)
}

// navigateStatus navigates (or runs actions that navigate) and returns the
// HTTP status of the document that loads.
func navigateStatus(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) int64 {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(tctx, actions...)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return resp.Status
}

// forkedStaleOwner is stale-owner forked after step 4 (the lease has just
// expired under the paused A) with A resuming and then, when acquire is
// set, A acquiring again: the timeline the fork tests build by clicking.
func forkedStaleOwner(t *testing.T, all []*sim.Lesson, acquire bool) *sim.Lesson {
	t.Helper()
	l := lessonByID(t, all, "stale-owner")
	specs := []explore.StepSpec{{Actor: "A", Do: sim.ActResume}}
	if acquire {
		specs = append(specs, explore.StepSpec{Actor: "A", Do: sim.ActAcquire})
	}
	at := 4
	for _, sp := range specs {
		st, err := sp.Step(l, len(l.Steps))
		if err != nil {
			t.Fatal(err)
		}
		if l, err = explore.Fork(l, at, st); err != nil {
			t.Fatal(err)
		}
		at++
	}
	return l
}

// forkStaleOwner opens stale-owner at step 4 in the tab and forks it with
// A's resume from the fork menu, checking what the page shows before and
// after.
func forkStaleOwner(t *testing.T, ctx context.Context, ts *testServer, all []*sim.Lesson) exploreShown {
	t.Helper()
	l := lessonByID(t, all, "stale-owner")
	run(t, ctx, chromedp.Navigate(ts.url+"/lessons/stale-owner?step=4&lang=en"))
	waitStep(t, ctx, 4)
	waitExplore(t, ctx, 4, len(l.Steps))
	before := readExplore(t, ctx)
	if before.Undo != "absent" || before.Origin != "" {
		t.Fatalf("a course lesson offers undo (%s) or an origin link (%q)", before.Undo, before.Origin)
	}
	if before.ForkHelp != "After step 4, the next step could be:" {
		t.Fatalf("fork help %q", before.ForkHelp)
	}
	// A is paused: its only choice is resume, and the group says so.
	if got := eval[string](t, ctx, `[...document.querySelectorAll('[data-fork-menu] .fork-group')].find(g => g.getAttribute('aria-label').startsWith('A'))?.innerText || ''`); !strings.Contains(got, "paused") || !strings.Contains(got, "resume") {
		t.Fatalf("A's fork group shows %q, want it paused with resume", got)
	}
	clickFork(t, ctx, "A", sim.ActResume)
	waitJS(t, ctx, `(() => { const u = new URL(location.href); return u.pathname === '/explore' && !!u.searchParams.get('t') && u.searchParams.get('step') === '5'; })()`, "the fork's URL")
	waitExplore(t, ctx, 5, 5)
	return readExplore(t, ctx)
}

// TestBrowserExploreFork forks stale-owner from the fork menu at step 4 (A
// resumes right after its lease expired), then lets A acquire again: LOST.
func TestBrowserExploreFork(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	l := lessonByID(t, all, "stale-owner")
	s := forkStaleOwner(t, ctx, ts, all)
	// The header names the lesson and the step the fork leaves it at (the
	// wording is explore.ForkTitle's: "What if: “…” after step 4").
	wantTitle := tr(sim.English).Msg(explore.ForkTitle(l, 4))
	if s.Title != wantTitle || !strings.Contains(s.Title, "“"+l.Title.In(sim.English)+"”") || !strings.HasSuffix(s.Title, "after step 4") {
		t.Fatalf("header title %q, want %q", s.Title, wantTitle)
	}
	if sum := eval[string](t, ctx, `document.querySelector('.lesson-head .summary')?.textContent.trim() || ''`); sum != tr(sim.English).Msg(explore.ForkSummary(l, 4, 5)) {
		t.Fatalf("header summary %q, want the fork's, not the lesson's", sum)
	}
	if s.Crumb != "Explore: fork" {
		t.Fatalf("crumb %q", s.Crumb)
	}
	if s.Counter != "5 / 5" || s.StepLabel != "Step 5 of 5" || s.NarrStep != "5" {
		t.Fatalf("counter %q, step label %q, narration at step %s; want step 5 of 5", s.Counter, s.StepLabel, s.NarrStep)
	}
	if s.Headline != "A resumes" {
		t.Fatalf("headline %q", s.Headline)
	}
	if s.Undo != "enabled" {
		t.Fatalf("undo is %s on a fork with 5 steps", s.Undo)
	}
	if s.Columns != 6 {
		t.Fatalf("the timeline has %d columns, want 6 (start and 5 steps)", s.Columns)
	}
	ou, err := url.Parse(s.Origin)
	if err != nil || ou.Path != "/lessons/stale-owner" || ou.Query().Get("step") != "4" {
		t.Fatalf("origin link %q, want /lessons/stale-owner?...step=4", s.Origin)
	}
	if !strings.Contains(s.OriginTxt, "Original lesson") || !strings.Contains(s.OriginTxt, l.Title.In(sim.English)) {
		t.Fatalf("origin link text %q", s.OriginTxt)
	}
	if doc := eval[string](t, ctx, `document.title`); !strings.HasPrefix(doc, wantTitle) {
		t.Fatalf("document title %q", doc)
	}
	// The click scrolled to the menu; from the top, the sticky control bar
	// sits where it belongs in the full-page picture.
	_ = eval[bool](t, ctx, `(window.scrollTo(0, 0), true)`)
	shot(t, ctx, "explore-fork")

	// A acquires again: its lease expired while it was paused, so Redis no
	// longer knows its grant and the nested acquire is LOST.
	clickFork(t, ctx, "A", sim.ActAcquire)
	waitJS(t, ctx, `new URL(location.href).searchParams.get('step') === '6'`, "step 6 in the URL")
	waitExplore(t, ctx, 6, 6)
	s6 := readExplore(t, ctx)
	if s6.Outcome != "LOST" || s6.Counter != "6 / 6" {
		t.Fatalf("step 6 shows outcome %q, counter %q; want LOST, 6 / 6", s6.Outcome, s6.Counter)
	}
	if s6.Headline != "A acquires order:42" {
		t.Fatalf("step 6 headline %q", s6.Headline)
	}
	if !strings.Contains(s6.Say, "expired") || !strings.Contains(s6.Say, "A") {
		t.Fatalf("step 6 narration %q does not explain the expired lease", s6.Say)
	}
	if s6.T == s.T || s6.T == "" {
		t.Fatal("the URL's share code did not change with the new step")
	}
	// The page shows what running the same timeline gives.
	fl := forkedStaleOwner(t, all, true)
	frames := expectedFrames(t, fl)
	checkShown(t, fl, frames[6], readPage(t, ctx))
	if want := strings.TrimSpace(tr(sim.English).Msg(explore.Narrate(fl, &fl.Steps[5], frames[5], frames[6]))); s6.Say != want {
		t.Fatalf("step 6 narration %q, want %q", s6.Say, want)
	}
	// The kept steps are the lesson's: going back to step 2 shows the
	// lesson's outcome and narration there. (The Redis panel lists the keys
	// of the timeline, which no longer writes to the resource, so it is
	// checked against the fork's own run.)
	scrubTo(t, ctx, 2)
	waitExplore(t, ctx, 2, 6)
	lframes := expectedFrames(t, l)
	p := readPage(t, ctx)
	checkShown(t, fl, frames[2], p)
	if p.Outcome != string(lframes[2].Outcome) || frames[2].TimeMS != lframes[2].TimeMS {
		t.Fatalf("kept step 2 shows %s, the lesson %s", p.Outcome, lframes[2].Outcome)
	}
	if want := strings.TrimSpace(lframes[2].Say.In(sim.English)); p.Say != want {
		t.Fatalf("kept step 2 says %q, want the lesson's %q", p.Say, want)
	}
	// The fork is a history entry of its own: Back returns to the lesson at
	// the step forked from, Forward to the fork where it was left. (The
	// page loads again each time; Evaluate finds the new document, where
	// chromedp's Poll may keep the old one.)
	shows := func(js, what string) { t.Helper(); waitNewDocument(t, ctx, js, "after "+what) }
	_ = eval[bool](t, ctx, `(setTimeout(() => history.back(), 0), true)`)
	shows(`(() => { const p = document.getElementById('player'); return location.pathname === '/lessons/stale-owner' && !!p && p.dataset.conn === 'open' && p.dataset.step === '4' && !p.dataset.timeline; })()`, "Back from the fork")
	_ = eval[bool](t, ctx, `(setTimeout(() => history.forward(), 0), true)`)
	shows(`(() => { const p = document.getElementById('player'); return location.pathname === '/explore' && !!p && p.dataset.conn === 'open' && p.dataset.step === '2' && p.dataset.timeline === new URL(location.href).searchParams.get('t'); })()`, "Forward to the fork")
}

// TestBrowserExploreUndo undoes a fork's last step, and builds and undoes
// steps in a fresh sandbox.
func TestBrowserExploreUndo(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	s := forkStaleOwner(t, ctx, ts, all)
	click(t, ctx, `[data-explore="undo"]`)
	waitExplore(t, ctx, 4, 4)
	waitJS(t, ctx, fmt.Sprintf(`new URL(location.href).searchParams.get('t') !== %q`, s.T), "a new share code")
	u := readExplore(t, ctx)
	if u.Counter != "4 / 4" || u.Columns != 5 || u.T == "" || u.T == s.T {
		t.Fatalf("after undo: counter %q, %d columns, t %q (was %q)", u.Counter, u.Columns, u.T, s.T)
	}
	if u.Path != "/explore" {
		t.Fatalf("undo left explore mode: %s", u.Path)
	}
	// Step 4 shows what the lesson shows at step 4 (its Redis panel lists
	// the keys of the 4-step timeline, which never writes to the resource).
	l := lessonByID(t, all, "stale-owner")
	ul := explore.Undo(forkedStaleOwner(t, all, false))
	p := readPage(t, ctx)
	checkShown(t, ul, expectedFrames(t, ul)[4], p)
	if lf := expectedFrames(t, l)[4]; p.Outcome != string(lf.Outcome) || p.Say != strings.TrimSpace(lf.Say.In(sim.English)) {
		t.Fatalf("step 4 after undo shows %s %q, the lesson %s %q", p.Outcome, p.Say, lf.Outcome, lf.Say.In(sim.English))
	}

	// A fresh sandbox: nothing to undo.
	run(t, ctx, chromedp.Navigate(ts.url+"/explore/new?variant=token-count&lease_ms=30000&actors=2&lock=lock&lang=en"))
	waitExplore(t, ctx, 0, 0)
	sb := readExplore(t, ctx)
	if sb.Path != "/explore" || sb.T == "" || sb.Undo != "disabled" || sb.Counter != "0 / 0" || sb.Columns != 1 {
		t.Fatalf("fresh sandbox: path %s t %q undo %s counter %q columns %d", sb.Path, sb.T, sb.Undo, sb.Counter, sb.Columns)
	}
	if sb.Crumb != "Explore: sandbox" || sb.Origin != "" {
		t.Fatalf("sandbox crumb %q, origin %q", sb.Crumb, sb.Origin)
	}
	// Clicking the disabled button does nothing.
	_ = eval[bool](t, ctx, `(document.querySelector('[data-explore="undo"]').click(), true)`)
	clickFork(t, ctx, "A", sim.ActAcquire)
	waitExplore(t, ctx, 1, 1)
	if s := readExplore(t, ctx); s.Outcome != "ACQUIRED" || s.Undo != "enabled" {
		t.Fatalf("A's acquire: outcome %q, undo %s", s.Outcome, s.Undo)
	}
	clickFork(t, ctx, "B", sim.ActAcquire)
	waitExplore(t, ctx, 2, 2)
	two := readExplore(t, ctx)
	if two.Outcome != "BUSY" || two.Counter != "2 / 2" || two.Columns != 3 {
		t.Fatalf("B's acquire: outcome %q, counter %q, %d columns", two.Outcome, two.Counter, two.Columns)
	}
	click(t, ctx, `[data-explore="undo"]`)
	waitExplore(t, ctx, 1, 1)
	one := readExplore(t, ctx)
	if one.Counter != "1 / 1" || one.Columns != 2 || one.Outcome != "ACQUIRED" || one.T == two.T {
		t.Fatalf("after undo: counter %q, %d columns, outcome %q", one.Counter, one.Columns, one.Outcome)
	}
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-panel="timeline"] [data-col]')].map(c => c.dataset.col)`); strings.Join(got, ",") != "0,1" {
		t.Fatalf("timeline columns %v after undo, want 0,1", got)
	}
	// Undo down to the empty sandbox disables the button again.
	click(t, ctx, `[data-explore="undo"]`)
	waitExplore(t, ctx, 0, 0)
	if s := readExplore(t, ctx); s.Undo != "disabled" || s.T != sb.T {
		t.Fatalf("undo to empty: undo %s, t %q, want the fresh sandbox's %q", s.Undo, s.T, sb.T)
	}
}

// TestBrowserExploreShareLink opens a fork's URL in another browser context
// (no shared storage or session) and sees the same step; a tampered link
// shows the explore page with the bad-link box.
func TestBrowserExploreShareLink(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	forkStaleOwner(t, ctx, ts, all)
	clickFork(t, ctx, "A", sim.ActAcquire)
	waitExplore(t, ctx, 6, 6)
	first := readExplore(t, ctx)
	firstPage := readPage(t, ctx)
	if first.Outcome != "LOST" {
		t.Fatalf("outcome %q", first.Outcome)
	}

	// A second tab in a browser context of its own: nothing is shared
	// with the first but the link.
	other := newTab(t)
	if st := navigateStatus(t, other, chromedp.Navigate(first.Href)); st != http.StatusOK {
		t.Fatalf("the shared link answers %d", st)
	}
	waitExplore(t, other, 6, 6)
	second := readExplore(t, other)
	secondPage := readPage(t, other)
	if second.Href != first.Href {
		t.Fatalf("the shared page moved to %s, from %s", second.Href, first.Href)
	}
	for _, c := range []struct{ what, a, b string }{
		{"title", first.Title, second.Title},
		{"counter", first.Counter, second.Counter},
		{"outcome", first.Outcome, second.Outcome},
		{"headline", first.Headline, second.Headline},
		{"narration", first.Say, second.Say},
		{"Redis panel", first.Redis, second.Redis},
		{"origin link", first.Origin, second.Origin},
		{"diagram state", firstPage.State, secondPage.State},
	} {
		if c.a != c.b {
			t.Errorf("the shared link shows another %s:\n%q\nwant\n%q", c.what, c.b, c.a)
		}
	}
	if first.Redis == "" {
		t.Error("empty Redis panel")
	}
	// Stepping back in the second tab works on the shared timeline too.
	scrubTo(t, other, 5)
	waitExplore(t, other, 5, 6)

	// A tampered link: a 400 page that is still the explore page, with the
	// box that explains it.
	if st := navigateStatus(t, ctx, chromedp.Navigate(ts.url+"/explore?t=1.garbage-not-a-code&lang=en")); st != http.StatusBadRequest {
		t.Fatalf("a tampered link answers %d, want 400", st)
	}
	waitJS(t, ctx, `!!document.querySelector('[data-testid="bad-link"]')`, "the bad-link box")
	box := eval[string](t, ctx, `document.querySelector('[data-testid="bad-link"]').innerText`)
	// The detail is in plain words too, not a Go error.
	if !strings.Contains(box, "This timeline could not be opened") || !strings.Contains(box, "the link") || strings.Contains(box, "explore:") {
		t.Fatalf("bad-link box says %q", box)
	}
	if !eval[bool](t, ctx, `document.querySelector('[data-testid="bad-link"]').getBoundingClientRect().height > 0 && !!document.querySelector('[data-testid="sandbox-form"]') && !!document.querySelector('[data-testid="import-form"]') && !document.getElementById('player')`) {
		t.Fatal("the bad link page lacks the explore start page (box, sandbox and import forms)")
	}
	// A valid code cut short is bad too.
	if st := navigateStatus(t, ctx, chromedp.Navigate(ts.url+"/explore?lang=en&t="+url.QueryEscape(first.T[:len(first.T)-4]))); st != http.StatusBadRequest {
		t.Fatalf("a cut link answers %d, want 400", st)
	}
	waitJS(t, ctx, `!!document.querySelector('[data-testid="bad-link"]')`, "the bad-link box for a cut link")
}

// TestBrowserExploreImport pastes a lesson with an error (its errors are
// listed at their lines and the text is kept), then uploads a good file.
func TestBrowserExploreImport(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	run(t, ctx, chromedp.Navigate(ts.url+"/explore?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('[data-testid="import-text"]')`, "the import form")
	bad := "title: x\nvariant: token-count\nlease: 30s\nactors:\n  - id: A\nsteps:\n  - actor: A\n    do: jump\n"
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`[data-testid="import-text"]`), bad))
	if st := navigateStatus(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="import-form"] button[type="submit"]`))); st != http.StatusUnprocessableEntity {
		t.Fatalf("a bad paste answers %d, want 422", st)
	}
	waitJS(t, ctx, `!!document.querySelector('[data-testid="import-errors"]')`, "the import errors")
	errs := eval[string](t, ctx, `document.querySelector('[data-testid="import-errors"] ul').innerText`)
	if !strings.Contains(errs, "pasted.yaml:8:") || !strings.Contains(errs, "jump") {
		t.Fatalf("import errors %q do not name pasted.yaml:8: and the action", errs)
	}
	if got := eval[string](t, ctx, `document.querySelector('li#line-8.error')?.innerText || ''`); !strings.Contains(got, "do: jump") {
		t.Fatalf("line 8 is not marked: %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.import-lines li.error').length`); n != 1 {
		t.Fatalf("%d lines marked, want 1", n)
	}
	if v := eval[string](t, ctx, `document.querySelector('[data-testid="import-text"]').value`); v != bad {
		t.Fatalf("the textarea holds %q, want the pasted text", v)
	}
	// The error's link goes to its line.
	if href := eval[string](t, ctx, `document.querySelector('[data-testid="import-errors"] ul a').getAttribute('href')`); href != "#line-8" {
		t.Fatalf("error link %q", href)
	}

	// Upload a course lesson exported as a file.
	resp, err := http.Get(ts.url + "/explore/export.yaml?lesson=nested-reentry")
	if err != nil {
		t.Fatal(err)
	}
	yml, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %v", resp.StatusCode, err)
	}
	file := filepath.Join(t.TempDir(), "nested-reentry.yaml")
	if err := os.WriteFile(file, yml, 0o644); err != nil {
		t.Fatal(err)
	}
	l := lessonByID(t, all, "nested-reentry")
	run(t, ctx, chromedp.Navigate(ts.url+"/explore?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('input[name="file"]')`, "the file input")
	run(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`input[name="file"]`), []string{file}))
	if n := eval[string](t, ctx, `document.querySelector('input[name="file"]').files[0]?.name || ''`); n != "nested-reentry.yaml" {
		t.Fatalf("the file input holds %q", n)
	}
	if st := navigateStatus(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="import-form"] button[type="submit"]`))); st != http.StatusOK {
		t.Fatalf("the upload lands on %d, want 200", st)
	}
	waitExplore(t, ctx, 0, len(l.Steps))
	s := readExplore(t, ctx)
	if s.Path != "/explore" || s.T == "" {
		t.Fatalf("the upload landed on %s", s.Href)
	}
	if s.Title != l.Title.In(sim.English) {
		t.Fatalf("imported title %q, want %q", s.Title, l.Title.In(sim.English))
	}
	if s.Undo != "enabled" || s.Columns != len(l.Steps)+1 {
		t.Fatalf("imported timeline: undo %s, %d columns", s.Undo, s.Columns)
	}
	// Its last step is the lesson's.
	frames := expectedFrames(t, l)
	scrubTo(t, ctx, len(l.Steps))
	waitExplore(t, ctx, len(l.Steps), len(l.Steps))
	checkShown(t, l, frames[len(l.Steps)], readPage(t, ctx))
}

// TestBrowserExploreCustomAdvance advances a sandbox's clock by an amount
// typed into the fork menu's form.
func TestBrowserExploreCustomAdvance(t *testing.T) {
	t.Parallel()
	ctx, _ := tabAt(t, Config{}, "/explore/new?variant=token-count&lease_ms=30000&actors=2&lock=lock&lang=en")
	waitExplore(t, ctx, 0, 0)
	clickFork(t, ctx, "A", sim.ActAcquire)
	waitExplore(t, ctx, 1, 1)
	run(t, ctx, chromedp.SendKeys(chromedp.CSS(`[data-fork-custom] input[name="by_ms"]`), "45000"))
	click(t, ctx, `[data-fork-custom] button[type="submit"]`)
	waitExplore(t, ctx, 2, 2)
	s := readExplore(t, ctx)
	if s.Headline != "The clock moves on 45 s" {
		t.Fatalf("headline %q, want an advance of 45 s", s.Headline)
	}
	if s.Path != "/explore" || s.StepParam != "2" {
		t.Fatalf("URL %s", s.Href)
	}
	// 45 s is past the 30 s lease: the key is gone.
	if !strings.Contains(eval[string](t, ctx, `document.querySelector('[data-panel="narration"] .time').textContent`), "45 s") {
		t.Fatal("the narration's time is not 45 s")
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll('[data-panel="timeline"] [data-col="2"] title')].map(e => e.textContent).join(' ')`); !strings.Contains(got, "45 s") {
		t.Fatalf("timeline column 2 is titled %q", got)
	}
	// The clock-jump option of the same form.
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`[data-fork-custom] select[name="do"]`), "clock-jump"))
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`[data-fork-custom] input[name="by_ms"]`), "2500"))
	click(t, ctx, `[data-fork-custom] button[type="submit"]`)
	waitExplore(t, ctx, 3, 3)
	if s := readExplore(t, ctx); !strings.Contains(s.Headline, "2.5 s") {
		t.Fatalf("clock jump headline %q, want 2.5 s", s.Headline)
	}
}

// TestBrowserExploreCompare compares a course lesson under another variant
// from the player's compare form, then a fork's timeline.
func TestBrowserExploreCompare(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	l := lessonByID(t, all, "nested-after-expiry-silent")
	if l.Variant != "hash-refresh" {
		t.Fatalf("nested-after-expiry-silent is %s, the test expects hash-refresh", l.Variant)
	}
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, false)))
	waitStep(t, ctx, 0)
	opts := eval[[]string](t, ctx, `[...document.querySelectorAll('form[data-compare] select[name="b"] option')].map(o => o.value)`)
	if len(opts) == 0 || strings.Contains(strings.Join(opts, ","), "hash-refresh") {
		t.Fatalf("compare offers %v (not the lesson's own variant)", opts)
	}
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`form[data-compare] select[name="b"]`), "token-count"))
	if st := navigateStatus(t, ctx, chromedp.Click(chromedp.CSS(`form[data-compare] button[type="submit"]`))); st != http.StatusOK {
		t.Fatalf("compare answers %d", st)
	}
	checkCompare(t, ctx, "lesson", l.ID)

	// A fork's compare form names its timeline (filled in by the page).
	forkStaleOwner(t, ctx, ts, all)
	code := readExplore(t, ctx).T
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`form[data-compare] select[name="b"]`), "hash-refresh"))
	if st := navigateStatus(t, ctx, chromedp.Click(chromedp.CSS(`form[data-compare] button[type="submit"]`))); st != http.StatusOK {
		t.Fatalf("compare of a fork answers %d", st)
	}
	waitJS(t, ctx, `!!document.querySelector('[data-testid="compare-summary"]')`, "the compare page")
	u, _ := url.Parse(eval[string](t, ctx, `location.href`))
	if u.Query().Get("t") != code || u.Query().Get("a") != "token-count" || u.Query().Get("b") != "hash-refresh" {
		t.Fatalf("compare of a fork asked for %s", u.RawQuery)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.compare-table tbody tr').length`); n != 5 {
		t.Fatalf("compare of the 5-step fork has %d rows", n)
	}
}

// checkCompare checks the compare page: the row marked first is the first
// whose outcomes differ, and the summary names it.
func checkCompare(t *testing.T, ctx context.Context, name, value string) {
	t.Helper()
	waitJS(t, ctx, `!!document.querySelector('[data-testid="compare-summary"]')`, "the compare page")
	u, _ := url.Parse(eval[string](t, ctx, `location.href`))
	if u.Path != "/explore/compare" || u.Query().Get(name) != value || u.Query().Get("a") != "hash-refresh" || u.Query().Get("b") != "token-count" {
		t.Fatalf("compare URL %s", u)
	}
	var rows []struct {
		Step  string `json:"step"`
		Cls   string `json:"cls"`
		A     string `json:"a"`
		B     string `json:"b"`
		First bool   `json:"first"`
	}
	raw := eval[string](t, ctx, `JSON.stringify([...document.querySelectorAll('.compare-table tbody tr')].map(r => ({
		step: r.dataset.step, cls: r.className, first: r.classList.contains('first'),
		a: r.cells[2].querySelector('.outcome')?.textContent || '', b: r.cells[3].querySelector('.outcome')?.textContent || ''})))`)
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, r := range rows {
		if r.First {
			if first != "" {
				t.Fatalf("two rows marked first: %s and %s", first, r.Step)
			}
			first = r.Step
			if r.A == r.B {
				t.Fatalf("row %s is marked first but shows %s under both", r.Step, r.A)
			}
			continue
		}
		if first == "" && r.A != r.B {
			t.Fatalf("row %s differs (%s vs %s) before the row marked first", r.Step, r.A, r.B)
		}
	}
	if first == "" {
		t.Fatalf("no row marked first: %s", raw)
	}
	summary := eval[string](t, ctx, `document.querySelector('[data-testid="compare-summary"]').textContent`)
	if !strings.Contains(summary, "first differ at step "+first) {
		t.Fatalf("summary %q does not name step %s", summary, first)
	}
	if !eval[bool](t, ctx, `(() => { const r = document.querySelector('tr.first'); const s = getComputedStyle(r); return r.getBoundingClientRect().height > 0 && s.visibility !== 'hidden'; })()`) {
		t.Fatal("the first differing row is not visible")
	}
}

// TestBrowserBackOverSkipLinkAndFocus: Back over the skip link's
// #fragment keeps the page (no reload) and sets the address to the step
// shown, so that a later fork's Back returns to that step; a fork choice
// and Undo pressed from the keyboard leave the focus in the panel, not on
// the page's body.
func TestBrowserBackOverSkipLinkAndFocus(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	l := lessonByID(t, all, "stale-owner")
	run(t, ctx, chromedp.Navigate(ts.url+"/lessons/stale-owner?lang=en"))
	waitExplore(t, ctx, 0, len(l.Steps))
	_ = eval[bool](t, ctx, `(window.sameDocument = true, window.entries = history.length, document.querySelector('a.skip').click(), true)`)
	// The fragment is a history entry (the page then keeps its address at
	// the step shown, without the fragment).
	waitJS(t, ctx, `history.length === window.entries + 1`, "the skip link's history entry")
	for i := 1; i <= 3; i++ {
		click(t, ctx, "#btn-step")
		waitExplore(t, ctx, i, len(l.Steps))
	}
	_ = eval[bool](t, ctx, `(setTimeout(() => history.back(), 0), true)`)
	waitJS(t, ctx, `location.hash === '' && new URL(location.href).searchParams.get('step') === '3'`, "the address at the step shown after Back")
	if !eval[bool](t, ctx, `window.sameDocument === true && document.getElementById('player').dataset.step === '3'`) {
		t.Fatal("Back over the skip link reloaded the page or moved it")
	}
	// A fork choice from the keyboard.
	_ = eval[bool](t, ctx, `(document.querySelector('[data-fork-menu] .fork-choice').focus(), true)`)
	run(t, ctx, chromedp.KeyEvent(kb.Enter)) // on the focused control (press blurs first)
	waitJS(t, ctx, `location.pathname === '/explore' && document.getElementById('player').dataset.total === '4'`, "the fork")
	waitJS(t, ctx, `!!document.activeElement && document.activeElement.matches('[data-panel="explore"] .fork-choice')`, "the focus on a fork choice after the fork")
	// A double click on Undo takes back one step: the button is off from
	// the first click until its answer.
	click(t, ctx, `[data-fork-menu] .fork-choice`)
	waitJS(t, ctx, `document.getElementById('player').dataset.total === '5'`, "a second added step")
	_ = eval[bool](t, ctx, `(b => (b.click(), b.click(), true))(document.querySelector('[data-explore="undo"]'))`)
	waitJS(t, ctx, `document.getElementById('player').dataset.total === '4' && !document.querySelector('[data-explore="undo"]').disabled`, "one undo")
	// The server answers a page's messages in order: once a later step
	// back is answered, a second undo would have been.
	click(t, ctx, "#btn-back")
	waitJS(t, ctx, `document.getElementById('player').dataset.step === '3'`, "the step back after the undo")
	if got := eval[string](t, ctx, `document.getElementById('player').dataset.total + ' ' + (document.getElementById('player').dataset.errors || '0')`); got != "4 0" {
		t.Fatalf("after a double click on Undo: total and errors %q, want one step taken back and no error", got)
	}
	// Undo from the keyboard: it goes off at the fork point, and the focus
	// moves to the next tool.
	_ = eval[bool](t, ctx, `(document.querySelector('[data-explore="undo"]').focus(), true)`)
	run(t, ctx, chromedp.KeyEvent(kb.Enter)) // on the focused control (press blurs first)
	waitJS(t, ctx, `document.getElementById('player').dataset.total === '3' && document.querySelector('[data-explore="undo"]').disabled`, "the undo back to the fork point")
	waitJS(t, ctx, `!!document.activeElement && !!document.activeElement.closest('.explore-tools') && !document.activeElement.disabled`, "the focus in the tools after undo")
	// Back returns to the lesson at step 3, where the fork was made.
	_ = eval[bool](t, ctx, `(setTimeout(() => history.back(), 0), true)`)
	waitNewDocument(t, ctx, `(() => { const p = document.getElementById('player'); return location.pathname === '/lessons/stale-owner' && !!p && p.dataset.conn === 'open' && p.dataset.step === '3'; })()`, "Back from the fork")
}

// TestBrowserUndoWhileIdle: Undo clicked on a page closed for inactivity
// connects again and leaves the button usable (it used to stay off for
// good: the click was never sent, and the reconnect's frame brought the
// same tools, left in place). The page opens the share link of a sandbox
// with two acquires, so nothing before the idle close races its timer.
func TestBrowserUndoWhileIdle(t *testing.T) {
	t.Parallel()
	ctx, _, ts := courseTab(t, Config{IdleTimeout: 5 * time.Second})
	l, err := explore.Sandbox(tr(sim.English).cat, explore.SandboxConfig{Variant: "token-count", LeaseMS: 30000, Actors: 2, Lock: "lock"})
	if err != nil {
		t.Fatal(err)
	}
	for at, actor := range []string{"A", "B"} {
		st, err := explore.StepSpec{Actor: actor, Do: sim.ActAcquire}.Step(l, len(l.Steps))
		if err != nil {
			t.Fatal(err)
		}
		if l, err = explore.Fork(l, at, st); err != nil {
			t.Fatal(err)
		}
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(ts.url+"/explore?lang=en&step=2&t="+url.QueryEscape(code)))
	waitJS(t, ctx, `document.getElementById('player')?.dataset.total === '2' && document.querySelector('[data-panel="narration"] .narr')?.dataset.step === '2'`, "the sandbox at step 2 of 2")
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'idle'`, "the page to be closed for inactivity")
	click(t, ctx, `[data-explore="undo"]`)
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'open'`, "the page to connect again")
	waitJS(t, ctx, `!document.querySelector('[data-explore="undo"]').disabled`, "Undo on again")
	click(t, ctx, `[data-explore="undo"]`)
	waitExplore(t, ctx, 1, 1)
}
