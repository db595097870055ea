package search

import (
	"fmt"
	"slices"
	"strconv"

	"lockstep/sim"
)

// moves returns the steps the search tries after the timeline that reached
// p, in order: each actor in file order with the file's moves in its
// order, where the spec's rules allow them (a well-behaved client), then
// each clock advance in file order.
func moves(f *File, p *node) []sim.Step {
	var out []sim.Step
	for i, spec := range f.Actors {
		a := p.actors[i]
		live := a&actorRunning != 0
		holds := a&actorHolds != 0
		for _, m := range f.Moves {
			st := sim.Step{Actor: spec.ID, Do: sim.Action(m), Lock: f.Lock}
			ok := false
			switch m {
			case MoveAcquire, MovePause, MoveExit:
				ok = live
			case MoveRelease:
				ok = live && holds
			case MoveWrite:
				ok = live && holds
				st.Value = spec.ID + "-" + strconv.Itoa(writesBy(p, spec.ID)+1)
			case MoveResume:
				ok = a&actorPaused != 0
			case MoveCrash:
				ok = live || a&actorPaused != 0
			case MoveFinishRelease:
				ok = live && a&actorPending != 0
			}
			if ok {
				out = append(out, st)
			}
		}
	}
	for _, d := range f.Advance {
		out = append(out, sim.Step{Do: sim.ActAdvance, By: d})
	}
	return out
}

func actorView(as []sim.ActorView, id string) sim.ActorView {
	i := slices.IndexFunc(as, func(a sim.ActorView) bool { return a.ID == id })
	if i < 0 {
		return sim.ActorView{ID: id}
	}
	return as[i]
}

func holdView(a sim.ActorView, lock string) sim.HoldView {
	i := slices.IndexFunc(a.Holds, func(h sim.HoldView) bool { return h.Lock == lock })
	if i < 0 {
		return sim.HoldView{Lock: lock}
	}
	return a.Holds[i]
}

// writesBy counts the writes of actor on the timeline that reached n.
func writesBy(n *node, actor string) int {
	c := 0
	for ; n != nil && n.parent != nil; n = n.parent {
		if n.step.Do == sim.ActWrite && n.step.Actor == actor {
			c++
		}
	}
	return c
}

// DescribeStep is a step as one line of the report: "A acquire", "advance 31s".
func DescribeStep(st sim.Step) string {
	switch st.Do {
	case sim.ActAdvance:
		return fmt.Sprintf("advance %s", st.By)
	case sim.ActWrite:
		return fmt.Sprintf("%s write %s", st.Actor, st.Value)
	}
	return st.Actor + " " + string(st.Do)
}
