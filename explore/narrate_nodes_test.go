package explore_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// TestNarrateNodes forks the Redlock lesson after node 2's restart (step 3)
// and adds B's acquire, a restart of node 1 and B's acquire with node 1
// unreachable: each is narrated per node (who granted, who refused, who
// could not be reached, whether that is a majority), the restart names its
// node, and no rendering falls back to one Redis's words or a PTTL.
func TestNarrateNodes(t *testing.T) {
	t.Parallel()
	c, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	type part struct {
		id    string
		nodes sim.List
	}
	type narrated struct {
		id                            string
		granted, refused, unreachable part
		verdict                       string
	}
	// forked runs the lesson's first three steps and then added, and
	// returns the lesson and its frames.
	forked := func(added ...sim.Step) (*sim.Lesson, []sim.Frame) {
		l, err := sim.LoadFile("../lessons/20b-redlock-restart.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for i := range added {
			if added[i].Do == sim.ActRestart {
				r := l.Steps[2]
				r.Node = added[i].Node
				added[i] = r
			} else {
				added[i].Lock = l.Steps[0].Lock
			}
		}
		l.Steps = append(l.Steps[:3:3], added...)
		frames, err := sim.RunFrames(context.Background(), l, refmodel.Open)
		if err != nil {
			t.Fatal(err)
		}
		return l, frames
	}
	check := func(l *sim.Lesson, frames []sim.Frame, want []narrated) {
		for i, w := range want {
			n := 3 + i
			m := explore.Narrate(l, &l.Steps[n], frames[n], frames[n+1])
			if m.ID != w.id {
				t.Fatalf("added step %d: narrated as %s, want %s", i+1, m.ID, w.id)
			}
			if w.id == "narration.restart" {
				if m.Args["Node"] != 1 {
					t.Errorf("restart narrated for node %v, want 1", m.Args["Node"])
				}
			} else {
				for name, p := range map[string]part{"Granted": w.granted, "Refused": w.refused, "Unreachable": w.unreachable} {
					got, _ := m.Args[name].(sim.Msg)
					if got.ID != p.id || (p.id != "" && !slices.Equal(got.Args["Nodes"].(sim.List), p.nodes)) {
						t.Errorf("added step %d: %s is %+v, want %s of nodes %v", i+1, name, m.Args[name], p.id, p.nodes)
					}
				}
				if v, _ := m.Args["Verdict"].(sim.Msg); v.ID != w.verdict {
					t.Errorf("added step %d: verdict %s, want %s", i+1, v.ID, w.verdict)
				}
			}
			for _, loc := range []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese} {
				s := c.Render(loc, m)
				t.Logf("added step %d in %s: %s", i+1, loc, s)
				if strings.Contains(s, catalog.Missing) || strings.HasPrefix(s, " ") || strings.Contains(s, "-2") {
					t.Errorf("added step %d in %s: %q", i+1, loc, s)
				}
			}
		}
	}
	l, frames := forked(sim.Step{Actor: "B", Do: sim.ActAcquire})
	check(l, frames, []narrated{
		{id: "narration.nodes-acquire", granted: part{"narration.nodes-ok-many", sim.List{"2", "3"}}, refused: part{"narration.nodes-busy-one", sim.List{"1"}}, verdict: "narration.nodes-majority-acquire"},
	})
	l, frames = forked(sim.Step{Do: sim.ActRestart, Node: 1}, sim.Step{Actor: "B", Do: sim.ActAcquire, Unreachable: []int{1}})
	check(l, frames, []narrated{
		{id: "narration.restart"},
		{id: "narration.nodes-acquire", granted: part{"narration.nodes-ok-many", sim.List{"2", "3"}}, unreachable: part{"narration.nodes-unreachable-one", sim.List{"1"}}, verdict: "narration.nodes-majority-acquire"},
	})
}
