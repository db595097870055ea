package explore

import (
	"strconv"

	"lockstep/sim"
)

// narrateNodes narrates a step the learner added to a lesson on independent
// nodes (cur has Nodes): a restart says which node came back empty; an
// acquire or release says which nodes granted it, which refused it, which
// could not be reached, and whether that is a majority. ok is false for the
// other steps, which Narrate explains as on one Redis.
func narrateNodes(st *sim.Step, cur sim.Frame) (sim.Msg, bool) {
	if st.Do == sim.ActRestart {
		return sim.M("narration.restart", "Node", st.Node), true
	}
	if st.Do == sim.ActClockJump && st.Node > 0 {
		return sim.M("narration.clock-jump-node", "Node", st.Node), true
	}
	if st.Do != sim.ActAcquire && st.Do != sim.ActRelease {
		return sim.Msg{}, false
	}
	won, lost := sim.Acquired, sim.Busy
	okPart, noPart := "ok", "busy"
	if st.Do == sim.ActRelease {
		won, lost = sim.Released, sim.NotOwner
		okPart, noPart = "released", "notowner"
	}
	var granted, refused sim.List
	for _, c := range cur.Calls {
		if c.Node == 0 {
			return sim.Msg{}, false // a call on no node: not a nodes step
		}
		switch c.Outcome {
		case won:
			granted = append(granted, strconv.Itoa(c.Node))
		case lost:
			refused = append(refused, strconv.Itoa(c.Node))
		default:
			return sim.Msg{}, false
		}
	}
	var unreachable sim.List
	for _, n := range st.Unreachable {
		unreachable = append(unreachable, strconv.Itoa(n))
	}
	verdict := "minority"
	if cur.Outcome == won {
		verdict = "majority"
	}
	total := len(cur.Nodes)
	return sim.M("narration.nodes-"+string(st.Do),
		"Actor", st.Actor,
		"Granted", nodesPart(okPart, granted, st.Actor),
		"Refused", nodesPart(noPart, refused, st.Actor),
		"Unreachable", nodesPart("unreachable", unreachable, st.Actor),
		"Verdict", sim.M("narration.nodes-"+verdict+"-"+string(st.Do),
			"Actor", st.Actor, "Won", len(granted), "Total", total, "Quorum", sim.Quorum(total), "Outcome", string(cur.Outcome)),
	), true
}

// nodesPart is the sentence saying what the nodes did (part: ok, busy,
// released, notowner, unreachable), or "" when there are none.
func nodesPart(part string, nodes sim.List, actor string) any {
	switch len(nodes) {
	case 0:
		return ""
	case 1:
		return sim.M("narration.nodes-"+part+"-one", "Nodes", nodes, "Actor", actor)
	}
	return sim.M("narration.nodes-"+part+"-many", "Nodes", nodes, "Actor", actor)
}
