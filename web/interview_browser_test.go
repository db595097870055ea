package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/drill"
	"lockstep/sim"
	"lockstep/view"
)

// shot writes a full-page screenshot to $LOCKSTEP_SHOTS/name.png when that
// variable names a directory, for people to look at.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LOCKSTEP_SHOTS")
	if dir == "" {
		return
	}
	waitJS(t, ctx, `document.getAnimations().every(a => a.playState !== 'running')`, "animations")
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitBar waits until the predict bar is in state ("ask", "right", "wrong"
// or "note").
func waitBar(t *testing.T, ctx context.Context, state string) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(`(() => { const b = document.querySelector('[data-predict-bar]'); return b && !b.hidden && b.dataset.state === '%s'; })()`, state), "predict bar "+state)
}

func barText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `document.querySelector('[data-predict-bar]').innerText`)
}

// wrongChoice is an outcome the buttons of step n offer that the run does
// not give.
func wrongChoice(t *testing.T, l *sim.Lesson, frames []sim.Frame, n int) sim.Outcome {
	t.Helper()
	for _, o := range view.PredictOutcomes(l, l.Steps[n-1]) {
		if o != frames[n].Outcome {
			return o
		}
	}
	t.Fatalf("%s step %d offers no wrong outcome", l.ID, n)
	return ""
}

// TestBrowserPredictWrongThenRight predicts in the player: a wrong outcome
// first (the bar says so and names the outcome of the real run, which the
// Narration shows too), then a right one; the score is kept, shown in the
// player and on the course page, and "retry my misses" asks again for the
// missed step only.
func TestBrowserPredictWrongThenRight(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	l := lessonByID(t, all, "missed-release")
	frames := expectedFrames(t, l)
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, 0, sim.English, false)+"&predict=1"))
	waitStep(t, ctx, 0)
	if eval[string](t, ctx, `document.getElementById('btn-predict').getAttribute('aria-pressed')`) != "true" {
		t.Fatal("predict=1 did not turn predict mode on")
	}
	// Step 1 (an acquire) is asked for before it runs.
	click(t, ctx, "#btn-step")
	waitBar(t, ctx, "ask")
	if step := eval[string](t, ctx, `document.getElementById('player').dataset.step`); step != "0" {
		t.Fatalf("the step ran before the prediction: page at step %s", step)
	}
	offered := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-choice]')].map(b => b.dataset.choice)`)
	var want []string
	for _, o := range view.PredictOutcomes(l, l.Steps[0]) {
		want = append(want, string(o))
	}
	if !slices.Equal(offered, want) {
		t.Fatalf("buttons offer %v, want %v", offered, want)
	}
	wrong := wrongChoice(t, l, frames, 1)
	shot(t, ctx, "predict-ask")
	click(t, ctx, fmt.Sprintf(`[data-choice="%s"]`, wrong))
	waitStep(t, ctx, 1)
	waitBar(t, ctx, "wrong")
	got := string(frames[1].Outcome)
	if txt := barText(t, ctx); !strings.Contains(txt, string(wrong)) || !strings.Contains(txt, got) {
		t.Fatalf("wrong verdict %q does not name the guess %s and the outcome %s", txt, wrong, got)
	}
	if s := readPage(t, ctx); s.Outcome != got {
		t.Fatalf("narration shows outcome %s, the run gave %s", s.Outcome, got)
	}
	shot(t, ctx, "predict-wrong")
	// Step 2 advances the clock: nothing to predict, so it just runs.
	if l.Steps[1].Do != sim.ActAdvance {
		t.Fatalf("missed-release step 2 is %s, the test expects advance", l.Steps[1].Do)
	}
	click(t, ctx, "#btn-step")
	waitStep(t, ctx, 2)
	// Step 3 (the nested acquire): predicted right, with the keyboard.
	click(t, ctx, "#btn-step")
	waitBar(t, ctx, "ask")
	right := frames[3].Outcome
	idx := slices.Index(view.PredictOutcomes(l, l.Steps[2]), right)
	if idx < 0 {
		t.Fatalf("step 3's outcome %s is not offered", right)
	}
	press(t, ctx, fmt.Sprint(idx+1))
	waitStep(t, ctx, 3)
	waitBar(t, ctx, "right")
	if txt := barText(t, ctx); !strings.Contains(txt, string(right)) {
		t.Fatalf("right verdict %q does not name %s", txt, right)
	}
	if s := readPage(t, ctx); s.Outcome != string(right) {
		t.Fatalf("narration shows outcome %s, the run gave %s", s.Outcome, right)
	}
	if score := eval[string](t, ctx, `document.getElementById('predict-score').textContent`); score != "Predictions: 1 of 2 right" {
		t.Fatalf("player score %q", score)
	}
	shot(t, ctx, "predict-right")
	// Play is off while predicting.
	press(t, ctx, " ")
	waitBar(t, ctx, "note")
	if eval[string](t, ctx, `document.getElementById('player').dataset.playing`) != "false" {
		t.Fatal("play started in predict mode")
	}
	// The course page shows the score and offers the retry.
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=en"))
	card := fmt.Sprintf(`.lesson-card[data-lesson="%s"]`, l.ID)
	waitJS(t, ctx, fmt.Sprintf(`!document.querySelector('%s [data-predict-score]').hidden`, card), "the score on the course page")
	if s := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-score-text]').textContent`, card)); s != "Predictions: 1 of 2 right" {
		t.Fatalf("course score %q", s)
	}
	shot(t, ctx, "course-score")
	// Retry my misses: only step 1 is asked again.
	retry := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-retry-link]').href`, card))
	if !strings.Contains(retry, "/lessons/"+l.ID+"?") || !strings.Contains(retry, "predict=1") || !strings.Contains(retry, "retry=1") {
		t.Fatalf("retry link %s", retry)
	}
	run(t, ctx, chromedp.Navigate(retry))
	waitBar(t, ctx, "ask")
	waitStep(t, ctx, 0)
	if txt := barText(t, ctx); !strings.Contains(txt, "Step 1:") || !strings.Contains(txt, "1 of 1") {
		t.Fatalf("retry asks %q", txt)
	}
	click(t, ctx, fmt.Sprintf(`[data-choice="%s"]`, frames[1].Outcome))
	waitStep(t, ctx, 1)
	waitBar(t, ctx, "right")
	if txt := barText(t, ctx); !strings.Contains(txt, "last miss") {
		t.Fatalf("retry end %q", txt)
	}
	if score := eval[string](t, ctx, `document.getElementById('predict-score').textContent`); score != "Predictions: 2 of 2 right" {
		t.Fatalf("score after the retry %q", score)
	}
}

// TestBrowserDrillPredict opens a drill by level and seed, and predicts its
// first step right in every language: the page is the player, in predict
// mode, and the revealed outcome is the drill's.
func TestBrowserDrillPredict(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	ts := startServer(t, Config{}, "127.0.0.1:0")
	l, err := drill.Generate(t.Context(), tr(sim.English).cat, "leases", 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range sim.Locales {
		run(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/drills?level=leases&seed=42&lang=%s", ts.url, loc)))
		waitStep(t, ctx, 0)
		if path := eval[string](t, ctx, `location.pathname + '|' + new URL(location.href).searchParams.get('predict')`); path != "/lessons/"+l.ID+"|1" {
			t.Fatalf("drill opened at %s", path)
		}
		if title := eval[string](t, ctx, `document.getElementById('lesson-title').textContent`); title != l.Title.In(loc) {
			t.Fatalf("%s: title %q, want %q", loc, title, l.Title.In(loc))
		}
		click(t, ctx, "#btn-step")
		waitBar(t, ctx, "ask")
		click(t, ctx, fmt.Sprintf(`[data-choice="%s"]`, l.Steps[0].Expect))
		waitStep(t, ctx, 1)
		waitBar(t, ctx, "right")
		if s := readPage(t, ctx); s.Say != strings.TrimSpace(l.Steps[0].Say.In(loc)) {
			t.Fatalf("%s: narration %q, want %q", loc, s.Say, l.Steps[0].Say.In(loc))
		}
		if loc == sim.SimplifiedChinese {
			shot(t, ctx, "drill-zh-CN")
		}
	}
	run(t, ctx, chromedp.Navigate(ts.url+"/drills?lang=en"))
	waitJS(t, ctx, `document.querySelectorAll('.level-card').length === `+fmt.Sprint(len(drill.Levels)), "the drill levels")
	shot(t, ctx, "drills")
}

// TestBrowserInterviewPages writes an answer (kept across a reload), opens
// the model answer beside its timeline, and runs the 60-second timer, in
// every language.
func TestBrowserInterviewPages(t *testing.T) {
	t.Parallel()
	ctx, ts := tabAt(t, Config{}, "/interview?lang=en")
	waitJS(t, ctx, `document.querySelectorAll('[data-question]').length === 3 && 'ready' in document.getElementById('interview').dataset`, "three questions, the page's script ready")
	if !eval[bool](t, ctx, `document.getElementById('q2-model').hidden`) {
		t.Fatal("the model answer is open before the learner answers")
	}
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#q2-answer"), "Every request in the instance passes as the owner."))
	waitJS(t, ctx, `document.querySelector('[data-saved="q2"]').textContent !== ''`, "the answer saved")
	run(t, ctx, chromedp.Reload())
	waitJS(t, ctx, `document.getElementById('q2-answer').value === 'Every request in the instance passes as the owner.' && 'ready' in document.getElementById('interview').dataset`, "the answer kept across a reload, the page's script ready")
	click(t, ctx, `[data-reveal="q2"]`)
	waitJS(t, ctx, `!document.getElementById('q2-model').hidden && !document.querySelector('[data-demo="q2"]').hidden`, "the model answer and its timeline")
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-demo="q2"] .tl svg').length`); n == 0 {
		t.Fatal("no timeline beside the model answer")
	}
	if href := eval[string](t, ctx, `document.querySelector('[data-demo="q2"] a').getAttribute('href')`); !strings.HasPrefix(href, "/lessons/instance-owner") {
		t.Fatalf("question 2 links to %s", href)
	}
	shot(t, ctx, "interview-en")
	for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese} {
		run(t, ctx, chromedp.Navigate(ts.url+"/interview?lang="+string(loc)))
		waitJS(t, ctx, `document.querySelectorAll('[data-question]').length === 3`, "three questions")
		click(t, ctx, `[data-reveal="q3"]`)
		waitJS(t, ctx, `!document.getElementById('q3-model').hidden`, "the model answer")
		if loc == sim.SimplifiedChinese {
			shot(t, ctx, "interview-zh-CN")
		}
	}
	for _, loc := range sim.Locales {
		run(t, ctx, chromedp.Navigate(ts.url+"/interview/60s?lang="+string(loc)))
		waitJS(t, ctx, `!!document.querySelector('[data-testid="diagram"] svg') && document.querySelectorAll('.self-tests a').length === 2`, "diagram and self-tests")
		if c := eval[string](t, ctx, `document.querySelector('[data-timer-count]').textContent`); c != "60" {
			t.Fatalf("timer starts at %q", c)
		}
		click(t, ctx, "[data-timer-toggle]")
		waitJS(t, ctx, `document.querySelector('[data-timer]').dataset.running === 'true'`, "the timer running")
		waitJS(t, ctx, `document.querySelector('[data-timer-count]').textContent !== '60'`, "the timer counting down")
		click(t, ctx, "[data-timer-toggle]")
		waitJS(t, ctx, `document.querySelector('[data-timer]').dataset.running === 'false'`, "the timer stopped")
		click(t, ctx, "[data-timer-reset]")
		waitJS(t, ctx, `document.querySelector('[data-timer-count]').textContent === '60'`, "the timer reset")
		shot(t, ctx, "sixty-"+string(loc))
	}
}

// TestBrowserPredictWhy answers a "why" question in predict mode (issue 16
// section 4): after the outcome's verdict the bar asks for the reason, a
// wrong reason is answered with the right one, and the step's misconception
// callout shows under its narration.
func TestBrowserPredictWhy(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	all := testLessons(t)
	l := lessonByID(t, all, "nested-shortens-lease")
	n := slices.IndexFunc(l.Steps, func(s sim.Step) bool { return s.Why != nil }) + 1
	if n == 0 {
		t.Fatal("nested-shortens-lease asks no why question")
	}
	frames := expectedFrames(t, l)
	ts := startServer(t, Config{Lessons: all}, "127.0.0.1:0")
	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(l.ID, n-1, sim.English, false)+"&predict=1"))
	waitStep(t, ctx, n-1)
	click(t, ctx, "#btn-step")
	waitBar(t, ctx, "ask")
	click(t, ctx, fmt.Sprintf(`[data-choice="%s"]`, frames[n].Outcome))
	waitStep(t, ctx, n)
	waitBar(t, ctx, "right")
	waitJS(t, ctx, `document.querySelectorAll('[data-why-choice]').length > 1`, "the why question's reasons")
	if q := eval[string](t, ctx, `document.querySelector('.predict-why-q').textContent`); q != l.Steps[n-1].Why.In(sim.English) {
		t.Fatalf("why question %q", q)
	}
	reasons := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-why-choice]')].map(b => b.textContent)`)
	rightReason := l.Steps[n-1].Because[0].In(sim.English)
	wrong := slices.IndexFunc(reasons, func(r string) bool { return r != rightReason })
	if len(reasons) != len(l.Steps[n-1].Because) || !slices.Contains(reasons, rightReason) || wrong < 0 {
		t.Fatalf("reasons offered %q", reasons)
	}
	click(t, ctx, fmt.Sprintf(`[data-why-choice="%d"]`, wrong))
	waitJS(t, ctx, `!!document.querySelector('.predict-why-verdict.wrong')`, "the why verdict")
	if v := eval[string](t, ctx, `document.querySelector('.predict-why-verdict').textContent`); !strings.Contains(v, rightReason) {
		t.Fatalf("why verdict %q does not name the right reason", v)
	}
	if eval[int](t, ctx, `[...document.querySelectorAll('[data-why-choice]')].filter(b => !b.disabled).length`) != 0 {
		t.Fatal("the reasons stay open after the answer")
	}
	if m := eval[string](t, ctx, `document.querySelector('[data-testid=misconception]')?.textContent || ''`); !strings.Contains(m, strings.TrimSpace(l.Steps[n-1].Misconception.In(sim.English))) {
		t.Fatalf("misconception callout %q", m)
	}
	shot(t, ctx, "predict-why")
}
