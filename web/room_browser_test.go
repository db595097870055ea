package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/sim"
)

// This file holds the browser tests of issue 38: the player in front of a
// room (presenter mode, the class panel) and for a learner on their own.

// laneFit is what the page measures of presenter mode's timeline: its
// card's height against the screen's, and the drawn size (font size times
// the drawing's scale) of every text of its lanes that is on the screen.
type laneFit struct {
	ViewW    float64 `json:"viewW"`
	ViewH    float64 `json:"viewH"`
	CardH    float64 `json:"cardH"`
	MinText  float64 `json:"minText"`
	Smallest string  `json:"smallest"`
	Texts    int     `json:"texts"`
	// LanesH is the lanes' drawing's height on the screen (px): what of
	// it is in the timeline's card and the screen.
	LanesH float64 `json:"lanesH"`
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
	const body = document.querySelector('[data-panel="timeline"] .tl-body').getBoundingClientRect();
	const lanesH = Math.max(0, Math.min(body.bottom, card.bottom, innerHeight) - Math.max(body.top, card.top, 0));
	return {viewW: innerWidth, viewH: innerHeight, cardH: card.height, minText: min, smallest, texts: n, lanesH};
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
			// whole, wrapped (a fresh review of issue 38: cut with "…" on
			// one line): at most three lines of 1.25 (2.4 of 1.6)
			if b.Top != banners[0].Top || b.Lines > 2.4 {
				t.Errorf("%s: banner %d at y=%.0f (the first at %.0f), %.1f lines of 1.6 tall; want at most three lines of its text, beside the first", where, i, b.Top, banners[0].Top, b.Lines)
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
	want := map[string]int{"field": 5, "select": 3, "textarea": 2, "check": 3, "checkoff": 3, "file": 2, "button": 3, "primary": 4, "fieldset": 2, "label": 5}
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
			if k != "check" && k != "checkoff" && k != "fieldset" && k != "label" && !strings.Contains(st, "font-size:16px") && !(k == "textarea" && strings.Contains(st, "font-size:14.4px")) {
				t.Errorf("%s not in the page's font size: %s", k, st)
			}
		}
	}

	// Check boxes and file pickers drawn as the rest (a fresh review of
	// issue 38, item 8: a check box was the browser's own, in Arial with
	// a square black edge): a check box in the fields' font, edge and
	// white with a rounded corner, a file picker's button a .button.
	field, button := oneStyle(t, styles["field"]), oneStyle(t, styles["button"])
	check, off, file := oneStyle(t, styles["check"]), oneStyle(t, styles["checkoff"]), oneStyle(t, styles["file"])
	for _, c := range []struct {
		what      string
		got, want map[string]string
		props     []string
	}{
		{"a check box", check, field, []string{"font-family", "border-top-width", "border-top-style"}},
		{"an unchecked check box", off, field, []string{"border-top-color", "background-color"}},
		{"a file picker's button", file, button, []string{"font-family", "font-size", "font-weight", "border-top-width", "border-top-color", "border-top-left-radius", "background-color", "color", "padding-left"}},
	} {
		for _, p := range c.props {
			if c.got[p] != c.want[p] {
				t.Errorf("%s: %s %q; want %q as the rest", c.what, p, c.got[p], c.want[p])
			}
		}
	}
	if r := check["border-top-left-radius"]; r == "" || r == "0px" {
		t.Errorf("a check box's corner radius %q; want rounded as the fields", r)
	}
}

// oneStyle parses the one computed style drawn for a kind of control
// ("prop:value; prop:value", measureForms) into prop -> value; empty when
// the kind is drawn in no style or several (reported above).
func oneStyle(t *testing.T, styles map[string][]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if len(styles) != 1 {
		return out
	}
	for st := range styles {
		for _, kv := range strings.Split(st, "; ") {
			if k, v, ok := strings.Cut(kv, ":"); ok {
				out[k] = v
			}
		}
	}
	return out
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
		check: ['main input[type="checkbox"]', ['accent-color', 'width', 'height', 'appearance', 'font-family', 'border-top-width', 'border-top-style', 'border-top-left-radius']],
		checkoff: ['main input[type="checkbox"]:not(:checked)', ['border-top-color', 'background-color']],
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
// pages under it (the Search page, /join, the lock page, the course, and
// the player's .site-top on a lesson and a student's /class/CODE) is
// collapsed as the player's (issue 38, items 8 and 11: it was 238 px): at
// most 90 px, the logo and the languages on one line, the site's
// navigation under them in one row (the links' short words), every link whole on
// the screen (it was one row scrolled sideways, a link cut at the edge),
// nothing drawn over anything else, the page's heading within the first third of the
// screen, and one link to /join; in the three languages.
func TestBrowserPhoneSiteHeader(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	ctx, ts := tabAt(t, Config{Lessons: all}, "/join?lang=en")
	// a class for /class/CODE, started by a presenter in a tab of its own
	l := lessonByID(t, all, classLesson)
	p := newTab(t)
	run(t, p, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+lessonURL(l.ID, 1, sim.English, true)))
	waitStep(t, p, 1)
	click(t, p, "[data-class-start]")
	code := waitValue[string](t, p, `document.querySelector('[data-class-code-text]')?.textContent || ''`, "the class code")
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	for _, loc := range sim.Locales {
		for _, page := range []string{"/search", "/join", "/explore/lock", "/", "/lessons/" + l.ID, "/class/" + code} {
			path := page + "?lang=" + string(loc)
			run(t, ctx, chromedp.Navigate(ts.url+path))
			waitJS(t, ctx, `document.readyState === 'complete'`, path)
			var got struct {
				ViewH, HeaderH, H1Top float64
				NavRows, Links, Joins int
				NavScroll             string
				Clipped               []string // nav links not whole on the screen, in the nav's box
				Overlaps              []string
				Here                  string // the current page's link when it is off the nav's shown part
			}
			raw := eval[[]byte](t, ctx, `(() => {
				// the player's (a lesson, /class/CODE) site header is its .site-top, its heading the lesson's
				const r = el => el.getBoundingClientRect(), h = document.querySelector('header.site .site-top') || document.querySelector('header.site'), nav = h.querySelector('.site-nav');
				const shown = el => r(el).width > 0 && getComputedStyle(el).visibility !== 'hidden';
				const parts = [h.querySelector('.logo'), nav, ...h.querySelectorAll('.settings > *')].filter(shown), overlaps = [];
				for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
					const a = r(parts[i]), b = r(parts[j]);
					if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
						overlaps.push(parts[i].className + ' / ' + parts[j].className);
				}
				return {ViewH: innerHeight, HeaderH: r(h).height, H1Top: r(document.querySelector('main h1') || document.querySelector('h1')).top,
					NavRows: new Set([...nav.querySelectorAll('a')].filter(shown).map(a => Math.round(r(a).top))).size,
					Joins: [...h.querySelectorAll('.join-quick, .site-nav a[href^="/join"]')].filter(shown).length,
					Links: nav.querySelectorAll('a').length, NavScroll: getComputedStyle(nav).overflowX, Overlaps: overlaps,
					Clipped: [...nav.querySelectorAll('a')].filter(a => getComputedStyle(a).display !== 'none').filter(a => { const b = r(a), n = r(nav);
						return b.width === 0 || b.left < -0.5 || b.right > innerWidth + 0.5 || b.left < n.left - 0.5 || b.right > n.right + 0.5 || b.top < n.top - 0.5 || b.bottom > n.bottom + 0.5 || a.scrollWidth > a.clientWidth + 1; }).map(a => a.textContent),
					Here: [...nav.querySelectorAll('[aria-current="page"]')].filter(a => r(a).left < r(nav).left - 1 || r(a).right > r(nav).right + 1).map(a => a.textContent).join()};
			})()`)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.HeaderH > 90 || got.H1Top > got.ViewH/3 {
				t.Errorf("%s: header %.0f px, heading at y=%.0f of %.0f; want at most 90 px and the heading in the first third", path, got.HeaderH, got.H1Top, got.ViewH)
			}
			// Every link whole on the screen (a fresh review of issue 38:
			// the row scrolled sideways showed "Follow-up ques…" cut and
			// hid the links after it), in one row in every language (in
			// English they wrapped to two: the links' short words now).
			if got.Links < 5 || got.NavRows != 1 || len(got.Clipped) > 0 {
				t.Errorf("%s: the nav's %d links in %d rows (overflow-x %s), cut or off the screen: %q; want every link whole in one row", path, got.Links, got.NavRows, got.NavScroll, got.Clipped)
			}
			// One "Join a class" (review of issue 38, item 7: the quick link
			// and the nav's last link both said it).
			if got.Joins != 1 {
				t.Errorf("%s: %d links to /join in the header; want one", path, got.Joins)
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

// presenterStep is the step of lesson l that is hardest for presenter
// mode, found from its frames: the most banners up (a violation, a stale
// owner), then the most keys shown (the primary's, the replica's, each
// node's), then the latest; and, for a lesson with a replica or nodes,
// keysStep, the (latest) step that shows the most keys, else 0.
func presenterStep(t *testing.T, l *sim.Lesson) (step, banners, keysStep int) {
	t.Helper()
	best, most := -1, -1
	for _, f := range expectedFrames(t, l) {
		if f.Index == 0 {
			continue
		}
		b := 0
		if len(f.Violations) > 0 {
			b++
		}
	stale:
		for _, a := range f.Actors {
			if a.Status == sim.StatusCrashed {
				continue
			}
			for _, h := range a.Holds {
				if h.Count > 0 && !h.InRedis {
					b++
					break stale
				}
			}
		}
		keys := len(f.Keys) + len(f.Replica)
		for _, n := range f.Nodes {
			keys += len(n)
		}
		if score := b*1000 + keys; score >= best {
			best, step, banners = score, f.Index, b
		}
		if (f.Replica != nil || f.Nodes != nil) && keys >= most {
			most, keysStep = keys, f.Index
		}
	}
	if keysStep == step {
		keysStep = 0
	}
	return step, banners, keysStep
}

// longestNarration is the (first) step of lesson l whose own words (its
// say, why, because and misconception in English) are the longest: its
// narration wants the most room.
func longestNarration(l *sim.Lesson) int {
	step, most := 1, -1
	for i, s := range l.Steps {
		n := len(s.Say.In(sim.English)) + len(s.Why.In(sim.English)) + len(s.Misconception.In(sim.English))
		for _, b := range s.Because {
			n += len(b.In(sim.English))
		}
		if n > most {
			step, most = i+1, n
		}
	}
	return step
}

// mostCalls is the (first) step of lesson l with the most Redis calls
// where that is more than four (a watchdog renewing each lock it holds),
// else 0: its command card is the longest.
func mostCalls(t *testing.T, l *sim.Lesson) int {
	t.Helper()
	step, most := 0, 4
	for _, f := range expectedFrames(t, l) {
		if len(f.Calls) > most {
			step, most = f.Index, len(f.Calls)
		}
	}
	return step
}

// presenterRead is what measurePresenterRead finds of presenter mode's
// board: the lanes (laneFit), every lane's name on the screen and in the
// timeline's card, the banners' words, the narration's and the keys'.
type presenterRead struct {
	laneFit
	LanesOut []string `json:"lanesOut"` // lane names not wholly on the screen and in the card
	Cut      []string `json:"cut"`      // what a learner cannot read: a banner's, the narration's or a key's words
	NarrPx   float64  `json:"narrPx"`   // the narration's smallest text
	BannerPx float64  `json:"bannerPx"` // the banners' smallest text
	Banners  int      `json:"banners"`
	// Hidden is how far each scrolling card's words go under its edge (px).
	Hidden   map[string]float64 `json:"hidden"`
	Overlaps []string           `json:"overlaps"` // cards over one another, a lane's step mark over another text or past the drawing
	Small    []string           `json:"small"`    // the command's or the diagram's heading's texts under 11 px
	NodeKeys bool               `json:"nodeKeys"` // the keys card shows a section per node
}

// measurePresenterRead measures presenter mode's board (see
// presenterRead). A text is cut when it is clipped by a box that cannot
// be scrolled to it, or ellipsized; a banner's words must be whole on its
// line, else whole once the banner has the focus (reachable by Tab).
const measurePresenterRead = `(async () => {
	// what is painted: the page's observers (the cards' cues) have run
	await new Promise(res => requestAnimationFrame(() => requestAnimationFrame(res)));
	const lanes = ` + measureLanes + `;
	const r = el => el.getBoundingClientRect(), out = [], cut = [];
	const card = r(document.getElementById('panel-timeline'));
	for (const el of document.querySelectorAll('[data-panel="timeline"] .tl-labels .lane-name')) {
		const b = r(el);
		if (b.top < Math.max(0, card.top) - 0.5 || b.bottom > Math.min(innerHeight, card.bottom) + 0.5) out.push(el.textContent);
	}
	const px = el => parseFloat(getComputedStyle(el).fontSize);
	// clipped: el's box is cut by an ancestor that hides its overflow and
	// does not scroll (or the screen)
	const clipped = el => {
		const b = r(el);
		if (b.width === 0) return false;
		// the extents still to show: a scroller shows what it holds once
		// scrolled to it, so past one its own box is what must be shown
		let x = [b.left, b.right], y = [b.top, b.bottom];
		for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			const s = getComputedStyle(p), pb = r(p);
			if (s.overflowX !== 'visible') {
				if (/auto|scroll/.test(s.overflowX)) x = [Math.max(x[0], pb.left), Math.min(x[1], pb.right)];
				else if (x[0] < pb.left - 1 || x[1] > pb.right + 1) return true;
			}
			if (s.overflowY !== 'visible') {
				if (/auto|scroll/.test(s.overflowY)) y = [Math.max(y[0], pb.top), Math.min(y[1], pb.bottom)];
				else if (y[0] < pb.top - 1 || y[1] > pb.bottom + 1) return true;
			}
		}
		return x[1] > innerWidth + 0.5 || y[1] > innerHeight + 0.5 || x[0] < -0.5 || y[0] < -0.5;
	};
	const ellipsized = el => getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1;
	let bannerPx = Infinity;
	const banners = [...document.querySelectorAll('#panel-alerts .banner')];
	const shown = el => r(el).width > 0 && !clipped(el);
	for (const b of banners) {
		// its words: the heading, each violation's title and detail, each
		// stale owner's sentence; its headline: a violation's titles, else
		// the heading
		const words = [...b.querySelectorAll('h2, li strong, li .detail, li:not(:has(strong))')];
		const head = [...b.querySelectorAll('li strong')];
		if (!head.length) head.push(b.querySelector('h2'));
		const whole = () => !ellipsized(b.querySelector(':scope > div')) && words.every(shown);
		const size = () => words.forEach(w => { if (r(w).width > 0) bannerPx = Math.min(bannerPx, px(w)); });
		if (whole()) { size(); continue; }
		for (const w of head) if (!shown(w)) cut.push('banner headline: ' + w.textContent);
		size();
		b.focus();
		await new Promise(res => requestAnimationFrame(() => requestAnimationFrame(res)));
		if (document.activeElement !== b || !whole()) cut.push('banner (focused): ' + b.textContent.trim().slice(0, 80));
		size();
		b.blur();
	}
	// every element of the narration with words of its own
	let narrPx = Infinity;
	for (const el of document.querySelectorAll('#panel-narration .narr *')) {
		if (r(el).width === 0 || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
		narrPx = Math.min(narrPx, px(el));
		if (clipped(el)) cut.push('narration: ' + el.textContent.trim().slice(0, 60));
	}
	for (const el of document.querySelectorAll('#panel-redis :is(.key-name, .keys-title, .absent-note)')) {
		if (clipped(el)) cut.push('key: ' + el.textContent.trim().slice(0, 60));
	}
	// a card that scrolls (no scroll bar on a projector) and holds more
	// than it shows says so: a visible cue (data-more, drawn by its ::after)
	const hidden = {};
	for (const id of ['narration', 'redis', 'command']) {
		const c = document.getElementById('panel-' + id);
		const h = c.scrollHeight - c.scrollTop - c.clientHeight;
		if (r(c).width === 0 || h <= 1) continue;
		hidden[id] = Math.round(h);
		const cue = getComputedStyle(c, '::after');
		if (!('more' in c.dataset) || cue.content === 'none' || cue.display === 'none') cut.push(id + ': ' + Math.round(h) + ' px under the card with no cue that more follows');
	}
	// no card over another
	const overlaps = [], cards = [...document.querySelectorAll('.board .card')].filter(c => r(c).width > 0 && r(c).height > 0);
	cards.forEach((a, i) => cards.slice(i + 1).forEach(b => {
		const p = r(a), q = r(b);
		const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
		if (w > 1 && h > 1) overlaps.push(a.id + ' and ' + b.id + ' (' + Math.round(w) + 'x' + Math.round(h) + ' px)');
	}));
	// the command's and the diagram's heading's print
	const small = [];
	for (const el of document.querySelectorAll('#panel-command *, #panel-diagram .card-title, #panel-diagram .card-title *')) {
		if (r(el).width === 0 || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
		if (px(el) < 11 - 0.05) small.push(el.textContent.trim().slice(0, 30) + ' ' + px(el).toFixed(1) + ' px');
	}
	// a step's mark in the Redis lane ("⚠ restart node 2") within its
	// drawing and apart from every other text (the next column's reply)
	const all = [...document.querySelectorAll('[data-panel="timeline"] .tl-body text')].filter(e => r(e).width > 0);
	for (const a of all.filter(e => e.classList.contains('advance'))) {
		const p = r(a), d = r(a.ownerSVGElement);
		if (p.left < d.left - 0.5 || p.right > d.right + 0.5) overlaps.push('lane text "' + a.textContent + '" past the drawing\'s edge');
		for (const b of all) {
			if (b === a) continue;
			const q = r(b);
			const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
			if (w > 1 && h > 1) overlaps.push('lane texts "' + a.textContent + '" and "' + b.textContent + '" (' + Math.round(w) + 'x' + Math.round(h) + ' px)');
		}
	}
	return {...lanes, nodeKeys: !!document.querySelector('#panel-redis .node-keys'), lanesOut: out, cut, narrPx, bannerPx: banners.length ? bannerPx : 0, banners: banners.length, hidden, overlaps, small};
})()`

// measureEndCard is whether presenter mode shows the end card on the
// screen, its texts' smallest font size and what of it is cut.
const measureEndCard = `(() => {
	const c = document.getElementById('end-card'), r = el => el.getBoundingClientRect();
	const b = r(c), shown = !c.hidden && b.width > 0 && b.height > 0;
	let min = Infinity; const cut = [];
	for (const el of c.querySelectorAll('*')) {
		if (r(el).width === 0 || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
		min = Math.min(min, parseFloat(getComputedStyle(el).fontSize));
		const e = r(el);
		if (e.left < b.left - 1 || e.right > b.right + 1 || e.top < b.top - 1 || e.bottom > b.bottom + 1 || e.bottom > innerHeight) cut.push(el.textContent.trim());
	}
	return {shown, minPx: shown ? min : 0, cut};
})()`

// TestBrowserPresenterEveryLesson: presenter mode is right for every
// lesson of the course, not only the one TestBrowserPresenterLanesReadable
// measures (a fresh review of issue 38: lanes 101 px tall with 3.2 px text
// on redlock-restart, 9.6 px on every lesson of four or more lanes,
// banners cut with "…" in 18 lessons, the narration shrunk to 8.9 px, the
// end card hidden). In four tabs at once (eachTab), with no animation, each lesson at its
// hardest step (presenterStep, from its frames) at 1024 x 768 in English;
// every third lesson also at 1280 x 800 (the same page resized), the
// next ones in simplified Chinese, a lesson with a replica or nodes also
// at its step of the most keys, one with a step of more than four calls
// at the first step of the most, and every fifth at its end. At each:
// the timeline's card and its lanes' drawing each take at least 35% of the
// screen's height (a fresh review: one actor's lanes 27%), every key and
// every call is whole in its card, not scrolled (a later fresh review:
// five steps at 1024 x 768 cut them by 16-99 px, redlock-node-clock-jump
// step 6's keys 57 px beside 128 px blank under the side lanes), every
// lane text on the screen is drawn at least 11 px, every lane's name is
// on the screen inside the card, the banners the frames call for are
// shown and their words whole (on the line at 14 px or more, else the
// headline on the line and everything once the banner has the focus),
// the narration is at least 14 px and nothing of it or of the keys is
// cut where it cannot be scrolled to, a card that scrolls (the narration,
// the keys, the command) and holds more than it shows has a visible cue
// (a fresh review: the takeaway hidden 377 px with no sign), no card
// overlaps another (18 renewals over the diagram), the command's and the
// diagram heading's texts are at least 11 px, the narration is whole in
// its card, not scrolled (also at each lesson's step of the longest
// narration, longestNarration, at 1024 x 768 and 1280 x 800), and checkFit holds (every panel on
// the screen, none cutting what it cannot scroll to); at the end the end
// card shows, its texts at least 14 px, nothing of it cut. About 15 s of
// CPU (Go and Chromium) for 45 lessons.
func TestBrowserPresenterEveryLesson(t *testing.T) {
	t.Parallel()
	ts, course := courseServer(t)
	eachTab(t, func(t *testing.T, ctx context.Context, shard int) { presenterEveryLesson(t, ctx, ts, course, shard) })
}

// presenterEveryLesson is TestBrowserPresenterEveryLesson's walk of the
// lessons of its shard (eachTab) in the tab ctx.
func presenterEveryLesson(t *testing.T, ctx context.Context, ts *testServer, course []*sim.Lesson, shard int) {
	worst := map[string]struct {
		px, card float64
		what     string
	}{}
	// the most of a card's words under its edge (with the cue), logged
	hidden := map[string]struct {
		px float64
		at string
	}{}
	check := func(at string, f presenterRead, wantBanners int) {
		t.Helper()
		if f.CardH < 0.35*f.ViewH || f.LanesH < 0.35*f.ViewH {
			t.Errorf("%s: the timeline's card is %.0f px and its lanes %.0f px of a %.0f px screen, want both at least 35%%", at, f.CardH, f.LanesH, f.ViewH)
		}
		if f.Texts < 10 || f.MinText < 11 {
			t.Errorf("%s: the lanes' smallest text (%s) is drawn %.1f px tall (%d texts), want at least 11", at, f.Smallest, f.MinText, f.Texts)
		}
		if len(f.LanesOut) > 0 {
			t.Errorf("%s: lanes %q are not on the screen in the timeline's card", at, f.LanesOut)
		}
		if wantBanners >= 0 && f.Banners != wantBanners {
			t.Errorf("%s: %d banners shown, the frames have %d", at, f.Banners, wantBanners)
		}
		if f.Banners > 0 && f.BannerPx < 14 {
			t.Errorf("%s: a banner's text is %.1f px, want at least 14", at, f.BannerPx)
		}
		// the narration whole in its card, not scrolled (a fresh review:
		// on 65 of 826 steps only its "▼" cue showed, 277 px of it under
		// the card's edge on setnx-del step 14)
		if h := f.Hidden["narration"]; h > 1 {
			t.Errorf("%s: %.0f px of the narration is under its card's edge, want it all shown", at, h)
		}
		// every key and every call shown, not scrolled (a fresh review:
		// the nodes' keys cut 193-198 px, five groups; idempotent-unlock
		// step 8's keys 113 px, redlock-node-clock-jump step 6's calls
		// 179 px; later its keys 57 px, long-script-blocks step 3's calls
		// 93 px, fencing-counter-durable step 10's keys 99 px)
		for _, id := range []string{"redis", "command"} {
			if h := f.Hidden[id]; h > 1 {
				t.Errorf("%s: %.0f px of the %s card is under its edge, want it all shown", at, h, id)
			}
		}
		if f.NarrPx < 14 {
			t.Errorf("%s: the narration's smallest text is %.1f px, want at least 14", at, f.NarrPx)
		}
		for _, c := range f.Cut {
			t.Errorf("%s: cut: %s", at, c)
		}
		for _, o := range f.Overlaps {
			t.Errorf("%s: overlap: %s", at, o)
		}
		if len(f.Small) > 0 {
			t.Errorf("%s: the command's or the diagram's print under 11 px: %q", at, f.Small)
		}
		for id, h := range f.Hidden {
			if h > hidden[id].px {
				hidden[id] = struct {
					px float64
					at string
				}{h, at}
			}
		}
	}
	measure := func(at string) presenterRead {
		t.Helper()
		waitJS(t, ctx, currentColumnInView, at+": the column in view")
		var f presenterRead
		if err := json.Unmarshal(evalAwait[[]byte](t, ctx, measurePresenterRead), &f); err != nil {
			t.Fatal(err)
		}
		checkFit(t, at, readFit(t, ctx)) // every panel on the screen, none cutting what it cannot scroll to
		where := fmt.Sprintf("%.0fx%.0f", f.ViewW, f.ViewH)
		if w, ok := worst[where]; !ok || f.MinText < w.px || (f.MinText == w.px && f.CardH < w.card) {
			worst[where] = struct {
				px, card float64
				what     string
			}{f.MinText, f.CardH, at}
		}
		return f
	}
	for i, l := range course {
		if i%courseTabs != shard {
			continue
		}
		step, wantBanners, keysStep := presenterStep(t, l)
		at := fmt.Sprintf("%s step %d", l.ID, step)
		run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, step, sim.English, true)))
		waitStep(t, ctx, step)
		check(at+" 1024x768 en", measure(at+" 1024x768 en"), wantBanners)
		switch i % 3 {
		case 0: // the same page on a larger screen
			run(t, ctx, chromedp.EmulateViewport(1280, 800))
			check(at+" 1280x800 en", measure(at+" 1280x800 en"), wantBanners)
		case 1:
			run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, step, sim.SimplifiedChinese, true)))
			waitStep(t, ctx, step)
			check(at+" 1024x768 zh-CN", measure(at+" 1024x768 zh-CN"), wantBanners)
		}
		if n := mostCalls(t, l); n > 0 && n != step && n != keysStep {
			// a long command card (a watchdog's renewals) beside the diagram
			cat := fmt.Sprintf("%s step %d (the most calls) 1024x768 en", l.ID, n)
			run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, n, sim.English, true)))
			waitStep(t, ctx, n)
			check(cat, measure(cat), -1)
		}
		if n := longestNarration(l); n != step {
			// the most words of the lesson's steps, at both projector sizes:
			// the page loaded once and resized, as case 0 above does (a
			// page load a size cost some 2 CPU-s each at CI's load)
			run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, n, sim.English, true)))
			waitStep(t, ctx, n)
			for _, sz := range [][2]int64{{1024, 768}, {1280, 800}} {
				nat := fmt.Sprintf("%s step %d (the longest narration) %dx%d en", l.ID, n, sz[0], sz[1])
				run(t, ctx, chromedp.EmulateViewport(sz[0], sz[1]))
				check(nat, measure(nat), -1)
			}
		}
		if keysStep > 0 {
			// a replica's or the nodes' keys at their most
			kat := fmt.Sprintf("%s step %d (the most keys) 1024x768 en", l.ID, keysStep)
			run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, keysStep, sim.English, true)))
			waitStep(t, ctx, keysStep)
			check(kat, measure(kat), -1)
		}
		if i%5 != 0 {
			continue
		}
		// The lesson's end: the end card shows, readable, and leaves the
		// lanes their room.
		press(t, ctx, kb.End)
		waitStep(t, ctx, len(l.Steps))
		end := at + " its end"
		check(end, measure(end), -1)
		var card struct {
			Shown bool     `json:"shown"`
			MinPx float64  `json:"minPx"`
			Cut   []string `json:"cut"`
		}
		if err := json.Unmarshal(eval[[]byte](t, ctx, measureEndCard), &card); err != nil {
			t.Fatal(err)
		}
		if !card.Shown || card.MinPx < 14 || len(card.Cut) > 0 {
			t.Errorf("%s: end card shown %v, its smallest text %.1f px, cut %q; want it shown, at least 14 px, nothing cut", end, card.Shown, card.MinPx, card.Cut)
		}
	}
	for where, w := range worst {
		t.Logf("%s: smallest lane text %.1f px, card %.0f px, at %s", where, w.px, w.card, w.what)
	}
	for id, h := range hidden {
		t.Logf("%s: at most %.0f px under its card (with the cue), at %s", id, h.px, h.at)
	}
}
