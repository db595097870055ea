package web

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// presenterWhole is what measurePresenterWhole finds of presenter mode's
// board: what the Redis keys' and the command's cards cannot show, the
// window of steps the lanes show, the room under the lanes and the
// banners cut with "…".
type presenterWhole struct {
	Tl    string `json:"tl"`   // the board's data-tl
	Room  string `json:"room"` // the board's data-room
	ViewH float64
	// RedisCut and CommandCut name each text of the card not wholly in
	// its box (cut at its right or bottom edge, or hidden under it).
	RedisCut   []string `json:"redisCut"`
	CommandCut []string `json:"commandCut"`
	Cols       int      `json:"cols"`     // the step columns wholly in the lanes' window
	CardH      float64  `json:"cardH"`    // the timeline's card's height (px)
	Empty      float64  `json:"empty"`    // px of the timeline's card under its drawing
	Ellipsed   []string `json:"ellipsed"` // banners whose text is cut with "…"
	LaneTouch  []string `json:"laneTouch"`
	NarrHidden float64  `json:"narrHidden"` // px of the narration under its card's edge
	// DiagramHidden is px of the diagram's card under its edge.
	DiagramHidden float64 `json:"diagramHidden"`
	LanesH        float64 `json:"lanesH"` // the lanes' drawing's height on the screen (px)
	// PanelOver names the board's cards the class panel lies over, with
	// the px of each overlap.
	PanelOver []string `json:"panelOver"`
}

// problems is what f finds not whole on presenter mode's board: a card
// that scrolls (the keys, the command, the narration, the diagram), the
// lanes under 3 step columns or 35% of the screen (their card or their
// drawing), texts of the lanes over one another, a banner cut, the class
// panel over a card.
func (f presenterWhole) problems() []string {
	var out []string
	if len(f.RedisCut) > 0 {
		out = append(out, fmt.Sprintf("the Redis keys cut: %q", f.RedisCut))
	}
	if len(f.CommandCut) > 0 {
		out = append(out, fmt.Sprintf("the command cut: %q", f.CommandCut))
	}
	if f.NarrHidden > 1 {
		out = append(out, fmt.Sprintf("%.0f px of the narration under its card's edge", f.NarrHidden))
	}
	if f.DiagramHidden > 1 {
		out = append(out, fmt.Sprintf("%.0f px of the diagram's card under its edge", f.DiagramHidden))
	}
	if f.Cols < 3 || f.CardH < 0.35*f.ViewH || f.LanesH < 0.35*f.ViewH {
		out = append(out, fmt.Sprintf("the lanes show %d step columns, drawn %.0f px in a card %.0f px of %.0f; want at least 3 and 35%%", f.Cols, f.LanesH, f.CardH, f.ViewH))
	}
	if len(f.LaneTouch) > 0 {
		out = append(out, fmt.Sprintf("texts of the lanes over one another: %q", f.LaneTouch))
	}
	if len(f.Ellipsed) > 0 {
		out = append(out, fmt.Sprintf("banners cut: %q", f.Ellipsed))
	}
	if len(f.PanelOver) > 0 {
		out = append(out, fmt.Sprintf("the class panel over %q", f.PanelOver))
	}
	return out
}

// wholeOnceSettled measures presenterWhole until it finds no problem or
// wholeSettle has passed, and returns the last measure: presenter mode
// fits its cards after its module loads, the fonts come and its resize
// observers run, each a task later on a loaded machine than the two
// animation frames the measure waits, so a first measure can catch the
// layout midway (a narration 72 px over its card's edge in one CI run at
// load 16, whole when run again). A layout that stays wrong is reported
// all the same, after wholeSettle.
func wholeOnceSettled(t *testing.T, ctx context.Context) presenterWhole {
	t.Helper()
	deadline := time.Now().Add(wholeSettle)
	for {
		var f presenterWhole
		if err := json.Unmarshal(evalAwait[[]byte](t, ctx, measurePresenterWhole), &f); err != nil {
			t.Fatal(err)
		}
		if len(f.problems()) == 0 || time.Now().After(deadline) {
			return f
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// wholeSettle is how long wholeOnceSettled waits for a layout to settle.
const wholeSettle = 3 * time.Second

// measurePresenterWhole measures presenterWhole. A text is cut when its
// box goes past its card's right or bottom edge (by 1 px or more) or its
// card scrolls: a projector shows no scroll bar, and the room reads what
// is on the wall (a fresh review of issue 38: PTTLs and keys cut in the
// keys card, a BUSY reply under the command card's edge).
const measurePresenterWhole = `(async () => {
	await new Promise(res => requestAnimationFrame(() => requestAnimationFrame(res)));
	const r = el => el.getBoundingClientRect();
	const words = el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
	const cutIn = id => {
		const c = document.getElementById('panel-' + id), cb = r(c), out = [];
		if (cb.width === 0) return out;
		if (c.scrollHeight > c.clientHeight + 1) out.push('the card scrolls: ' + (c.scrollHeight - c.clientHeight) + ' px under its edge');
		if (c.scrollWidth > c.clientWidth + 1) out.push('the card scrolls: ' + (c.scrollWidth - c.clientWidth) + ' px past its right edge');
		for (const el of c.querySelectorAll('*')) {
			const e = r(el);
			if (e.width <= 1 || e.height <= 1 || !words(el) || getComputedStyle(el).visibility === 'hidden' || el.closest('.sr-only')) continue;
			if (e.right > cb.right + 1 || e.bottom > cb.bottom + 1) out.push(el.textContent.trim().slice(0, 40) + ' (' + Math.round(e.right - cb.right) + ', ' + Math.round(e.bottom - cb.bottom) + ' px out)');
			else if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') out.push(el.textContent.trim().slice(0, 40) + ' (cut in its box)');
		}
		return out;
	};
	const board = document.querySelector('.board'), card = document.getElementById('panel-timeline');
	const sc = document.querySelector('[data-panel="timeline"] .tl-scroll'), v = r(sc);
	const cols = [...document.querySelectorAll('[data-panel="timeline"] .col .col-bg')].filter(c => { const x = r(c); return x.width > 0 && x.left >= v.left - 1 && x.right <= v.right + 1; });
	const body = document.querySelector('[data-panel="timeline"] .tl-body');
	const ellipsed = [...document.querySelectorAll('#panel-alerts .banner > div')].filter(d => d.scrollWidth > d.clientWidth + 1 || d.scrollHeight > d.clientHeight + 1).map(d => d.textContent.trim().slice(0, 40));
	// the Redis lane's texts (a reply "1:nil 2:OK 3:OK") apart from one another
	const texts = [...document.querySelectorAll('[data-panel="timeline"] .tl-body text')].filter(e => { const b = r(e); return b.width > 0 && b.right > v.left && b.left < v.right; });
	const touch = [];
	texts.forEach((a, i) => texts.slice(i + 1).forEach(b => {
		const p = r(a), q = r(b);
		const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
		if (w > 1 && h > 1) touch.push(a.textContent + ' / ' + b.textContent + ' (' + Math.round(w) + 'x' + Math.round(h) + ' px)');
	}));
	const n = document.getElementById('panel-narration'), dg = document.getElementById('panel-diagram');
	const lanesH = Math.max(0, Math.min(r(body).bottom, r(card).bottom, innerHeight) - Math.max(r(body).top, r(card).top, 0));
	// the class panel (shown) over a card of the board
	const panelOver = [], aside = document.querySelector('[data-class-panel]');
	if (aside && !aside.hidden && r(aside).width > 0) {
		const a = r(aside);
		for (const name of ['narration', 'redis', 'diagram', 'command', 'timeline', 'alerts']) {
			const b = r(document.getElementById('panel-' + name));
			const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
			if (b.width > 0 && w > 0.5 && h > 0.5) panelOver.push(name + ' ' + Math.round(w) + 'x' + Math.round(h) + ' px');
		}
	}
	return ({tl: board.dataset.tl || '', room: board.dataset.room || '', ViewH: innerHeight, lanesH, panelOver,
		diagramHidden: r(dg).width > 0 ? Math.max(0, dg.scrollHeight - dg.clientHeight) : 0,
		redisCut: cutIn('redis'), commandCut: cutIn('command'), cols: cols.length, cardH: r(card).height,
		empty: Math.max(0, Math.min(r(card).bottom, innerHeight) - r(body).bottom - 8), ellipsed, laneTouch: touch,
		narrHidden: Math.max(0, n.scrollHeight - n.clientHeight)});
})()`

// TestBrowserPresenterCardsWhole: presenter mode shows whole, on the
// steps where a fresh review of issue 38 found them cut at 1024 x 768 (and
// 1280 x 800), the Redis keys (each key, field and PTTL: failover steps
// 0-4, min-replicas-waitaof 0-2, cluster-hash-tag 6) and the command card
// (redlock-failed-majority's and redlock-restart's calls on each node),
// with the lanes a readable window (at least 3 step columns, at least 35%
// of the screen), no two texts of the lanes over one another, no banner cut with
// "…" and the narration whole; and on the desk at 1280 x 800 a lesson's
// end card's Fork from here on the first screen. One tab, no animation;
// about 40 pages.
func TestBrowserPresenterCardsWhole(t *testing.T) {
	t.Parallel()
	ctx, ts, course := stillTabOnCourse(t)
	type at struct {
		id    string
		steps []int // -1: the lesson's end
		w, h  int64
		lang  sim.Locale
	}
	cases := []at{
		{"failover", []int{0, 1, 2, 3, 4}, 1024, 768, sim.English},
		{"min-replicas-waitaof", []int{0, 1, 2}, 1024, 768, sim.English},
		{"min-replicas-waitaof", []int{0, 1, 2}, 1280, 800, sim.English},
		{"cluster-hash-tag", []int{6}, 1024, 768, sim.English},
		{"redlock-failed-majority", []int{1, 2, 4, 6}, 1024, 768, sim.English},
		{"redlock-restart", []int{1, 4, 5}, 1024, 768, sim.English},
		// a fresh headless-Chromium review of issue 38 on main (c3179e0):
		// the state in words 19 px under its row, the calls 67 px under
		// the command card's edge at redlock-restart's end, the keys 27
		// px at fencing-check-then-write step 9, 19 px at
		// fencing-compare-and-write step 9.
		// A later one, at 1024 x 768 in English: idempotent-unlock step
		// 8's calls 25 px (was its keys 113 px), fencing-counter-durable
		// step 10's keys 99 px, redlock-node-clock-jump step 6's keys 57
		// px (five lanes 534 px tall, two banners, four nodes' keys, six
		// calls) and unlock-timeout-thread-reused step 7's 16 px beside a
		// window of one step, long-script-blocks step 3's calls 93 px
		// beside the course's longest narration; whole at makeRoom's
		// strip levels (9, 10) and tight type, the window three steps.
		{"idempotent-unlock", []int{8}, 1024, 768, sim.English},
		{"fencing-counter-durable", []int{10}, 1024, 768, sim.English},
		{"redlock-node-clock-jump", []int{6}, 1024, 768, sim.English},
		{"unlock-timeout-thread-reused", []int{7}, 1024, 768, sim.English},
		{"long-script-blocks", []int{3}, 1024, 768, sim.English},
		{"long-script-blocks", []int{3}, 1280, 800, sim.English},
		{"redlock-restart", []int{6, -1}, 1024, 768, sim.English},
		{"idempotent-unlock", []int{8}, 1024, 768, sim.SimplifiedChinese},
		{"fencing-check-then-write", []int{0, 9}, 1024, 768, sim.English},
		{"fencing-check-then-write", []int{9}, 1280, 800, sim.SimplifiedChinese},
		{"fencing-counter-durable", []int{12}, 1024, 768, sim.English},
		{"fencing-compare-and-write", []int{9}, 1024, 768, sim.English},
	}
	for _, c := range cases {
		run(t, ctx, chromedp.EmulateViewport(c.w, c.h))
		for _, n := range c.steps {
			if n < 0 {
				n = len(lessonByID(t, course, c.id).Steps)
			}
			where := fmt.Sprintf("%s step %d %dx%d %s", c.id, n, c.w, c.h, c.lang)
			run(t, ctx, chromedp.Navigate(ts.url+lessonURL(c.id, n, c.lang, true)))
			if n > 0 {
				waitStep(t, ctx, n)
			} else {
				waitJS(t, ctx, `document.getElementById('player')?.dataset.conn === 'open'`, where+": connected")
			}
			waitJS(t, ctx, currentColumnInView, where+": the column in view")
			f := wholeOnceSettled(t, ctx)
			for _, p := range f.problems() {
				t.Errorf("%s (tl %q room %q): %s", where, f.Tl, f.Room, p)
			}
		}
	}
	// On the desk (no presenter mode) at 1280 x 800, at a lesson's end the
	// end card's Fork from here is on the first screen (a fresh review of
	// issue 38: at y=892, under the narration; idempotent-unlock's at 1320).
	run(t, ctx, chromedp.EmulateViewport(1280, 800))
	for _, id := range []string{"idempotent-unlock", "nested-reentry", "redlock-restart"} {
		l := lessonByID(t, course, id)
		n := len(l.Steps)
		run(t, ctx, chromedp.Navigate(ts.url+lessonURL(id, n, sim.English, false)))
		waitStep(t, ctx, n)
		waitJS(t, ctx, `(document.querySelector('#end-card [data-end="fork"]')?.getBoundingClientRect().height ?? 0) > 0`, id+": the end card")
		if b := eval[float64](t, ctx, `document.querySelector('#end-card [data-end="fork"]').getBoundingClientRect().bottom`); b > 800 {
			t.Errorf("%s step %d desk 1280x800: Fork from here ends at y=%.0f, below the first screen", id, n, b)
		}
	}
}
