package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/sim"
)

// contrastJS defines contrast(el): the contrast ratio (WCAG 2) of el's
// text colour against the first opaque background behind it, walking up
// its ancestors (white at the root).
const contrastJS = `(() => {
	const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
	const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
		return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
	window.contrast = el => {
		const fg = rgb(getComputedStyle(el).color);
		let bg = [255, 255, 255];
		for (let e = el; e; e = e.parentElement) {
			const c = rgb(getComputedStyle(e).backgroundColor);
			if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) { bg = c; break; }
		}
		const a = lum(fg), b = lum(bg);
		return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
	};
	return true;
})()`

// TestBrowserRoomClass walks a class as a room has it (issue 38): a
// presenter at 1280 x 800 starts a class from a lesson, a student on a
// 390 x 844 phone joins, the presenter steps to step 3 and asks.
//   - item 2: the student's question is dark on light (contrast at least
//     4.5) and names the step: its actor, action and lock.
//
// With -update-screenshot it writes the phone during the question and
// after Reveal to docs/.
func TestBrowserRoomClass(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	l := lessonByID(t, all, classLesson)
	ts := startServer(t, Config{Lessons: all}, "127.0.0.1:0")

	p := newTab(t)
	run(t, p, chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, false)))
	waitStep(t, p, 0)
	click(t, p, "[data-class-start]")
	join := waitValue[string](t, p, `document.querySelector('[data-class-url]')?.textContent || ''`, "the join address")

	phone := newTab(t)
	run(t, phone, chromedp.EmulateViewport(390, 844), chromedp.Navigate(join))
	waitJS(t, p, `document.querySelector('[data-class-students]').textContent.includes('1')`, "1 student connected")
	for n := 1; n <= 3; n++ {
		press(t, p, kb.ArrowRight)
		waitStep(t, phone, n)
	}
	click(t, p, `[data-class-action="ask"]`)
	waitJS(t, phone, `document.querySelectorAll('[data-class-choice]').length >= 2`, "the phone: the question")
	eval[bool](t, phone, contrastJS)

	// Item 2: dark text, and the step itself.
	st := l.Steps[3]
	prompt := eval[string](t, phone, `document.querySelector('.class-prompt').textContent`)
	for _, want := range []string{st.Actor, st.Lock} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the student's question %q does not name step 4's %q", prompt, want)
		}
	}
	for _, sel := range []string{".class-prompt", "[data-class-status]"} {
		if c := eval[float64](t, phone, fmt.Sprintf(`contrast(document.querySelector('%s'))`, sel)); c < 4.5 {
			t.Errorf("the student's %s has contrast %.2f:1 against its background, want at least 4.5", sel, c)
		}
	}
	shootScreen(t, phone, "screenshot-student-question.png")

	choice := eval[string](t, phone, `document.querySelector('[data-class-choice]').dataset.classChoice`)
	click(t, phone, fmt.Sprintf(`[data-class-choice="%s"]`, choice))
	waitJS(t, p, `[...document.querySelectorAll('[data-class-tally] li')].reduce((n, li) => n + Number(li.dataset.count), 0) === 1`, "1 answer in the distribution")
	click(t, p, `[data-class-action="reveal"]`)
	waitJS(t, phone, fmt.Sprintf(`%s && !document.querySelector('[data-class-verdict]').hidden`, fmt.Sprintf(stepReady, 4)), "the phone: step 4 and the verdict")
	if c := eval[float64](t, phone, `contrast(document.querySelector('[data-class-verdict]'))`); c < 4.5 {
		t.Errorf("the student's verdict has contrast %.2f:1, want at least 4.5", c)
	}
	shootScreen(t, phone, "screenshot-student-reveal.png")
}

// shootScreen writes the tab's first screen (what its viewport shows) to
// docs/name with -update-screenshot (make screenshot), once its
// animations have settled.
func shootScreen(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !*updateScreenshot {
		return
	}
	waitJS(t, ctx, `document.getAnimations().every(a => a.playState !== 'running')`, "animations")
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repoRoot(t), "docs", name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
