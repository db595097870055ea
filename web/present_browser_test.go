package web

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/backend"
	"lockstep/sim"
)

// presentSizes are the projector sizes presenter mode must fit (issue 20).
var presentSizes = []struct{ w, h int64 }{{1024, 768}, {1280, 800}, {1920, 1080}}

// presentFit is what the page measures of its presenter layout.
type presentFit struct {
	Presenter    bool               `json:"presenter"`
	ScrollH      float64            `json:"scrollH"`
	ScrollW      float64            `json:"scrollW"`
	ViewH        float64            `json:"viewH"`
	ViewW        float64            `json:"viewW"`
	Panels       map[string]box     `json:"panels"`
	Clipped      map[string]float64 `json:"clipped"`   // px of a panel's content it cannot show (0 for a panel that scrolls)
	LabelPx      []float64          `json:"labelPx"`   // drawn size of each label of the shown diagram
	NamePx       []float64          `json:"namePx"`    // of each state name
	OtherPx      []float64          `json:"otherPx"`   // of every other text of the drawing shown ("● now")
	Drawing      bool               `json:"drawing"`   // the diagram's drawing is shown
	CaptionPx    float64            `json:"captionPx"` // the diagram's caption's font size, 0 when it is hidden
	LabelOverlap []string           `json:"labelOverlap"`
	LabelOutside []string           `json:"labelOutside"`
	Timeline     box                `json:"timeline"` // the timeline's drawing (its lanes' body) as shown
	// DiagramGone: the diagram's card is not shown, at a level of
	// player.makeRoom where it gives way to the narration, the keys and
	// the command (presenter.css: side 8-12, under 2, bottom 6-7), or on a
	// small projector (presenter.js compactScreen), where it always does.
	DiagramGone bool `json:"diagramGone"`
}

type box struct{ Left, Top, Right, Bottom float64 }

func (b box) inside(o box) bool {
	const slack = 0.5 // sub-pixel rounding
	return b.Left >= o.Left-slack && b.Top >= o.Top-slack && b.Right <= o.Right+slack && b.Bottom <= o.Bottom+slack
}

// measurePresent measures the layout in the page: the document's size, each
// panel's box and the content it clips, and the diagram's labels as drawn
// (their font size in the drawing's units times the drawing's scale).
const measurePresent = `(() => {
	const r = el => { const b = el.getBoundingClientRect(); return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom}; };
	const panels = {}, clipped = {};
	for (const name of ['narration', 'redis', 'diagram', 'command', 'timeline']) {
		const el = document.getElementById('panel-' + name);
		panels[name] = r(el);
		// a panel that scrolls (the narration, the keys: issue 38) shows
		// what it holds once scrolled to it; one that hides its overflow cuts it
		const scrolls = /auto|scroll/.test(getComputedStyle(el).overflowY);
		clipped[name] = scrolls ? 0 : Math.max(0, el.scrollHeight - el.clientHeight);
	}
	const svg = [...document.querySelectorAll('[data-testid="diagram"] svg')].find(s => s.getBoundingClientRect().width > 0);
	const drawn = el => parseFloat(getComputedStyle(el).fontSize) * el.getScreenCTM().a;
	const cap = document.querySelector('[data-testid="diagram"] figcaption'), cb = cap.getBoundingClientRect();
	const captionPx = cb.width > 1 && cb.height > 1 ? parseFloat(getComputedStyle(cap).fontSize) : 0;
	const shownText = el => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0;
	const labels = svg ? [...svg.querySelectorAll('.dg-label')] : [];
	const others = svg ? [...svg.querySelectorAll('text:not(.dg-label):not(.dg-name)')].filter(shownText) : [];
	const overlap = [], outside = [];
	const sb = svg ? svg.getBoundingClientRect() : {};
	labels.forEach((a, i) => {
		const ba = a.getBoundingClientRect();
		if (ba.left < sb.left - 1 || ba.right > sb.right + 1 || ba.top < sb.top - 1 || ba.bottom > sb.bottom + 1) outside.push(a.textContent);
		labels.slice(i + 1).forEach(b => {
			if (b.parentNode === a.parentNode) return; // lines of one label
			const bb = b.getBoundingClientRect();
			if (ba.left < bb.right && bb.left < ba.right && ba.top < bb.bottom && bb.top < ba.bottom) overlap.push(a.textContent + ' / ' + b.textContent);
		});
	});
	const tl = document.querySelector('[data-panel="timeline"] .tl-body');
	const board = document.querySelector('.board'), room = board.dataset.room || '', side = board.dataset.tl === 'side', under = 'under' in board.dataset;
	// a small projector's layout (presenter.js compactScreen) has no levels: its diagram's card always gives way
	const compact = matchMedia('(max-width: 960px) and (min-width: 720px) and (min-height: 480px) and (orientation: landscape)').matches;
	const givesWay = compact || (side ? (under ? room === '2' : ['8', '9', '10', '11', '12'].includes(room)) : (room === '6' || room === '7'));
	const diagramGone = givesWay && getComputedStyle(document.getElementById('panel-diagram')).display === 'none';
	return {
		timeline: tl ? r(tl) : {}, diagramGone,
		presenter: document.body.classList.contains('presenter'),
		scrollH: document.documentElement.scrollHeight, scrollW: document.documentElement.scrollWidth,
		viewH: innerHeight, viewW: innerWidth,
		panels, clipped,
		labelPx: labels.map(drawn),
		namePx: svg ? [...svg.querySelectorAll('.dg-name')].map(drawn) : [],
		otherPx: others.map(drawn), drawing: !!svg, captionPx,
		labelOverlap: overlap, labelOutside: outside,
	};
})()`

// currentColumnInView is true when the timeline's current column lies
// inside the timeline's visible box.
const currentColumnInView = `(() => {
	const sc = document.querySelector('[data-panel="timeline"] .tl-scroll');
	const col = document.querySelector('[data-panel="timeline"] .col.current .col-bg');
	if (!sc || !col) return false;
	const v = sc.getBoundingClientRect(), c = col.getBoundingClientRect();
	return c.width > 0 && c.left >= v.left - 0.5 && c.right <= v.right + 0.5 && c.top >= v.top - 0.5 && c.bottom <= v.bottom + 0.5;
})()`

const describeColumn = `(() => {
	const sc = document.querySelector('[data-panel="timeline"] .tl-scroll');
	const col = document.querySelector('[data-panel="timeline"] .col.current .col-bg');
	const v = sc.getBoundingClientRect(), c = col ? col.getBoundingClientRect() : {};
	return JSON.stringify({view: [v.left, v.right, v.top, v.bottom], col: [c.left, c.right, c.top, c.bottom], scrollLeft: sc.scrollLeft});
})()`

// stalePlayer starts a browser and a server of the test lessons: the tab,
// the stale-owner lesson and the server.
func stalePlayer(t *testing.T) (context.Context, *sim.Lesson, *testServer) {
	t.Helper()
	return stalePlayerOn(t, Config{})
}

// stalePlayerOn is stalePlayer with the server's configuration cfg, its
// Lessons set to the test lessons.
func stalePlayerOn(t *testing.T, cfg Config) (context.Context, *sim.Lesson, *testServer) {
	t.Helper()
	ctx, all, ts := courseTab(t, cfg)
	return ctx, staleLesson(t, all), ts
}

// staleOnRedis serves the course on the real Redis be (stalePlayerOn) and
// opens the stale-owner lesson's step n in English, waiting for it: it
// returns the tab, the lesson, the server and the lesson's expected frames.
func staleOnRedis(t *testing.T, be *backend.Backend, n int) (context.Context, *sim.Lesson, *testServer, []sim.Frame) {
	t.Helper()
	ctx, l, ts := stalePlayerOn(t, Config{Backend: RedisBackend(be)})
	openStep(t, ctx, ts, l.ID, n, sim.English)
	return ctx, l, ts, expectedFrames(t, l)
}

func readFit(t *testing.T, ctx context.Context) presentFit {
	t.Helper()
	var f presentFit
	if err := json.Unmarshal(eval[[]byte](t, ctx, measurePresent), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// minDiagramLabelPx is the least drawn height, in px, of a label of the
// presenter diagram: 18 until issue 38 gave the diagram's room to the
// timeline, now the floor the lanes' texts keep too.
const minDiagramLabelPx = 11

// checkFit fails the test for any part of the presenter layout that does
// not fit the screen. The diagram's card may be gone only at a level of
// player.makeRoom where it gives way (DiagramGone): the tests that call
// checkFit also assert the keys and the command whole there.
func checkFit(t *testing.T, where string, f presentFit) {
	t.Helper()
	if !f.Presenter {
		t.Fatalf("%s: not in presenter mode", where)
	}
	if f.ScrollH > f.ViewH || f.ScrollW > f.ViewW {
		t.Errorf("%s: the document is %v x %v px, the screen %v x %v: it scrolls", where, f.ScrollW, f.ScrollH, f.ViewW, f.ViewH)
	}
	screen := box{0, 0, f.ViewW, f.ViewH}
	for name, b := range f.Panels {
		if name == "diagram" && f.DiagramGone {
			continue
		}
		if b.Right-b.Left < 50 || b.Bottom-b.Top < 50 {
			t.Errorf("%s: panel %s is %v x %v px", where, name, b.Right-b.Left, b.Bottom-b.Top)
		}
		if !b.inside(screen) {
			t.Errorf("%s: panel %s at %+v is not inside the screen", where, name, b)
		}
		if c := f.Clipped[name]; c > 1 {
			t.Errorf("%s: panel %s cuts %v px of its content", where, name, c)
		}
	}
	// The diagram gave its room to the lanes (issue 38): every text of its
	// drawing keeps the lanes' floor, minDiagramLabelPx ("● now" was drawn
	// 6-7 px: a fresh-eyes review); where the drawing cannot, the card
	// says the state in words at that floor instead.
	if f.DiagramGone {
		return
	}
	if !f.Drawing {
		if f.CaptionPx < minDiagramLabelPx {
			t.Errorf("%s: the diagram's drawing is hidden and its caption is %.1f px (0: hidden), want at least %v", where, f.CaptionPx, minDiagramLabelPx)
		}
		return
	}
	if len(f.LabelPx) < len(sim.Diagram) || len(f.NamePx) != len(sim.LockStates) {
		t.Fatalf("%s: the diagram shows %d labels and %d states", where, len(f.LabelPx), len(f.NamePx))
	}
	for _, px := range slices.Concat(f.LabelPx, f.NamePx, f.OtherPx) {
		if px < minDiagramLabelPx {
			t.Errorf("%s: a diagram text is drawn %.1f px tall, want at least %v (labels %v, states %v, others %v)", where, px, minDiagramLabelPx, f.LabelPx, f.NamePx, f.OtherPx)
			break
		}
	}
	if len(f.LabelOverlap) > 0 || len(f.LabelOutside) > 0 {
		t.Errorf("%s: diagram labels overlap %q, outside the drawing %q", where, f.LabelOverlap, f.LabelOutside)
	}
}

// TestBrowserPresenterFitsScreen opens the stale-owner lesson at step 7 in
// presenter mode at each projector size (and in Chinese at the smallest):
// the page does not scroll, every panel is on the screen with nothing cut,
// the diagram's labels are at least minDiagramLabelPx and apart, and with each → the
// timeline keeps the current step's column in its visible box.
func TestBrowserPresenterFitsScreen(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	type size struct {
		w, h int64
		lang sim.Locale
	}
	var sizes []size
	for _, s := range presentSizes {
		sizes = append(sizes, size{s.w, s.h, sim.English})
	}
	sizes = append(sizes, size{1024, 768, sim.SimplifiedChinese})
	const from = 7
	for _, s := range sizes {
		where := fmt.Sprintf("%dx%d %s", s.w, s.h, s.lang)
		run(t, ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(ts.url+lessonURL(l.ID, from, s.lang, true)))
		waitStep(t, ctx, from)
		waitJS(t, ctx, currentColumnInView, where+": step 7's column in view")
		for i := from + 1; i <= len(l.Steps); i++ {
			press(t, ctx, kb.ArrowRight)
			waitStep(t, ctx, i)
			tctx, cancel := context.WithTimeout(ctx, waitTimeout)
			_, err := chromedp.Run(tctx, chromedp.Poll[bool](currentColumnInView, chromedp.WithPollingTimeout(waitTimeout)))
			cancel()
			if err != nil {
				t.Fatalf("%s: step %d's column is not in the timeline's view: %s", where, i, eval[string](t, ctx, describeColumn))
			}
			f := readFit(t, ctx)
			checkFit(t, fmt.Sprintf("%s step %d", where, i), f)
			if i == len(l.Steps) {
				t.Logf("%s: smallest diagram label %.1f px, state name %.1f px; timeline %.0f px tall, its drawing %.0f x %.0f", where, slices.Min(f.LabelPx), slices.Min(f.NamePx), f.Panels["timeline"].Bottom-f.Panels["timeline"].Top, f.Timeline.Right-f.Timeline.Left, f.Timeline.Bottom-f.Timeline.Top)
			}
		}
	}
}

// minTimelineH is the least height, in px, of the presenter timeline's
// drawing (its lanes' body as shown; its width follows from its columns):
// squeezed below it, as it once was to 35 px on the nodes lesson, the
// timeline is not readable.
const minTimelineH = 72

// TestBrowserPresenterFitsNodes walks the Redlock lesson on independent
// nodes, whose Redis panel shows a section per node and whose command card a
// call per node, in presenter mode at 1024 x 768 in English and zh-TW: at
// every step nothing is cut or off the screen, and the
// timeline's drawing keeps at least minTimelineH.
func TestBrowserPresenterFitsNodes(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	l := lessonByID(t, all, "redlock-restart")
	type size struct {
		w, h int64
		lang sim.Locale
	}
	// The smallest projector size is the one that binds, in English and in
	// the wider CJK text (zh-TW's lines are the longest); 1280x800 and
	// zh-CN gave no finding of their own and cost half a minute of the
	// test budget (docs/testing.md).
	sizes := []size{{1024, 768, sim.English}, {1024, 768, sim.TraditionalChinese}}
	for _, s := range sizes {
		where := fmt.Sprintf("%s %dx%d %s", l.ID, s.w, s.h, s.lang)
		run(t, ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(ts.url+lessonURL(l.ID, 1, s.lang, true)))
		waitStep(t, ctx, 1)
		for i := 1; i <= len(l.Steps); i++ {
			if i > 1 {
				press(t, ctx, kb.ArrowRight)
				waitStep(t, ctx, i)
			}
			f := readFit(t, ctx)
			at := fmt.Sprintf("%s step %d", where, i)
			checkFit(t, at, f)
			tl := f.Timeline
			if h := tl.Bottom - tl.Top; h < minTimelineH {
				t.Errorf("%s: the timeline's drawing is %.0f x %.0f px, want at least %d px tall", at, tl.Right-tl.Left, h, minTimelineH)
			}
			t.Logf("%s: timeline drawing %.0f x %.0f px", at, tl.Right-tl.Left, tl.Bottom-tl.Top)
			if i == 4 {
				if n := eval[int](t, ctx, `document.querySelectorAll('#panel-redis .node-keys').length`); n != l.Nodes {
					t.Errorf("%s: %d node sections shown, want %d", at, n, l.Nodes)
				}
			}
		}
	}
}

// TestBrowserPresenterPredictFits: predict mode's question bar, in
// presenter mode at the smallest size, still leaves every panel on the
// screen.
func TestBrowserPresenterPredictFits(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, 7, sim.English, true)+"&predict=1"))
	waitStep(t, ctx, 7)
	press(t, ctx, kb.ArrowRight) // asks before it steps
	waitJS(t, ctx, `!!document.querySelector('#predict [data-choice]')`, "the question of step 8")
	checkFit(t, "1024x768 predict, asking", readFit(t, ctx))
	click(t, ctx, "#predict [data-choice]")
	waitStep(t, ctx, 8)
	waitJS(t, ctx, `!!document.querySelector('#predict .predict-verdict')`, "the verdict")
	checkFit(t, "1024x768 predict, answered", readFit(t, ctx))
}

// TestBrowserOneDiagramShown: the player draws the state diagram twice
// (templates/diagram.templ: one for the screen, one with projector-sized
// labels), and shows exactly one of them: the screen's on a phone, the
// projector's on a desk (its labels readable in the board's right column,
// a review of issue 38) and in presenter mode. A stylesheet rule that
// outranked the hiding one once showed both, one under the other, on every
// lesson.
func TestBrowserOneDiagramShown(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	const shown = `[...document.querySelectorAll('[data-testid="diagram"] svg')].filter(s => getComputedStyle(s).display !== 'none' && s.getBoundingClientRect().height > 0).map(s => s.getAttribute('class'))`
	for _, c := range []struct {
		w, h      int64
		presenter bool
		want      string
	}{{390, 844, false, "dg-screen"}, {1280, 800, false, "dg-projector"}, {1280, 800, true, "dg-projector"}} {
		run(t, ctx, chromedp.EmulateViewport(c.w, c.h), chromedp.Navigate(ts.url+lessonURL(l.ID, 3, sim.English, c.presenter)))
		waitStep(t, ctx, 3)
		got := eval[[]string](t, ctx, shown)
		if len(got) != 1 || !slices.Contains(strings.Fields(got[0]), c.want) {
			t.Errorf("%dx%d presenter %v: shown diagram drawings %q, want one %s", c.w, c.h, c.presenter, got, c.want)
		}
	}
}

// TestBrowserPresenterSwitchedOn opens the stale-owner lesson out of
// presenter mode at 1024 x 768, where the page does not load presenter
// mode's stylesheet (issue 34), and switches the mode on with its key: the
// page links the stylesheet then and, once it has loaded, lays the page
// out again, so the presenter layout fits the screen as when the page
// opens in the mode (checkFit).
func TestBrowserPresenterSwitchedOn(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	const presenterSheet = `[...document.querySelectorAll('link[rel="stylesheet"]')].filter(e => e.getAttribute('href').startsWith('/static/presenter.css?v='))`
	run(t, ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(ts.url+lessonURL(l.ID, 7, sim.English, false)))
	waitStep(t, ctx, 7)
	if n := eval[int](t, ctx, presenterSheet+`.length`); n != 0 {
		t.Fatalf("out of presenter mode the page links presenter.css (%d links)", n)
	}
	press(t, ctx, "p")
	waitJS(t, ctx, presenterSheet+`.length === 1 && `+presenterSheet+`[0].sheet !== null`, "presenter.css linked and loaded")
	// The load event's relayout runs in a task of its own: two frames on.
	evalAwait[bool](t, ctx, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	waitJS(t, ctx, currentColumnInView, "step 7's column in view")
	checkFit(t, "switched on at 1024x768", readFit(t, ctx))
	press(t, ctx, "p")
	press(t, ctx, "p")
	if n := eval[int](t, ctx, presenterSheet+`.length`); n != 1 {
		t.Errorf("switched on again, the page links presenter.css %d times", n)
	}
}
