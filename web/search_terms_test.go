package web

import (
	"strings"
	"testing"
	"time"

	"lockstep/search"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/view"
)

// TestAdvanceOneTerm: in each Chinese locale the advance action has one
// name, the step's heading, the What-if menu's button and the Search page's
// results all starting with it; and a search result gives the advance's
// duration in the reader's language (31 秒, not Go's 31s).
func TestAdvanceOneTerm(t *testing.T) {
	t.Parallel()
	cx := &search.Counterexample{Lesson: &sim.Lesson{Steps: []sim.Step{
		{Actor: "A", Do: sim.ActAcquire}, {Do: sim.ActAdvance, By: 31 * time.Second},
	}}}
	for _, loc := range sim.Locales {
		tt := tr(loc)
		parts := strings.Split(searchpage.Timeline(tt, cx), " → ")
		by := view.Seconds(tt, 31000)
		if len(parts) != 2 || parts[0] != "A "+view.ActionName(tt, sim.ActAcquire) || parts[1] != tt.T("ChoiceAdvance", "By", by) {
			t.Errorf("%s: search timeline %q, want the advance as %q", loc, parts, tt.T("ChoiceAdvance", "By", by))
		}
		if loc == sim.English {
			continue
		}
		name := view.ActionName(tt, sim.ActAdvance)
		for _, s := range []string{tt.T("HeadAdvance", "By", by), tt.T("ChoiceAdvance", "By", by), tt.T("AdvanceApply"), parts[1]} {
			if !strings.HasPrefix(s, name) {
				t.Errorf("%s: %q does not name the advance %q", loc, s, name)
			}
		}
	}
}
