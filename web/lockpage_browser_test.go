package web

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// lockFormFields are the "Your lock" form's fields that an example fills.
var lockFormFields = []string{"variant_name", "variant", "script_name_1", "script_1", "script_name_2", "script_2", "script_name_3", "script_3", "script_name_4", "script_4"}

// brokenRedissonFiles are the form's fields for the broken copy of the
// Redisson example, read from examples/variants: its own release and the
// sound copy's acquire and renew.
func brokenRedissonFiles(t *testing.T) map[string]string {
	return lockFormFiles(t, "../examples/variants", "redisson-rlock-broken.variant.yaml",
		"redisson-rlock-broken/release.lua", "redisson-rlock/acquire.lua", "redisson-rlock/renew.lua")
}

// lockListing is what the page shows of a check's problems, measured in
// the browser.
type lockListing struct {
	Top, WinH   float64 // the problems' top in the window, the window's height
	Focused     bool    // the focus is on the problems
	Where       string  // the first problem's place, "file:line:col"
	Pitch, Font float64 // the largest distance between two lines without problems, the listing's font size
	Mark        struct {
		Line, Col     int
		Char          string
		Left, Expect  float64 // the mark's left from its line's, and (col-1) characters
		LineMarked    bool    // the line is marked as a problem's
		MarkBG, TxtBG string  // the mark's background and the plain text's
	}
}

const readLockListing = `(() => {
	const p = document.querySelector('[data-testid="lock-errors"]');
	const out = {Top: p.getBoundingClientRect().top, WinH: innerHeight, Focused: p.contains(document.activeElement),
		Where: p.querySelector('[data-testid="lock-error"] code').textContent, Pitch: 0, Mark: {}};
	const lines = [...p.querySelectorAll('.lock-lines li')];
	out.Font = parseFloat(getComputedStyle(lines[0]).fontSize);
	for (let i = 1; i < lines.length; i++) {
		if (lines[i - 1].querySelector('[data-testid="line-error"]')) continue;
		out.Pitch = Math.max(out.Pitch, lines[i].getBoundingClientRect().top - lines[i - 1].getBoundingClientRect().top);
	}
	const [, line, col] = out.Where.match(/:(\d+):(\d+)$/).map(Number);
	const li = p.querySelector('.lock-lines li[data-line="' + line + '"]');
	const mark = li && li.querySelector('.col-mark');
	const src = li && li.querySelector('.src');
	if (mark) {
		const ctx = document.createElement('canvas').getContext('2d');
		ctx.font = getComputedStyle(src).font;
		out.Mark = {Line: line, Col: Number(mark.dataset.col), Char: mark.textContent,
			Left: mark.getBoundingClientRect().left - src.getBoundingClientRect().left, Expect: (col - 1) * ctx.measureText('M').width,
			LineMarked: li.classList.contains('error') && getComputedStyle(li).boxShadow !== 'none',
			MarkBG: getComputedStyle(mark).backgroundColor, TxtBG: getComputedStyle(src).backgroundColor};
	}
	return out;
})()`

// TestBrowserLockPage is the "Your lock" page as a learner meets it
// (issue 38, item 9): each example we ship (the Redisson RLock and its
// broken copy) loads into the form in one click, exactly as the files in
// examples/variants; the format guide's link serves docs/variant-format.md
// as a page of the site;
// and a check that finds a problem lands, at 1280x800 and on a 390x844
// phone, with the problems in the window and the focus on them, listed one
// line a row (single-spaced), the problem's line marked and its column
// marked in the line where the problem names it.
func TestBrowserLockPage(t *testing.T) {
	t.Parallel()
	ctx, _, ts := courseTab(t, Config{})
	run(t, ctx, chromedp.Navigate(ts.url+"/explore/lock?lang=en"))
	waitJS(t, ctx, `!!document.querySelector('[data-testid="lock-form"]')`, "the lock form")
	form := func() map[string]string {
		raw := eval[[]byte](t, ctx, fmt.Sprintf(`Object.fromEntries(%s.map(n => [n, document.querySelector('[data-testid="lock-form"]').elements[n]?.value ?? '']))`, mustJSON(t, lockFormFields)))
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for id, want := range map[string]map[string]string{"redisson-rlock": redissonFiles(t), "redisson-rlock-broken": brokenRedissonFiles(t)} {
		if !eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('button[data-lock-example=%q]')`, id)) {
			t.Fatalf("no button loads the example %s", id)
		}
		click(t, ctx, fmt.Sprintf(`button[data-lock-example=%q]`, id))
		got := form()
		for _, name := range lockFormFields {
			if got[name] != want[name] {
				t.Errorf("example %s: field %s is %.80q, want %.80q", id, name, got[name], want[name])
			}
		}
	}
	// The format guide, served as a page of the site (review of issue 38,
	// item 7: it was the raw Markdown, text/plain): the site's header, the
	// guide's title as its heading, a section a "## " heading, its tables
	// drawn as tables, in the site's type (not a browser's plain text).
	guide, err := os.ReadFile("../docs/variant-format.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := 0
	for _, line := range strings.Split(string(guide), "\n") {
		if strings.HasPrefix(line, "## ") {
			sections++
		}
	}
	href := eval[string](t, ctx, `document.querySelector('[data-testid="lock-guide"]')?.href || ''`)
	if href == "" {
		t.Fatal("no link to the format guide")
	}
	run(t, ctx, chromedp.Navigate(href))
	waitJS(t, ctx, `document.readyState === 'complete'`, "the format guide")
	var page struct {
		Type, H1, Font string
		Header         float64
		H2, Tables     int
	}
	if err := json.Unmarshal(eval[[]byte](t, ctx, `(() => { const m = document.querySelector('main');
		return {type: document.contentType, h1: m?.querySelector('h1')?.textContent || '', font: m ? getComputedStyle(m).fontFamily : '',
			header: document.querySelector('header.site')?.getBoundingClientRect().height || 0,
			h2: m ? m.querySelectorAll('h2').length : 0, tables: m ? m.querySelectorAll('table').length : 0}; })()`), &page); err != nil {
		t.Fatal(err)
	}
	if page.Type != "text/html" || page.H1 != "Variant files (version 1)" || page.Header == 0 || page.H2 != sections || page.Tables == 0 ||
		strings.Contains(page.Font, "monospace") || page.Font == "" {
		t.Errorf("the format guide's link serves %+v; want an HTML page with the site's header, the title, %d sections and tables, in the site's type", page, sections)
	}
	// A problem: the Redisson example with an unknown reentry, checked.
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		at := fmt.Sprintf("at %dx%d", size[0], size[1])
		run(t, ctx, chromedp.EmulateViewport(size[0], size[1]), chromedp.Navigate(ts.url+"/explore/lock?lang=en"))
		waitJS(t, ctx, `!!document.querySelector('button[data-lock-example="redisson-rlock"]')`, "the lock page")
		click(t, ctx, `button[data-lock-example="redisson-rlock"]`)
		_ = eval[bool](t, ctx, `(() => { const v = document.querySelector('[data-lock-variant]'); v.value = v.value.replace('reentry: redis', 'reentry: sometimes'); return true; })()`)
		run(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lock-check"]`)))
		waitNewDocument(t, ctx, `!!document.querySelector('[data-testid="lock-errors"]') && document.readyState === 'complete'`, "the problems")
		waitJS(t, ctx, `document.querySelector('[data-testid="lock-errors"]').contains(document.activeElement)`, "the focus on the problems")
		var l lockListing
		if err := json.Unmarshal(eval[[]byte](t, ctx, readLockListing), &l); err != nil {
			t.Fatal(err)
		}
		if l.Top < -1 || l.Top > l.WinH/3 || !l.Focused {
			t.Errorf("%s: the problems start at y=%.0f of %.0f, focused %v: want them at the window's top, focused", at, l.Top, l.WinH, l.Focused)
		}
		if l.Where != "redisson-rlock.variant.yaml:12:10" {
			t.Errorf("%s: the first problem is at %q, want redisson-rlock.variant.yaml:12:10", at, l.Where)
		}
		if l.Pitch == 0 || l.Pitch > 1.6*l.Font {
			t.Errorf("%s: lines %.1f px apart at a %.1f px font, want single-spaced (at most 1.6 × the font)", at, l.Pitch, l.Font)
		}
		m := l.Mark
		if m.Line != 12 || m.Col != 10 || m.Char != "s" || !m.LineMarked || m.MarkBG == m.TxtBG || math.Abs(m.Left-m.Expect) > 1.5 {
			t.Errorf("%s: the mark: %+v, want line 12 marked and its column 10 ('s') marked at %.1f px", at, m, m.Expect)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
