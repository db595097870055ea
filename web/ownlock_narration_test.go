package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"lockstep/sim"
	"lockstep/view"
)

// touchFiles are the form fields of the touch example lock
// (examples/variants/touch.variant.yaml): an extend that answers 0, read
// as LOST, once the key is no longer the caller's.
func touchFiles(t *testing.T) map[string]string {
	t.Helper()
	return lockFormFiles(t, "../examples/variants", "touch.variant.yaml", "touch/acquire.lua", "touch/release.lua", "touch/renew.lua")
}

// TestOwnLockRenewalLostRetold: lesson 16d under the touch lock comes out
// with every step's outcome as under its own lock (the watchdog), but A's
// overdue renewal at step 8 answers LOST where the watchdog's answered
// GONE, and A is told (a fresh-eyes review of issue 33). The course table
// says the row differs at step 8 by what the renewals answered, the Play
// link opens the player at step 8 with none of the lesson's narration
// (which has A, never told, write as a stale owner), and step 8 is
// narrated from the run: A's renewal finds the lock lost.
func TestOwnLockRenewalLostRetold(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{Lessons: lockCourse(t, "renewal-after-takeover")})
	resp := postLock(t, hs.URL, touchFiles(t))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("check: %d", resp.StatusCode)
	}
	page := parseDOM(t, getPage(t, hs.URL, resp.Header.Get("Location"), 200))
	en := tr(sim.English)
	r := lockRows(t, page)["renewal-after-takeover"]
	want := en.T("LockDiffersRenewal", "Step", 8, "Got", "LOST"+en.T("LockListSep")+en.T("LockBeliefEnded", "Actor", "A"), "Want", "GONE")
	if r[0] != "differs" || r[1] != want {
		t.Fatalf("lesson 16d under touch: row %q, want differs, %q", r, want)
	}
	var open string
	for _, a := range page.all(byTestID("lock-open")) {
		if href, _ := attr(a, "href"); strings.Contains(href, "lesson=renewal-after-takeover") {
			open = href
		}
	}
	r2, err := noRedirect().Get(hs.URL + open)
	if err != nil || r2.StatusCode != http.StatusSeeOther {
		t.Fatalf("open %q: %v %v", open, r2, err)
	}
	r2.Body.Close()
	u, _ := url.Parse(r2.Header.Get("Location"))
	code := u.Query().Get("t")
	tl, err := srv.decodeTimeline(code)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range tl.Lesson.Steps {
		if st.Say != nil {
			t.Errorf("step %d keeps the lesson's narration: %q", i+1, st.Say.In(sim.English))
		}
	}
	step, _ := strconv.Atoi(u.Query().Get("step"))
	if step != 8 {
		t.Errorf("the player opens at step %d, want 8 (%s)", step, u)
	}
	_, m := loadedSession(t, hs, ClientMessage{Timeline: code, Step: intp(8), Lang: "en"})
	say := parseDOM(t, m.Panels[view.PanelNarration]).text(t, "narration", byTestID("say"))
	if want := en.Msg(sim.M("narration.renew-lost", "Actor", "A")); m.Step != 8 || strings.TrimSpace(say) != want {
		t.Fatalf("step %d narrated %q, want %q", m.Step, say, want)
	}
}
