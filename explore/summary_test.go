package explore

import (
	"strings"
	"testing"

	"lockstep/internal/catalogtest"
	"lockstep/sim"
)

// TestForkSummaryCountsSteps: a fork's summary says how many steps it
// added, in every language, and a fork that added none says so.
func TestForkSummaryCountsSteps(t *testing.T) {
	t.Parallel()
	c := catalogtest.New(t)
	base := &sim.Lesson{ID: "stale-owner", Title: sim.Text{sim.English: "Stale owner", sim.SimplifiedChinese: "过期持有者", sim.TraditionalChinese: "過期持有者"}}
	for _, c2 := range []struct {
		at, steps int
		want      map[sim.Locale]string
	}{
		{4, 8, map[sim.Locale]string{sim.English: "then 4 steps of your own", sim.SimplifiedChinese: "自选了 4 步", sim.TraditionalChinese: "自選了 4 步"}},
		{4, 5, map[sim.Locale]string{sim.English: "then one step of your own", sim.SimplifiedChinese: "自选了 1 步", sim.TraditionalChinese: "自選了 1 步"}},
		{4, 4, map[sim.Locale]string{sim.English: "continue it your way", sim.SimplifiedChinese: "按你的想法继续", sim.TraditionalChinese: "照你的想法繼續"}},
	} {
		m := ForkSummary(base, c2.at, c2.steps)
		for l, want := range c2.want {
			got := c.Render(l, m)
			if !strings.Contains(got, want) || strings.Contains(got, "{{") || strings.Contains(got, "another turn") {
				t.Errorf("fork after %d with %d steps, %s: %q, want it to say %q", c2.at, c2.steps, l, got, want)
			}
		}
	}
}
