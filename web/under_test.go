package web

import (
	"net/url"
	"strings"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// TestCompareColumnRetold checks issue 19 item 6 as a new user meets it:
// Compare's hash-refresh column of lesson 12 opens a timeline whose title
// says which variant runs, whose crumb says what it is, and whose steps
// are all narrated from the run and marked so, since step 6 differs
// (steps 1-5 without the lesson's grant token, which hash-refresh has not;
// step 6 ACQUIRED, not "the script answers LOST"; step 8 under the
// overlapping-holders banner, not "nobody else believes they hold it").
func TestCompareColumnRetold(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	page := parseDOM(t, getPage(t, hs.URL, "/explore/compare?lesson=nested-after-expiry-lost&a=token-count&b=hash-refresh&lang=en", 200))
	var bURL string
	for _, a := range page.all(tag("a")) {
		if textOf(a) == "hash-refresh" {
			bURL, _ = attr(a, "href")
		}
	}
	u, err := url.Parse(bURL)
	if err != nil || u.Query().Get("t") == "" {
		t.Fatalf("the hash-refresh column links to %q", bURL)
	}
	tl, err := srv.decodeTimeline(u.Query().Get("t"))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Kind != explore.KindUnder || tl.Lesson.Variant != "hash-refresh" {
		t.Fatalf("the column opens a %s under %s", tl.Kind, tl.Lesson.Variant)
	}
	en := tr(sim.English)
	h := srv.header(en, tl, u.Query().Get("t"), 0, false)
	if !strings.Contains(h.Title, "hash-refresh") || h.Crumb != en.Explore().UnderCrumb {
		t.Fatalf("title %q, crumb %q: want the variant named and the compare crumb", h.Title, h.Crumb)
	}
	frames, err := srv.runFrames(t.Context(), tl.Lesson)
	if err != nil {
		t.Fatal(err)
	}
	step := func(i int) (view.Step, sim.Frame) {
		return *view.New(view.Input{Texts: en, Lesson: tl.Lesson, Frames: frames, Cur: i}), frames[i]
	}
	for i := 1; i <= 5; i++ {
		if n := func() templates.NarrationView { v, _ := step(i); return v.Narration() }(); !n.Generated || strings.Contains(n.Say, "grant token") || n.Misconception != "" {
			t.Errorf("step %d: %q (generated %v, callout %q): want the run's narration, no grant token", i, n.Say, n.Generated, n.Misconception)
		}
	}
	v6, f6 := step(6)
	if n := v6.Narration(); f6.Outcome != sim.Acquired || !n.Generated || strings.Contains(n.Say, "LOST") {
		t.Errorf("step 6: %s under %q (generated %v)", f6.Outcome, n.Say, n.Generated)
	}
	v7, _ := step(7)
	if n := v7.Narration(); !n.Generated || strings.Contains(n.Say, "NOT_OWNER") {
		t.Errorf("step 7: %q (generated %v)", n.Say, n.Generated)
	}
	v8, f8 := step(8)
	n8 := v8.Narration()
	overlap := false
	for _, a := range v8.Alerts().Violations {
		overlap = overlap || a.Name == "overlapping-holders"
	}
	if !overlap || !n8.Generated || strings.Contains(n8.Say, "nobody else") {
		t.Errorf("step 8 (%s, overlap %v): %q (generated %v)", f8.Outcome, overlap, n8.Say, n8.Generated)
	}
	if last, _ := step(len(frames) - 1); last.Narration().Takeaway != "" {
		t.Error("the lesson's takeaway is shown under a run that left the lesson")
	}
	// The token-count column is the lesson as written: its own page.
	for _, a := range page.all(tag("a")) {
		if textOf(a) == "token-count" {
			if href, _ := attr(a, "href"); !strings.HasPrefix(href, "/lessons/nested-after-expiry-lost?") {
				t.Errorf("the lesson's own variant's column links to %q", href)
			}
		}
	}
}

// TestCompareDefaultsNeverSelf checks that Compare opened without a or b
// runs two different variants.
func TestCompareDefaultsNeverSelf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ own, a, b string }{
		{"token-count", "", ""}, {"hash-refresh", "", ""}, {"token-count", "", "token-count"},
		{"hash-refresh", "", "hash-refresh"}, {"token-count", "token-count", ""}, {"setnx-del", "", ""},
	} {
		a, b := compareDefaults(c.own, c.a, c.b)
		if a == b || (c.a != "" && a != c.a) || (c.b != "" && b != c.b) {
			t.Errorf("compareDefaults(%q, %q, %q) = %q, %q", c.own, c.a, c.b, a, b)
		}
	}
}
