package web

import (
	"encoding/json"
	"fmt"
	"testing"

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
}

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
	const n = document.getElementById('panel-narration');
	return ({tl: board.dataset.tl || '', room: board.dataset.room || '', ViewH: innerHeight,
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
		steps []int
		w, h  int64
	}
	cases := []at{
		{"failover", []int{0, 1, 2, 3, 4}, 1024, 768},
		{"min-replicas-waitaof", []int{0, 1, 2}, 1024, 768},
		{"min-replicas-waitaof", []int{0, 1, 2}, 1280, 800},
		{"cluster-hash-tag", []int{6}, 1024, 768},
		{"redlock-failed-majority", []int{1, 2, 4, 6}, 1024, 768},
		{"redlock-restart", []int{1, 4, 5}, 1024, 768},
		// not yet whole (left for the next change): fencing-counter-durable
		// step 12 and fencing-compare-and-write step 9 (the keys 19 px, or
		// the narration 4 px), idempotent-unlock step 8 (113 px of keys),
		// redlock-restart step 6 (the keys 45 px, the command 60 px),
		// long-script-blocks step 3 (the narration 105 px),
		// redlock-node-clock-jump step 6 (the calls 179 px beside a
		// window of one step: no level shows its narration whole otherwise)
	}
	for _, c := range cases {
		run(t, ctx, chromedp.EmulateViewport(c.w, c.h))
		for _, n := range c.steps {
			where := fmt.Sprintf("%s step %d %dx%d", c.id, n, c.w, c.h)
			run(t, ctx, chromedp.Navigate(ts.url+lessonURL(c.id, n, sim.English, true)))
			if n > 0 {
				waitStep(t, ctx, n)
			} else {
				waitJS(t, ctx, `document.getElementById('player')?.dataset.conn === 'open'`, where+": connected")
			}
			waitJS(t, ctx, currentColumnInView, where+": the column in view")
			var f presenterWhole
			if err := json.Unmarshal(evalAwait[[]byte](t, ctx, measurePresenterWhole), &f); err != nil {
				t.Fatal(err)
			}
			if len(f.RedisCut) > 0 {
				t.Errorf("%s (tl %q room %q): the Redis keys cut: %q", where, f.Tl, f.Room, f.RedisCut)
			}
			if len(f.CommandCut) > 0 {
				t.Errorf("%s (tl %q room %q): the command cut: %q", where, f.Tl, f.Room, f.CommandCut)
			}
			if f.Cols < 3 || f.CardH < 0.35*f.ViewH {
				t.Errorf("%s (tl %q room %q): the lanes show %d step columns in a card %.0f px of %.0f; want at least 3 and 35%%", where, f.Tl, f.Room, f.Cols, f.CardH, f.ViewH)
			}
			if len(f.LaneTouch) > 0 {
				t.Errorf("%s: texts of the lanes over one another: %q", where, f.LaneTouch)
			}
			if len(f.Ellipsed) > 0 {
				t.Errorf("%s: banners cut: %q", where, f.Ellipsed)
			}
			if f.NarrHidden > 1 {
				t.Errorf("%s (tl %q room %q): %.0f px of the narration under its card's edge", where, f.Tl, f.Room, f.NarrHidden)
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
