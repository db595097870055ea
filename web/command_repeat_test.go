package web

import (
	"slices"
	"testing"

	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// TestCommandRepeatsCollapsed: the command card makes one row of
// consecutive calls alike (the same script, node, KEYS, ARGV and reply),
// with their count (a fresh review of issue 38: a watchdog's step listed
// 18 renewals, one under another). On every step of the course: the rows'
// counts add up to the step's calls, each row's count is at least 1, no two
// rows next to each other are alike, and the step with the most calls (a
// watchdog renewing each lock it holds) shows fewer rows than calls.
func TestCommandRepeatsCollapsed(t *testing.T) {
	t.Parallel()
	course, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	most, mostAt, mostRows := 0, "", 0
	for _, l := range course {
		frames := expectedFrames(t, l)
		for cur, f := range frames {
			c := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames[:cur+1], Cur: cur}).Command()
			n := 0
			for i, row := range c.Calls {
				if row.Repeat < 1 {
					t.Errorf("%s step %d: row %d counts %d calls", l.ID, cur, i, row.Repeat)
				}
				n += row.Repeat
				if i > 0 {
					p := c.Calls[i-1]
					if p.Script == row.Script && p.Node == row.Node && p.Reply == row.Reply && p.Outcome == row.Outcome && p.AsBoolean == row.AsBoolean &&
						slices.Equal(argValues(p.Keys), argValues(row.Keys)) && slices.Equal(argValues(p.Args), argValues(row.Args)) {
						t.Errorf("%s step %d: rows %d and %d are the same call (%s), not one row", l.ID, cur, i-1, i, row.Script)
					}
				}
			}
			if n != len(f.Calls) {
				t.Errorf("%s step %d: the rows count %d calls, the step made %d", l.ID, cur, n, len(f.Calls))
			}
			if len(f.Calls) > most {
				most, mostAt, mostRows = len(f.Calls), l.ID, len(c.Calls)
			}
		}
	}
	if most < 10 || mostRows >= most {
		t.Errorf("the step with the most calls (%s, %d calls) shows %d rows; want fewer rows than calls", mostAt, most, mostRows)
	}
	t.Logf("the most calls of a step: %d (%s), in %d rows", most, mostAt, mostRows)
}

// argValues is the values of args, in order.
func argValues(args []templates.ArgView) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}
