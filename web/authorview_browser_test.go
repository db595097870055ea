package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
	"lockstep/view"
)

// isMono is a JS function: whether element e's text is set in a monospace
// font (code font), by its computed font family.
const isMono = `(e => /mono|courier|consolas|menlo/i.test(getComputedStyle(e).fontFamily))`

// TestBrowserAuthorWords: what is the author's is not shown to learners
// (issue 38, item 10). A step's check against the lesson file ("✓ as the
// lesson expects: …") is in no learner's view, and is in the author view
// (?author=1); a broken invariant is named by its title in the reader's
// language, not its id in code font, the id kept in a tooltip; and the
// Search page names the invariants so in its choices and in its results.
func TestBrowserAuthorWords(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	en := tr(sim.English)
	title := func(id string) string {
		if m := view.InvariantTitleID(id); m != "" {
			return en.T(m)
		}
		return id
	}
	// A step with a broken invariant.
	var l *sim.Lesson
	var step int
	var inv string
	for _, c := range all {
		for _, f := range expectedFrames(t, c) {
			if len(f.Violations) > 0 && f.Check != nil {
				l, step, inv = c, f.Index, f.Violations[0].Name
				break
			}
		}
		if l != nil {
			break
		}
	}
	if l == nil {
		t.Fatal("no lesson step breaks an invariant")
	}
	checkShown := `(() => { const c = document.querySelector('[data-panel="narration"] [data-testid="check"]');
		return c ? (c.checkVisibility() ? 'shown' : 'hidden') : 'absent'; })()`
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		at := fmt.Sprintf("at %dx%d", size[0], size[1])
		run(t, ctx, chromedp.EmulateViewport(size[0], size[1]))
		openStep(t, ctx, ts, l.ID, step, sim.English)
		if got := eval[string](t, ctx, checkShown); got != "hidden" {
			t.Errorf("%s: a learner's step %d of %s: the lesson's check is %s, want in the page and hidden", at, step, l.ID, got)
		}
		raw := eval[[]byte](t, ctx, fmt.Sprintf(`(() => { const li = document.querySelector('[data-testid="violations"] [data-violation=%q]');
			if (!li) return null;
			const mono = [...li.querySelectorAll('*')].filter(e => e.checkVisibility() && e.textContent.trim() === %q && %s(e)).length;
			return {text: li.innerText, mono, tip: [...li.querySelectorAll('[title]')].map(e => e.title)}; })()`, inv, inv, isMono))
		var v struct {
			Text string
			Mono int
			Tip  []string
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		want := title(inv)
		if want == inv || !strings.Contains(v.Text, want) || v.Mono > 0 || strings.Join(v.Tip, " ") != inv {
			t.Errorf("%s: %s step %d names %s as %+v, want its title %q, no id in code font, the id in a tooltip", at, l.ID, step, inv, v, want)
		}
	}
	// The author view shows the check.
	run(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.url+lessonURL(l.ID, step, sim.English, false)+"&author=1"))
	waitStep(t, ctx, step)
	if got := eval[string](t, ctx, checkShown); got != "shown" {
		t.Errorf("the author view: the lesson's check is %s, want shown", got)
	}
	// The Search page: the invariants by title, the ids in tooltips, in the
	// form (every search invariant) and in the results (those the course's
	// search file asks for: the default five).
	run(t, ctx, chromedp.Navigate(ts.url+"/search?variant=instance-owner&depth=3&moves=acquire,release&expiry=0&lang=en"))
	waitJS(t, ctx, `(() => { const s = document.getElementById('search'); return s && s.dataset.conn === 'open'; })()`, "the search page's socket")
	type named struct{ ID, Text, Tip string }
	read := func(js string) []named {
		var out []named
		if err := json.Unmarshal(eval[[]byte](t, ctx, js), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	checkNames := func(where string, got []named, want int) {
		t.Helper()
		if len(got) != want {
			t.Errorf("%s: %d invariants, want %d", where, len(got), want)
		}
		for _, n := range got {
			if want := title(n.ID); n.Text != want || n.Text == n.ID || n.Tip != n.ID {
				t.Errorf("%s: invariant %s shown as %q (tooltip %q), want %q with its id in the tooltip", where, n.ID, n.Text, n.Tip, want)
			}
		}
	}
	checkNames("the search form", read(fmt.Sprintf(`[...document.querySelectorAll('input[name="invariant"]')].map(i => { const l = i.closest('label');
		const s = [...l.querySelectorAll('*')].find(e => e.textContent.trim() && !e.matches('input'));
		return {ID: i.value, Text: l.innerText.trim(), Tip: s ? s.title : '', mono: %s(l)}; })`, isMono)), len(sim.SearchInvariants))
	click(t, ctx, "[data-search-start]")
	waitJS(t, ctx, `document.getElementById('search').dataset.state === 'done'`, "the search's result")
	checkNames("the search results", read(`[...document.querySelectorAll('[data-search-results] tbody tr')].map(r => ({ID: r.dataset.invariant, Text: r.cells[0].innerText.trim(), Tip: r.cells[0].title}))`), len(sim.DefaultSearchInvariants))
}
