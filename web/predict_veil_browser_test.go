package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// TestBrowserPredictVeil: in predict mode the lesson's summary is hidden
// until the last step, and a step's explanation (its say) is hidden while
// its "why" question waits for an answer, shown once answered (issue 39).
func TestBrowserPredictVeil(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	var l *sim.Lesson
	n := 0 // the 1-based step with a why question and a say
	for _, c := range all {
		for i, s := range c.Steps {
			if s.Why != nil && s.Say != nil && c.Summary != nil {
				l, n = c, i+1
				break
			}
		}
		if l != nil {
			break
		}
	}
	if l == nil {
		t.Fatal("no lesson with a summary and a step with a why question and a say")
	}
	frames := expectedFrames(t, l)
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, n-1, sim.English, false)+"&predict=1"))
	waitStep(t, ctx, n-1)
	const visible = `(sel) => { const e = document.querySelector(sel); return e ? e.checkVisibility() : null; }`
	shown := func(sel string) any {
		return eval[any](t, ctx, fmt.Sprintf(`(%s)(%q)`, visible, sel))
	}
	if v := shown(".lesson-head .summary"); v != false {
		t.Fatalf("the summary in predict mode before the last step: visible %v, want hidden", v)
	}
	click(t, ctx, "#btn-step")
	waitBar(t, ctx, "ask")
	click(t, ctx, fmt.Sprintf(`[data-choice="%s"]`, frames[n].Outcome))
	waitStep(t, ctx, n)
	waitJS(t, ctx, `!!document.querySelector('[data-predict-bar] [data-why-choice]')`, "the why question")
	if v := shown(".narr .say"); v != false {
		t.Fatalf("step %d's say while its why question waits: visible %v, want hidden", n, v)
	}
	if live := eval[string](t, ctx, `document.getElementById('live').textContent`); live == "" {
		t.Fatal("the live region is empty")
	} else if say := eval[string](t, ctx, `document.querySelector('.narr .say').textContent.trim()`); say != "" && strings.Contains(live, say) {
		t.Fatalf("the live region announces the hidden say: %q", live)
	}
	click(t, ctx, `[data-why-choice="0"]`)
	waitJS(t, ctx, `document.querySelector('.narr .say').checkVisibility()`, "the say after the why answer")
	// Off, nothing is hidden.
	click(t, ctx, `[data-action="predict"]`)
	waitJS(t, ctx, `document.querySelector('.lesson-head .summary').checkVisibility()`, "the summary with predict mode off")
}
