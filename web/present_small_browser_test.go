package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// smallProjectors are the presenter screens smaller than 1024 x 768 (a
// fresh review of issue 38): a 1080p projector at 200% zoom, 1280 x 800
// at 150%, and two small projectors' own sizes.
var smallProjectors = []struct{ w, h int64 }{{960, 540}, {853, 533}, {900, 700}, {800, 600}}

// TestBrowserPresenterSmallScreen opens a few lessons (one actor's lanes,
// stale-owner, a long script, the most keys, independent nodes) in
// presenter mode at each of smallProjectors, at presenterStep's step: the
// page does not scroll and every panel is on the screen (checkFit), the
// lanes' card and drawing take at least 35% of the screen's height and
// begin on it, their text at least 11 px and every lane's name in the card
// (a fresh review: the page scrolled to 2,230 px, the lanes at y 1,550;
// the nodes' eight lanes, taller than a board under 700 px, scroll in
// their card),
// the narration's card is on the screen at least 3.5 lines of its 14 px
// text tall, nothing is cut where it cannot be scrolled to and a card that
// holds more than it shows has its cue, and no card overlaps another.
func TestBrowserPresenterSmallScreen(t *testing.T) {
	t.Parallel()
	ts, course := courseServer(t)
	ctx := newStillTab(t)
	ids := []string{"nested-reentry", "stale-owner", "long-script-blocks", "idempotent-unlock", "redlock-node-clock-jump"}
	for _, id := range ids {
		var l *sim.Lesson
		for _, c := range course {
			if c.ID == id {
				l = c
			}
		}
		if l == nil {
			t.Fatalf("lesson %s is not in the course", id)
		}
		step, wantBanners, _ := presenterStep(t, l)
		for _, s := range smallProjectors {
			at := fmt.Sprintf("%s step %d %dx%d", id, step, s.w, s.h)
			run(t, ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(ts.url+lessonURL(l.ID, step, sim.English, true)))
			waitStep(t, ctx, step)
			waitJS(t, ctx, currentColumnInView, at+": the column in view")
			fit := readFit(t, ctx)
			checkFit(t, at, fit)
			var f presenterRead
			if err := json.Unmarshal(evalAwait[[]byte](t, ctx, measurePresenterRead), &f); err != nil {
				t.Fatal(err)
			}
			if f.CardH < 0.35*f.ViewH || f.LanesH < 0.35*f.ViewH {
				t.Errorf("%s: the timeline's card is %.0f px and its lanes %.0f px of a %.0f px screen, want both at least 35%%", at, f.CardH, f.LanesH, f.ViewH)
			}
			// the nodes' lanes (eight, 534 px drawn) are taller than the
			// board under 700 px: their card scrolls up and down, its
			// lanes at the left at the board's full height
			tallNodes := f.NodeKeys && s.h < 700
			if tallNodes {
				t.Logf("%s: the nodes' lanes scroll in their card (%.0f px of a %.0f px screen)", at, f.CardH, f.ViewH)
			} else if f.Texts < 10 || f.MinText < 11 {
				t.Errorf("%s: the lanes' smallest text (%s) is drawn %.1f px tall (%d texts), want at least 11", at, f.Smallest, f.MinText, f.Texts)
			}
			if len(f.LanesOut) > 0 && !tallNodes {
				t.Errorf("%s: lanes %q are not on the screen in the timeline's card", at, f.LanesOut)
			}
			if wantBanners >= 0 && f.Banners != wantBanners {
				t.Errorf("%s: %d banners shown, the frames have %d", at, f.Banners, wantBanners)
			}
			if f.NarrPx < 14 {
				t.Errorf("%s: the narration's smallest text is %.1f px, want at least 14", at, f.NarrPx)
			}
			if n := fit.Panels["narration"]; n.Bottom > f.ViewH+0.5 || n.Bottom-n.Top < 3.5*14*1.3 {
				t.Errorf("%s: the narration's card is at %+v on a %.0f px screen, want it on the screen and at least %.0f px tall", at, n, f.ViewH, 3.5*14*1.3)
			}
			for _, c := range f.Cut {
				t.Errorf("%s: cut: %s", at, c)
			}
			for _, o := range f.Overlaps {
				t.Errorf("%s: overlap: %s", at, o)
			}
			t.Logf("%s: lanes %.0f px (%.0f%%), smallest lane text %.1f px; narration card %.0f px, %.0f px of it to scroll", at, f.LanesH, 100*f.LanesH/f.ViewH, f.MinText, fit.Panels["narration"].Bottom-fit.Panels["narration"].Top, f.Hidden["narration"])
		}
	}
}
