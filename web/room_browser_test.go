package web

import (
	"encoding/json"
	"fmt"
	"strings"
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
// side; the same at 1280 x 800 in simplified Chinese. With
// -update-screenshot it writes each to docs/ (screenshot-presenter-WxH.png,
// the Chinese one screenshot-presenter-WxH-zh-CN.png: the README showed
// English only).
func TestBrowserPresenterLanesReadable(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	for _, s := range []struct {
		w, h int64
		loc  sim.Locale
	}{{1280, 800, sim.English}, {1024, 768, sim.English}, {1280, 800, sim.SimplifiedChinese}} {
		where, shot := fmt.Sprintf("%dx%d", s.w, s.h), ""
		if s.loc != sim.English {
			where, shot = where+" "+string(s.loc), "-"+string(s.loc)
		}
		run(t, ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(ts.url+lessonURL(l.ID, 7, s.loc, true)))
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
		shootScreen(t, ctx, fmt.Sprintf("screenshot-presenter-%dx%d%s.png", s.w, s.h, shot))
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
// 8: no header rule, the logo on the page's edge, the nav wrapped) have the
// site header's layout and its nav on one line at 1280 px; and every page
// with a form (the Search page, /join, the lock page with its builder open,
// explore's sandbox, the drills) draws each kind of control (field, select,
// text area, check box, file picker, button, primary button, fieldset,
// label) in
// one computed style, the same on every page, in the page's font, the
// selects without the browser's own look (the forms were the browser's
// defaults, and a <button class="button"> 13.33 px on one page and 16 px
// on another).
func TestBrowserSiteHeaderAndForms(t *testing.T) {
	t.Parallel()
	ctx, ts := tabAt(t, Config{Lessons: testLessons(t)}, "/search?lang=en")
	for i, path := range []string{"/search?lang=en", "/explore/lock?lang=en"} {
		if i > 0 {
			run(t, ctx, chromedp.Navigate(ts.url+path))
		}
		var got struct {
			Display  string  `json:"display"`
			LogoLeft float64 `json:"logoLeft"`
			NavRows  int     `json:"navRows"`
		}
		raw := eval[[]byte](t, ctx, `(() => {
			const h = document.querySelector('header.site');
			return {display: getComputedStyle(h).display, logoLeft: document.querySelector('.logo').getBoundingClientRect().left,
				navRows: new Set([...h.querySelectorAll('.site-nav a')].map(a => Math.round(a.getBoundingClientRect().top))).size};
		})()`)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Display != "flex" || got.LogoLeft < 12 || got.NavRows != 1 {
			t.Errorf("%s: header display %s, logo at x=%.0f, nav in %d rows; want flex, x >= 12, one row", path, got.Display, got.LogoLeft, got.NavRows)
		}
	}
	// kind -> style -> the pages that draw a control of that kind so
	want := map[string]int{"field": 5, "select": 3, "textarea": 2, "check": 3, "file": 2, "button": 3, "primary": 4, "fieldset": 2, "label": 5}
	styles := map[string]map[string][]string{}
	for _, path := range []string{"/search?lang=en", "/join?lang=en", "/explore/lock?lang=en", "/explore?lang=en", "/drills?lang=en"} {
		run(t, ctx, chromedp.Navigate(ts.url+path))
		waitJS(t, ctx, `document.readyState === 'complete'`, path)
		var kinds map[string][]string
		if err := json.Unmarshal(eval[[]byte](t, ctx, measureForms), &kinds); err != nil {
			t.Fatal(err)
		}
		for k, ss := range kinds {
			if styles[k] == nil {
				styles[k] = map[string][]string{}
			}
			for _, st := range ss {
				styles[k][st] = append(styles[k][st], path)
			}
		}
	}
	for k, n := range want {
		pages := 0
		for _, ps := range styles[k] {
			pages += len(ps)
		}
		if pages < n {
			t.Errorf("%s: found on %d page(s), want %d", k, pages, n)
		}
		if len(styles[k]) > 1 {
			for st, ps := range styles[k] {
				t.Errorf("%s drawn in %d styles; on %v: %s", k, len(styles[k]), ps, st)
			}
		}
		for st := range styles[k] {
			if k == "select" && !strings.Contains(st, "appearance:none") {
				t.Errorf("select in the browser's look: %s", st)
			}
			if k != "check" && k != "fieldset" && k != "label" && !strings.Contains(st, "font-size:16px") && !(k == "textarea" && strings.Contains(st, "font-size:14.4px")) {
				t.Errorf("%s not in the page's font size: %s", k, st)
			}
		}
	}
}

// measureForms returns, per kind of form control, the distinct computed
// styles of the page's main landmark's shown controls of that kind (the
// lock page's builder opened first).
const measureForms = `(() => {
	const b = document.querySelector('details.lock-builder'); if (b) b.open = true;
	const seen = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
	const box = ['padding-top', 'padding-left', 'border-top-width', 'border-top-style', 'border-top-color', 'border-top-left-radius',
		'background-color', 'color', 'font-family', 'font-size', 'font-weight', 'line-height'];
	const kinds = {
		field: ['main :is(input:not([type]), input[type="text"], input[type="number"])', box],
		select: ['main select', [...box, 'appearance']],
		textarea: ['main textarea', box],
		check: ['main input[type="checkbox"]', ['accent-color', 'width', 'height']],
		file: ['main input[type="file"]', box, '::file-selector-button'],
		button: ['main button.button:not(.primary)', box],
		primary: ['main button.button.primary', box],
		fieldset: ['main fieldset', ['border-top-width', 'border-top-style', 'border-top-color', 'border-top-left-radius', 'padding-left']],
		label: ['main label:not(.check)', ['font-size', 'font-weight', 'color']],
	};
	const out = {};
	for (const [k, [sel, props, pseudo]] of Object.entries(kinds)) {
		out[k] = [...new Set([...document.querySelectorAll(sel)].filter(seen).map(el => {
			const s = getComputedStyle(el, pseudo);
			return props.map(p => p + ':' + s.getPropertyValue(p)).join('; ');
		}))];
	}
	return out;
})()`

// TestBrowserPhoneSiteHeader: on a 390 x 844 phone the site header of the
// pages under it (the Search page, /join, the lock page, the course) is
// collapsed as the player's (issue 38, items 8 and 11: it was 238 px): at
// most 90 px, the logo and the languages on one line, the site's
// navigation on one line under them, scrolled sideways to the current
// page's link, nothing drawn over anything else, and the page's heading within the first third of the
// screen; in the three languages.
func TestBrowserPhoneSiteHeader(t *testing.T) {
	t.Parallel()
	ctx, ts := tabAt(t, Config{Lessons: testLessons(t)}, "/join?lang=en")
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	for _, loc := range sim.Locales {
		for _, page := range []string{"/search", "/join", "/explore/lock", "/"} {
			path := page + "?lang=" + string(loc)
			run(t, ctx, chromedp.Navigate(ts.url+path))
			waitJS(t, ctx, `document.readyState === 'complete'`, path)
			var got struct {
				ViewH, HeaderH, H1Top float64
				NavRows, Links        int
				NavScroll             string
				Overlaps              []string
				Here                  string // the current page's link when it is off the nav's shown part
			}
			raw := eval[[]byte](t, ctx, `(() => {
				const r = el => el.getBoundingClientRect(), h = document.querySelector('header.site'), nav = h.querySelector('.site-nav');
				const shown = el => r(el).width > 0 && getComputedStyle(el).visibility !== 'hidden';
				const parts = [h.querySelector('.logo'), nav, ...h.querySelectorAll('.settings > *')].filter(shown), overlaps = [];
				for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
					const a = r(parts[i]), b = r(parts[j]);
					if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
						overlaps.push(parts[i].className + ' / ' + parts[j].className);
				}
				return {ViewH: innerHeight, HeaderH: r(h).height, H1Top: r(document.querySelector('main h1')).top,
					NavRows: new Set([...nav.querySelectorAll('a')].map(a => Math.round(r(a).top))).size,
					Links: nav.querySelectorAll('a').length, NavScroll: getComputedStyle(nav).overflowX, Overlaps: overlaps,
					Here: [...nav.querySelectorAll('[aria-current="page"]')].filter(a => r(a).left < r(nav).left - 1 || r(a).right > r(nav).right + 1).map(a => a.textContent).join()};
			})()`)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.HeaderH > 90 || got.H1Top > got.ViewH/3 {
				t.Errorf("%s: header %.0f px, heading at y=%.0f of %.0f; want at most 90 px and the heading in the first third", path, got.HeaderH, got.H1Top, got.ViewH)
			}
			if got.NavRows != 1 || got.Links < 5 || got.NavScroll != "auto" {
				t.Errorf("%s: the nav's %d links in %d rows, overflow-x %s; want one row scrolled sideways", path, got.Links, got.NavRows, got.NavScroll)
			}
			if len(got.Overlaps) > 0 {
				t.Errorf("%s: the header's parts overlap: %q", path, got.Overlaps)
			}
			if got.Here != "" {
				t.Errorf("%s: the current page's link %q is scrolled out of the nav", path, got.Here)
			}
		}
	}
}

// TestBrowserNoticesUnderHeader: the notes a page makes on its own address
// (templates.Notice: a bad step, lang or drill level) are drawn under the
// site header, inside the page's main landmark, on the screen and above
// the page's content, at 1280 x 800 and on a 390 x 844 phone (they stood
// above the site header, outside every landmark: issue 38).
func TestBrowserNoticesUnderHeader(t *testing.T) {
	t.Parallel()
	l := staleLesson(t, testLessons(t))
	ctx, ts := tabAt(t, Config{Lessons: testLessons(t)}, "/join?lang=en")
	paths := []string{"/lessons/" + l.ID + "?lang=xx&step=999", "/search?lang=xx", "/drills?lang=en&level=99", "/explore/lock?lang=xx", "/?lang=xx"}
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		run(t, ctx, chromedp.EmulateViewport(size[0], size[1]))
		for _, path := range paths {
			run(t, ctx, chromedp.Navigate(ts.url+path))
			waitJS(t, ctx, `document.readyState === 'complete'`, path)
			var got struct {
				Notices                       int
				InMain                        bool
				HeaderBottom, Top, Bottom, Vh float64
				ContentTop                    float64
				Content                       string
			}
			raw := eval[[]byte](t, ctx, `(() => {
				const ns = [...document.querySelectorAll('.page-notice')], r = el => el.getBoundingClientRect();
				if (!ns.length) return {Notices: 0};
				const box = ns[0].closest('.page-notices'), main = box.closest('main');
				const next = main && [...main.children].find(el => el !== box && r(el).height > 0);
				return {Notices: ns.length, InMain: !!main && ns.every(n => main.contains(n)),
					HeaderBottom: r(document.querySelector('header.site')).bottom, Top: r(box).top, Bottom: r(box).bottom, Vh: innerHeight,
					ContentTop: next ? r(next).top : 0, Content: next ? next.className : ''};
			})()`)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			at := fmt.Sprintf("%s at %dx%d", path, size[0], size[1])
			if got.Notices == 0 {
				t.Errorf("%s: no notice", at)
				continue
			}
			if !got.InMain || got.Top < got.HeaderBottom-0.5 || got.Bottom > got.Vh || got.ContentTop < got.Bottom-0.5 {
				t.Errorf("%s: notices in main %v at y=%.0f-%.0f, the header ends at %.0f, the content (%s) starts at %.0f, screen %.0f; want in main, under the header, above the content, on the screen",
					at, got.InMain, got.Top, got.Bottom, got.HeaderBottom, got.Content, got.ContentTop, got.Vh)
			}
		}
	}
}
