package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// courseRows is what the course page shows of its lists, measured in the
// browser: each lesson row's height and whether its variant, step count
// and sources are on screen; the index's links with the section each
// names; the page's height.
type courseRows struct {
	Rows []struct {
		ID      string  `json:"id"`
		Height  float64 `json:"h"`
		Variant bool    `json:"variant"`
		Steps   bool    `json:"steps"`
		Source  bool    `json:"source"`
		Info    bool    `json:"info"`
	} `json:"rows"`
	Index []struct {
		Text    string `json:"text"`
		Target  string `json:"target"`
		Heading string `json:"heading"`
	} `json:"index"`
	Groups     int     `json:"groups"`
	ListHeight float64 `json:"listHeight"`
}

// readCourseRows measures the course page (courseRows) in the tab.
func readCourseRows(t *testing.T, ctx context.Context) courseRows {
	t.Helper()
	raw := eval[[]byte](t, ctx, `(() => {
		const shown = el => !!el && el.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: true});
		const rows = [...document.querySelectorAll('.lesson-card')].map(c => ({
			id: c.dataset.lesson, h: c.getBoundingClientRect().height,
			variant: shown(c.querySelector('.variant')), steps: shown(c.querySelector('.steps')),
			source: shown(c.querySelector('.source')), info: shown(c.querySelector('[data-lesson-info] summary')),
		}));
		const nav = document.querySelector('nav[data-testid="course-index"]');
		const index = nav ? [...nav.querySelectorAll('a')].map(a => {
			const id = decodeURIComponent(new URL(a.href).hash.slice(1));
			const sec = document.getElementById(id);
			return {text: a.textContent.trim(), target: id, heading: sec && sec.matches('.lesson-group') ? sec.querySelector('h2').textContent.trim() : ''};
		}) : [];
		const groups = [...document.querySelectorAll('.lesson-group')];
		const top = groups[0].getBoundingClientRect().top, bottom = groups[groups.length - 1].getBoundingClientRect().bottom;
		return {rows, index, groups: groups.length, listHeight: bottom - top};
	})()`)
	var c courseRows
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBrowserCourseCompactList: the course page is a compact list (issue
// 38, item 15): at 1280x800 every lesson is one row at most 80 px high
// (at most 130 px on a 390x844 phone; the cards were 130 and 250), the variant, step count and
// sources of a lesson are off screen until its info mark opens them (and
// then on screen, within the window), and an index at the top links to
// every part of the course, named as its heading, and scrolls it to the
// top.
func TestBrowserCourseCompactList(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	for _, size := range []struct {
		w, h   int64
		maxRow float64
	}{{1280, 800, 80}, {390, 844, 130}} {
		at := fmt.Sprintf("at %dx%d", size.w, size.h)
		run(t, ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(ts.url+"/?lang=en"))
		waitJS(t, ctx, `document.readyState === 'complete'`, "the course page")
		c := readCourseRows(t, ctx)
		if len(c.Rows) != len(all) {
			t.Fatalf("%s: %d rows for %d lessons", at, len(c.Rows), len(all))
		}
		for _, r := range c.Rows {
			if r.Height > size.maxRow {
				t.Errorf("%s: lesson %s's row is %.0f px high, want at most %.0f", at, r.ID, r.Height, size.maxRow)
			}
			if r.Variant || r.Steps || r.Source {
				t.Errorf("%s: lesson %s shows its variant (%v), steps (%v) or sources (%v) before its info mark opens", at, r.ID, r.Variant, r.Steps, r.Source)
			}
			if !r.Info {
				t.Errorf("%s: lesson %s has no info mark on screen", at, r.ID)
			}
		}
		if max := float64(len(all))*size.maxRow + float64(c.Groups)*80; c.ListHeight > max {
			t.Errorf("%s: the lessons take %.0f px, want at most %.0f", at, c.ListHeight, max)
		}
		if len(c.Index) != c.Groups || c.Groups == 0 {
			t.Fatalf("%s: the index has %d links for %d parts", at, len(c.Index), c.Groups)
		}
		for _, l := range c.Index {
			if l.Heading == "" || l.Heading != l.Text {
				t.Errorf("%s: index link %q goes to #%s, headed %q", at, l.Text, l.Target, l.Heading)
			}
		}
		// The last part's link scrolls the part to the window's top.
		last := c.Index[len(c.Index)-1].Target
		click(t, ctx, fmt.Sprintf(`nav[data-testid="course-index"] a[href="#%s"]`, last))
		waitJS(t, ctx, fmt.Sprintf(`Math.abs(document.getElementById(%q).getBoundingClientRect().top) < 40`, last), "the last part at the top")
		// The first lesson's info mark opens its sources, on screen.
		_ = eval[bool](t, ctx, `scrollTo(0, 0), true`)
		first := c.Rows[0].ID
		click(t, ctx, fmt.Sprintf(`.lesson-card[data-lesson=%q] [data-lesson-info] summary`, first))
		box := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('.lesson-card[data-lesson=%q] .source');
			if (!s || !s.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true})) return [];
			const r = s.getBoundingClientRect(); return [r.left, r.right, r.width, r.height, innerWidth]; })()`, first))
		if len(box) != 5 || box[2] == 0 || box[3] == 0 || box[0] < 0 || box[1] > box[4] {
			t.Errorf("%s: the opened info of %s shows its sources at %v (left, right, width, height, window)", at, first, box)
		}
	}
}

// TestBrowserCourseWayfinding: the course page says how far the learner
// is and where to go (issue 38, item 13): "Start here" to the first lesson
// with nothing stored; after a lesson stepped through in the player and
// another stepped into, "1 of N lessons done" with its bar a 1/N of its
// width and "Continue: <title>" to the lesson opened last at the step it
// stopped. And the player has the site's navigation, the same links as
// the course page's, on the first screen at 1280x800.
func TestBrowserCourseWayfinding(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	ui := tr(sim.English).UI()
	type next struct {
		Href, Text, Count, Kind string
		Bar, Track              float64
	}
	readNext := func() next {
		raw := eval[[]byte](t, ctx, `(() => { const a = document.querySelector('[data-course-next]'), b = document.querySelector('[data-course-bar]');
			const box = document.querySelector('[data-course-progress]');
			return a && b ? {Href: a.getAttribute('href'), Text: a.textContent.trim(), Count: document.querySelector('[data-course-count]').textContent.trim(),
				Kind: box.dataset.kind || '', Bar: b.getBoundingClientRect().width, Track: b.parentElement.getBoundingClientRect().width} : {}; })()`)
		var n next
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	count := func(done int) string {
		return strings.NewReplacer("{done}", fmt.Sprint(done), "{total}", fmt.Sprint(len(all))).Replace(ui.CourseDoneCount)
	}
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, `document.querySelector('[data-course-progress]')?.dataset.kind === 'start'`, "the course's progress read")
	first := all[0]
	n := readNext()
	if want := strings.ReplaceAll(ui.CourseStartHere, "{title}", first.Title.In(sim.English)); n.Text != want || !strings.HasPrefix(n.Href, "/lessons/"+first.ID+"?") || n.Count != count(0) || n.Bar != 0 {
		t.Errorf("a new learner: %+v, want %q to %s, %q, an empty bar", n, want, first.ID, count(0))
	}
	// The first lesson stepped through to its end, the third stepped into.
	third := all[2]
	openStep(t, ctx, ts, first.ID, len(first.Steps)-1, sim.English)
	click(t, ctx, "#btn-step")
	waitStep(t, ctx, len(first.Steps))
	openStep(t, ctx, ts, third.ID, 1, sim.English)
	click(t, ctx, "#btn-step")
	waitStep(t, ctx, 2)
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, `document.querySelector('[data-course-progress]')?.dataset.kind === 'continue'`, "the course's progress read")
	n = readNext()
	if want := strings.ReplaceAll(ui.CourseContinue, "{title}", third.Title.In(sim.English)); n.Text != want || !strings.HasPrefix(n.Href, "/lessons/"+third.ID+"?") || !strings.Contains(n.Href, "step=2") {
		t.Errorf("after two lessons: next %q to %s, want %q to %s at step 2", n.Text, n.Href, want, third.ID)
	}
	if n.Count != count(1) || n.Track == 0 || math.Abs(n.Bar/n.Track-1/float64(len(all))) > 0.02 {
		t.Errorf("after one lesson done: %q, bar %.1f of %.1f px, want %q and 1/%d", n.Count, n.Bar, n.Track, count(1), len(all))
	}
	// Continue opens the third lesson at step 2.
	click(t, ctx, "[data-course-next]")
	waitNewDocument(t, ctx, fmt.Sprintf(`document.getElementById('player')?.dataset.lesson === %q && document.getElementById('player').dataset.step === '2'`, third.ID), "Continue")
	// The player's site navigation: the course page's links, on screen.
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, `document.readyState === 'complete'`, "the course page")
	courseNav := eval[[]string](t, ctx, `[...document.querySelectorAll('header.site nav.site-nav a')].map(a => a.getAttribute('href'))`)
	openStep(t, ctx, ts, third.ID, 2, sim.English)
	playerNav := eval[[]string](t, ctx, `[...document.querySelectorAll('#player header nav.site-nav a')].filter(a => {
		const r = a.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= 200; }).map(a => a.getAttribute('href'))`)
	if len(courseNav) == 0 || strings.Join(playerNav, " ") != strings.Join(courseNav, " ") {
		t.Errorf("the player's site navigation on screen: %q, want the course page's %q", playerNav, courseNav)
	}
}

// TestBrowserPageScreenshots writes the course page and the "Your lock"
// page (an example loaded, then checked with a problem) at 1280x800: to
// docs/screenshot-course.png, docs/screenshot-lock.png and
// docs/screenshot-lock-problems.png with
// -update-screenshot, else to a temporary directory, checked to be PNGs.
func TestBrowserPageScreenshots(t *testing.T) {
	t.Parallel()
	ctx, _, ts := courseTab(t, Config{})
	dir := t.TempDir()
	if *updateScreenshot {
		dir = filepath.Join(repoRoot(t), "docs")
	}
	shoot := func(name string) {
		t.Helper()
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(buf)); err != nil {
			t.Fatalf("%s is not a PNG: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+"/?lang=en"))
	waitJS(t, ctx, `document.querySelector('[data-course-progress]')?.dataset.kind === 'start'`, "the course page")
	shoot("screenshot-course.png")
	run(t, ctx, chromedp.Navigate(ts.url+"/explore/lock?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('button[data-lock-example="redisson-rlock"]')`, "the lock page")
	click(t, ctx, `button[data-lock-example="redisson-rlock"]`)
	_ = eval[bool](t, ctx, `(document.activeElement.blur(), scrollTo(0, 0), true)`)
	shoot("screenshot-lock.png")
	_ = eval[bool](t, ctx, `(() => { const v = document.querySelector('[data-lock-variant]'); v.value = v.value.replace('reentry: redis', 'reentry: sometimes'); return true; })()`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lock-check"]`)))
	waitNewDocument(t, ctx, `!!document.querySelector('[data-testid="lock-errors"]') && document.readyState === 'complete'`, "the problems")
	shoot("screenshot-lock-problems.png")
}
