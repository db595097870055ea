package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/sim"
)

// The player's small fixes of issue 20 (item 7), each checked in the page.

// TestBrowserNoScript opens a step with JavaScript off: no control that
// would do nothing is shown, nor "Connecting…"; the notice is at the top,
// above the board, and the step the server rendered is there to read.
func TestBrowserNoScript(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	frames := expectedFrames(t, l)
	run(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+lessonURL(l.ID, 5, sim.English, false)))
	waitJS(t, ctx, `document.readyState === 'complete' && !!document.querySelector('[data-testid="noscript"]')`, "the page")
	type noScript struct {
		Shown       []string `json:"shown"` // live-looking controls on the screen
		ConnShown   bool     `json:"connShown"`
		NoticeTop   float64  `json:"noticeTop"`
		NoticeH     float64  `json:"noticeH"`
		BoardTop    float64  `json:"boardTop"`
		Step        string   `json:"step"`
		Say         string   `json:"say"`
		SayShown    bool     `json:"sayShown"`
		PlayerReady string   `json:"conn"`
	}
	var got noScript
	raw := eval[string](t, ctx, `(() => {
		const seen = el => { const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
		const shown = [...document.querySelectorAll('button, input, select, [data-action], #conn')].filter(seen).map(el => el.id || el.dataset.action || el.tagName);
		const notice = document.querySelector('[data-testid="noscript"]').getBoundingClientRect();
		const say = document.querySelector('[data-testid="say"]');
		return JSON.stringify({
			shown, connShown: seen(document.getElementById('conn')),
			noticeTop: notice.top, noticeH: notice.height,
			boardTop: document.querySelector('.board').getBoundingClientRect().top,
			step: document.querySelector('[data-panel="narration"] .narr')?.dataset.step || '',
			say: say ? say.textContent.trim() : '', sayShown: !!say && seen(say),
			conn: document.getElementById('player').dataset.conn,
		});
	})()`)
	if err := unmarshalJSON(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Shown) > 0 || got.ConnShown {
		t.Errorf("with JavaScript off the page shows controls %q (status shown: %v)", got.Shown, got.ConnShown)
	}
	if got.NoticeH == 0 || got.NoticeTop > 1 {
		t.Errorf("the notice is at %v px (%v tall), the board at %v: want it at the top", got.NoticeTop, got.NoticeH, got.BoardTop)
	}
	if got.Step != "5" || !got.SayShown || got.Say != strings.TrimSpace(frames[5].Say.In(sim.English)) {
		t.Errorf("the static step: %+v", got)
	}
	if got.PlayerReady != "connecting" {
		t.Fatalf("the script ran (conn %q): JavaScript was not off", got.PlayerReady)
	}
}

// TestBrowserTokensDoNotBreak: at 1024 px (and a phone's 390) no grant
// token ("t-b3cae1aa") of the stale-owner lesson breaks over two lines,
// at its hyphen or anywhere, in any panel or banner.
func TestBrowserTokensDoNotBreak(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	l, ts := staleLesson(t, all), startServer(t, Config{Lessons: all}, "127.0.0.1:0")
	const broken = `(() => {
		const out = [];
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			if (n.parentElement.closest('svg')) continue;
			for (const m of n.data.matchAll(/t-[0-9a-f]{6,}/g)) {
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + m[0].length);
				const rects = [...r.getClientRects()].filter(b => b.width > 0);
				if (rects.length > 1) out.push(m[0] + ' in ' + (n.parentElement.className || n.parentElement.tagName));
			}
		}
		return out.join('; ');
	})()`
	// Each width and mode in a tab of its own, at once: 4 × 19 steps in
	// one tab were one of the package's longest tests.
	for _, w := range []int64{1024, 390} {
		for _, present := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dpx-presenter-%v", w, present), func(t *testing.T) {
				t.Parallel()
				ctx := newTab(t)
				run(t, ctx, chromedp.EmulateViewport(w, 800), chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, present)))
				waitStep(t, ctx, 0)
				for step := 1; step <= len(l.Steps); step++ {
					press(t, ctx, kb.ArrowRight)
					waitStep(t, ctx, step)
					if got := eval[string](t, ctx, broken); got != "" {
						t.Errorf("%d px, presenter %v, step %d: tokens broken over lines: %s", w, present, step, got)
					}
				}
			})
		}
	}
}

// TestBrowserPredictPlayNote: in predict mode Play is off (aria-disabled),
// and pressing it says why, beside the question the bar asks, which stays;
// the question's hint names as many keys as it has choices.
func TestBrowserPredictPlayNote(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, false)+"&predict=1"))
	waitStep(t, ctx, 0)
	waitJS(t, ctx, `document.querySelector('#btn-play').getAttribute('aria-disabled') === 'true'`, "Play off")
	click(t, ctx, "#btn-step")
	waitJS(t, ctx, `!!document.querySelector('#predict [data-choice]')`, "a question")
	ui := tr(sim.English)
	n := eval[int](t, ctx, `document.querySelectorAll('#predict [data-choice]').length`)
	hint := eval[string](t, ctx, `document.querySelector('#predict .predict-hint').textContent`)
	if want := strings.ReplaceAll(ui.Interview().PredictChoose, "{last}", fmt.Sprint(n)); hint != want || strings.Contains(hint, "1–9") && n != 9 {
		t.Errorf("hint %q with %d choices, want %q", hint, n, want)
	}
	click(t, ctx, "#btn-play")
	waitJS(t, ctx, `!!document.querySelector('#predict .predict-aside')`, "the note on Play")
	note := eval[string](t, ctx, `document.querySelector('#predict .predict-aside').textContent`)
	if note != ui.Interview().PredictPlayOff {
		t.Errorf("note %q, want %q", note, ui.Interview().PredictPlayOff)
	}
	if eval[int](t, ctx, `document.querySelectorAll('#predict [data-choice]:not(:disabled)').length`) != n {
		t.Error("the note took the question's choices away")
	}
	if eval[string](t, ctx, `document.getElementById('player').dataset.playing`) != "false" {
		t.Error("Play played in predict mode")
	}
	// Space, the key of Play, says it too and plays nothing.
	_ = eval[bool](t, ctx, `(document.querySelector('#predict .predict-aside').remove(), true)`)
	press(t, ctx, ".")
	waitJS(t, ctx, `!!document.querySelector('#predict .predict-aside')`, "the note on the key")
}

// TestBrowserCourseCardAfterDeepLink: a lesson opened only by a deep link to
// step 7 reads "Step 7 of N · Continue" on the course page, and Continue
// goes to step 7.
func TestBrowserCourseCardAfterDeepLink(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	openStep(t, ctx, ts, l.ID, 7, sim.English)
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	sel := fmt.Sprintf(`.lesson-card[data-lesson="%s"]`, l.ID)
	waitJS(t, ctx, `document.querySelector('`+sel+`').classList.contains('started')`, "the card started")
	ui := tr(sim.English).UI()
	text := eval[string](t, ctx, `document.querySelector('`+sel+` [data-progress-text]').textContent`)
	if want := strings.NewReplacer("{step}", "7", "{total}", fmt.Sprint(len(l.Steps))).Replace(ui.ProgressStep); text != want {
		t.Errorf("card says %q, want %q", text, want)
	}
	link := eval[string](t, ctx, `document.querySelector('`+sel+` [data-progress-link]').getAttribute('href')`)
	if label := eval[string](t, ctx, `document.querySelector('`+sel+` [data-progress-link]').textContent`); label != ui.ContinueLesson || !strings.Contains(link, "step=7") {
		t.Errorf("card link %q %q, want Continue to step 7", label, link)
	}
}

// TestBrowserBadgeWhenRedisDown: while the status says Redis is
// unavailable, the header's backend badge is not the green of a Redis
// that answers.
func TestBrowserBadgeWhenRedisDown(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	ctx, l, ts := stalePlayerOn(t, Config{Backend: RedisBackend(be)})
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 4, sim.English, false)))
	waitStep(t, ctx, 4) // step 5 (B acquires) calls Redis
	const bg = `getComputedStyle(document.querySelector('[data-testid="backend"]')).backgroundColor`
	up := eval[string](t, ctx, bg)
	if up != "rgb(15, 122, 75)" {
		t.Fatalf("badge of a Redis that answers: %s, want the green rgb(15, 122, 75)", up)
	}
	rs.Stop()
	press(t, ctx, kb.ArrowRight)
	waitJS(t, ctx, `document.getElementById('player').dataset.conn === 'redis'`, "Redis unavailable")
	if down := eval[string](t, ctx, bg); down == up {
		t.Errorf("badge stays %s while the status says %q", down, eval[string](t, ctx, `document.getElementById('conn').textContent`))
	}
	if eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid="backend"]')).textDecorationLine`) != "line-through" {
		t.Error("the badge does not strike the Redis out")
	}
}

func unmarshalJSON(raw string, v any) error { return json.Unmarshal([]byte(raw), v) }

// TestBrowserSourceIsText: the lesson's "Source:" note cites its seed
// documents as text, styled as text: not a link, not underlined (it was
// dotted, and read as a link that went nowhere).
func TestBrowserSourceIsText(t *testing.T) {
	t.Parallel()
	ctx, l, ts := stalePlayer(t)
	openStep(t, ctx, ts, l.ID, 0, sim.English)
	got := eval[string](t, ctx, `(() => {
		const s = document.querySelector('.lesson-head .source .seed');
		if (!s) return 'no seed cited';
		const cs = getComputedStyle(s);
		if (s.closest('a')) return 'inside a link';
		if (cs.textDecorationLine !== 'none') return 'underlined: ' + cs.textDecorationLine + ' ' + cs.textDecorationStyle;
		if (cs.cursor !== 'auto' && cs.cursor !== 'text') return 'cursor ' + cs.cursor;
		return s.title ? '' : 'no file name in its title';
	})()`)
	if got != "" {
		t.Errorf("the source note's seed: %s", got)
	}
}

// TestBrowserInterviewModelTimeline: question 1's model answer shows its
// timeline whole: every lane label inside the label column, the Redis
// lane and its PTTL bars inside the visible timeline (not cut by its box).
func TestBrowserInterviewModelTimeline(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	ts := startServer(t, Config{}, "127.0.0.1:0")
	for _, w := range []int64{1280, 1024} {
		for _, loc := range sim.Locales {
			run(t, ctx, chromedp.EmulateViewport(w, 800), chromedp.Navigate(ts.url+"/interview?lang="+string(loc)))
			// the page's script bound, else the click does nothing (CI, at
			// load, clicked before and waited 60 s)
			waitJS(t, ctx, `document.querySelectorAll('[data-question]').length === 3 && 'ready' in document.getElementById('interview').dataset`, "three questions, the page's script ready")
			click(t, ctx, `[data-reveal="q1"]`)
			waitJS(t, ctx, `!document.querySelector('[data-demo="q1"]').hidden && !!document.querySelector('[data-demo="q1"] .tl svg')`, "question 1's timeline")
			got := eval[string](t, ctx, `(() => {
				const demo = document.querySelector('[data-demo="q1"]');
				const tl = demo.querySelector('.tl'), labels = demo.querySelector('.tl-labels'), sc = demo.querySelector('.tl-scroll');
				const box = tl.getBoundingClientRect(), lb = labels.getBoundingClientRect(), view = sc.getBoundingClientRect();
				const out = [];
				for (const n of labels.querySelectorAll('.lane-name, .lane-sub, .row-label')) {
					const b = n.getBoundingClientRect();
					if (b.width > 0 && (b.left < lb.left - 0.5 || b.right > lb.right + 0.5)) out.push('label "' + n.textContent + '" overruns its column by ' + Math.round(b.right - lb.right) + ' px');
				}
				const redis = labels.querySelector('.lane-label.redis');
				if (!redis) out.push('no Redis lane');
				else if (redis.getBoundingClientRect().bottom > box.bottom + 0.5) out.push('the Redis lane is cut at the bottom');
				for (const r of sc.querySelectorAll('.lease')) {
					const b = r.getBoundingClientRect();
					if (b.height > 0 && (b.bottom > view.bottom + 0.5 || b.top < view.top - 0.5)) { out.push('a PTTL bar is cut'); break; }
				}
				return out.join('; ');
			})()`)
			if got != "" {
				t.Errorf("%d px %s: %s", w, loc, got)
			}
		}
	}
}
