package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/sim"
)

// deskBig is what measureDeskBig finds of the desk's lanes on a big
// screen: laneFit's figures, and the blank (px) in the lanes' column
// between the lanes' card's bottom and the bottom of the cards beside it
// (the narration, the keys, the diagram and the command) or the screen's,
// whichever is higher.
type deskBig struct {
	laneFit
	CardBottom float64 `json:"cardBottom"`
	Blank      float64 `json:"blank"`
}

// measureDeskBig measures deskBig in the page.
const measureDeskBig = `(() => {
	const lanes = ` + measureLanes + `;
	const card = document.getElementById('panel-timeline').getBoundingClientRect();
	let right = 0;
	for (const id of ['panel-narration', 'panel-redis', 'panel-diagram', 'panel-command']) {
		const el = document.getElementById(id);
		if (el && getComputedStyle(el).display !== 'none') right = Math.max(right, el.getBoundingClientRect().bottom);
	}
	const blank = Math.max(0, Math.min(right, innerHeight) - card.bottom);
	return {...lanes, cardBottom: card.bottom, blank};
})()`

// TestBrowserDeskBigScreen opens stale-owner step 7 (two banners up) on a
// desk at 1920 x 1080 and 2560 x 1440: the lanes grow with the screen (a
// fresh review of issue 38: at 1920 x 1080 their card was 409 px with
// about 600 px blank under it in their column, their text down to 10 px;
// at 2560 x 1440 they took 28% of the height): every lane text in view is
// drawn at least 12 px, the lanes' drawing takes at least 40% of the
// screen's height, their card ends on the first screen, the blank under
// it in its column is at most 35% of the screen's height, and the current
// step's column is in the lanes' view. Five lanes (nested-reentry) and the
// nodes' eight (redlock-node-clock-jump) keep the text floor, the current
// column in view and their card on the first screen.
func TestBrowserDeskBigScreen(t *testing.T) {
	t.Parallel()
	ctx, _, ts := stalePlayer(t)
	for _, s := range []struct {
		w, h int64
		id   string
		step int
	}{{1920, 1080, "stale-owner", 7}, {2560, 1440, "stale-owner", 7}, {1920, 1080, "nested-reentry", 10}, {1920, 1080, "redlock-node-clock-jump", 6}, {2560, 1440, "redlock-node-clock-jump", 6}} {
		where := fmt.Sprintf("%s %dx%d step %d", s.id, s.w, s.h, s.step)
		run(t, ctx, chromedp.EmulateViewport(s.w, s.h))
		openStep(t, ctx, ts, s.id, s.step, sim.English)
		waitJS(t, ctx, currentColumnInView, where+": the column in view")
		var f deskBig
		if err := json.Unmarshal(eval[[]byte](t, ctx, measureDeskBig), &f); err != nil {
			t.Fatal(err)
		}
		if f.Texts < 10 || f.MinText < 12 {
			t.Errorf("%s: the lanes' smallest text (%s) is drawn %.1f px (%d texts), want at least 12", where, f.Smallest, f.MinText, f.Texts)
		}
		if s.id == "stale-owner" && f.LanesH < 0.4*f.ViewH {
			t.Errorf("%s: the lanes are %.0f px of a %.0f px screen (%.0f%%), want at least 40%%", where, f.LanesH, f.ViewH, 100*f.LanesH/f.ViewH)
		}
		if f.CardBottom > f.ViewH+0.5 {
			t.Errorf("%s: the lanes' card ends at y %.0f, under the %.0f px screen", where, f.CardBottom, f.ViewH)
		}
		if s.id == "stale-owner" && f.Blank > 0.35*f.ViewH {
			t.Errorf("%s: %.0f px blank under the lanes' card in its column, want at most 35%% of %.0f", where, f.Blank, f.ViewH)
		}
		t.Logf("%s: lanes %.0f px (%.0f%%), card %.0f px, smallest lane text %.1f px, %.0f px blank under the card", where, f.LanesH, 100*f.LanesH/f.ViewH, f.CardH, f.MinText, f.Blank)
	}
}
