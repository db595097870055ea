package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// This file holds the browser tests of issue 38: the player in front of a
// room (presenter mode, the class panel) and for a learner on their own.

// laneFit is what the page measures of presenter mode's timeline: its
// card's height against the screen's, and the drawn size (font size times
// the drawing's scale) of every text of its lanes that is on the screen.
type laneFit struct {
	ViewH    float64 `json:"viewH"`
	CardH    float64 `json:"cardH"`
	MinText  float64 `json:"minText"`
	Smallest string  `json:"smallest"`
	Texts    int     `json:"texts"`
}

const measureLanes = `(() => {
	const card = document.getElementById('panel-timeline').getBoundingClientRect();
	const sc = document.querySelector('[data-panel="timeline"] .tl-scroll').getBoundingClientRect();
	let min = Infinity, smallest = '', n = 0;
	for (const el of document.querySelectorAll('[data-panel="timeline"] .tl svg text')) {
		const b = el.getBoundingClientRect();
		if (b.width === 0 || getComputedStyle(el).display === 'none') continue;
		// only what the visible window of steps shows (the labels' column is always shown)
		if (el.closest('.tl-body') && (b.right < sc.left || b.left > sc.right)) continue;
		if (b.bottom > innerHeight + 0.5) { min = 0; smallest = 'below the screen: ' + el.textContent; break; }
		const px = parseFloat(getComputedStyle(el).fontSize) * el.getScreenCTM().a;
		n++;
		if (px < min) { min = px; smallest = el.getAttribute('class') + ' ' + el.textContent; }
	}
	return {viewH: innerHeight, cardH: card.height, minText: min, smallest, texts: n};
})()`

// TestBrowserPresenterLanesReadable: in presenter mode at 1280 x 800 and
// 1024 x 768, on the stale-owner lesson's step 7 (two banners up), the
// timeline takes at least 35% of the screen's height and every text of
// its lanes on the screen is drawn at least 11 px tall (issue 38, item 1:
// it was 127 px and 5 px), and the two banners are one line each, side by
// side. With -update-screenshot it writes both to
// docs/.
func TestBrowserPresenterLanesReadable(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	for _, s := range []struct{ w, h int64 }{{1280, 800}, {1024, 768}} {
		where := fmt.Sprintf("%dx%d", s.w, s.h)
		run(t, ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(ts.url+lessonURL(l.ID, 7, sim.English, true)))
		waitStep(t, ctx, 7)
		waitJS(t, ctx, currentColumnInView, where+": step 7's column in view")
		var f laneFit
		if err := json.Unmarshal(eval[[]byte](t, ctx, measureLanes), &f); err != nil {
			t.Fatal(err)
		}
		if f.CardH < 0.35*f.ViewH {
			t.Errorf("%s: the timeline is %.0f px of a %.0f px screen, want at least 35%%", where, f.CardH, f.ViewH)
		}
		if f.Texts < 10 || f.MinText < 11 {
			t.Errorf("%s: the lanes' smallest text (%s) is drawn %.1f px tall (%d texts), want at least 11", where, f.Smallest, f.MinText, f.Texts)
		}
		checkFit(t, where, readFit(t, ctx))
		// The banners: one line each, side by side (issue 38, item 1: they
		// took more room than the lanes).
		var banners []struct {
			Top   float64 `json:"top"`
			Lines float64 `json:"lines"`
		}
		if err := json.Unmarshal(eval[[]byte](t, ctx, `[...document.querySelectorAll('#panel-alerts .banner')].map(b => {
			const d = b.querySelector(':scope > div'), fs = parseFloat(getComputedStyle(d).fontSize);
			return {top: Math.round(b.getBoundingClientRect().top), lines: d.getBoundingClientRect().height / (1.6 * fs)}; })`), &banners); err != nil {
			t.Fatal(err)
		}
		if len(banners) != 2 {
			t.Errorf("%s: step 7 shows %d banners, want 2", where, len(banners))
		}
		for i, b := range banners {
			if b.Top != banners[0].Top || b.Lines > 1 {
				t.Errorf("%s: banner %d at y=%.0f (the first at %.0f), %.1f lines tall; want one line, beside the first", where, i, b.Top, banners[0].Top, b.Lines)
			}
		}
		shootScreen(t, ctx, "screenshot-presenter-"+where+".png")
		t.Logf("%s: timeline %.0f px of %.0f, smallest lane text %.1f px (%s)", where, f.CardH, f.ViewH, f.MinText, f.Smallest)
	}
}

// TestBrowserCourseMapNumbers: the course map's lesson numbers (issue 38,
// item 7: each was an empty navy disc, the lesson card's .lesson-num
// leaking into the map) show their text at a contrast of at least 4.5:1
// against what is behind them, and are no taller than a line.
func TestBrowserCourseMapNumbers(t *testing.T) {
	t.Parallel()
	ctx, _ := tabAt(t, Config{Lessons: testLessons(t)}, "/")
	eval[bool](t, ctx, contrastJS)
	var got []struct {
		Text     string  `json:"text"`
		Contrast float64 `json:"contrast"`
		H        float64 `json:"h"`
		LineH    float64 `json:"lineH"`
	}
	raw := eval[[]byte](t, ctx, `[...document.querySelectorAll('.course-map .lesson-num')].map(el => ({
		text: el.textContent.trim(), contrast: contrast(el), h: el.getBoundingClientRect().height,
		lineH: el.parentElement.getBoundingClientRect().height}))`)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) < 10 {
		t.Fatalf("the course map shows %d lesson numbers", len(got))
	}
	for _, n := range got {
		if n.Text == "" || n.Contrast < 4.5 || n.H > 30 {
			t.Errorf("course map number %q: contrast %.2f:1, %.0f px tall (its line %.0f px); want text at 4.5:1 or more in one line", n.Text, n.Contrast, n.H, n.LineH)
		}
	}
}

// TestBrowserSiteHeaderAndForms: /search and /explore/lock (issue 38, item
// 8: no header rule, the logo on the page's edge, the nav wrapped, forms in
// the browser's defaults) have the site header's layout, its nav on one
// line at 1280 px, and the form style: padded, rounded controls in the
// page's font.
func TestBrowserSiteHeaderAndForms(t *testing.T) {
	t.Parallel()
	ctx, ts := tabAt(t, Config{Lessons: testLessons(t)}, "/search?lang=en")
	for i, path := range []string{"/search?lang=en", "/explore/lock?lang=en"} {
		if i > 0 {
			run(t, ctx, chromedp.Navigate(ts.url+path))
		}
		var got struct {
			Display  string    `json:"display"`
			LogoLeft float64   `json:"logoLeft"`
			NavRows  int       `json:"navRows"`
			Controls []float64 `json:"controls"` // per control: padding-left, border radius, font size minus the body's
		}
		raw := eval[[]byte](t, ctx, `(() => {
			const h = document.querySelector('header.site'), body = parseFloat(getComputedStyle(document.body).fontSize);
			const ctl = [...document.querySelectorAll('main form select, main form textarea, main form input[type="text"], main form input[type="number"], main form input:not([type])')]
				.filter(el => el.getBoundingClientRect().width > 0);
			return {display: getComputedStyle(h).display, logoLeft: document.querySelector('.logo').getBoundingClientRect().left,
				navRows: new Set([...h.querySelectorAll('.site-nav a')].map(a => Math.round(a.getBoundingClientRect().top))).size,
				controls: ctl.flatMap(el => { const s = getComputedStyle(el); return [parseFloat(s.paddingLeft), parseFloat(s.borderTopLeftRadius), Math.abs(parseFloat(s.fontSize) - body)]; })};
		})()`)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Display != "flex" || got.LogoLeft < 12 || got.NavRows != 1 {
			t.Errorf("%s: header display %s, logo at x=%.0f, nav in %d rows; want flex, x >= 12, one row", path, got.Display, got.LogoLeft, got.NavRows)
		}
		if len(got.Controls) < 3 {
			t.Errorf("%s: no form control found", path)
		}
		for j := 0; j+2 < len(got.Controls); j += 3 {
			if c := got.Controls[j : j+3]; c[0] < 4 || c[1] < 3 || c[2] > 3 {
				t.Errorf("%s: form control %d: padding %.0f px, radius %.0f px, font %.0f px off the page's; want the form style", path, j/3, c[0], c[1], c[2])
			}
		}
	}
}
