package view

import (
	"strconv"
	"strings"

	"lockstep/sim"
)

// nodeGloss is the caption beside the outcome of an acquire or a release
// in a lesson with nodes (Redlock's independent primaries; issue 39): what
// each node did, read from the step's call records, where the captions of
// one Redis ("the key exists, so SET NX wrote nothing") are false: a
// Redlock acquire that misses the majority may have been granted on a
// node, and its client then unlocks every node it reached (sim/nodes.go);
// a release that gets no majority may still have released the caller's
// hold on a node. It returns "" for any other step, and for a step that
// sent no call to a node (a re-entry the client counts in its memory),
// whose plain caption holds.
//
// nodes is the lesson's number of nodes; st and calls are the frame's.
func nodeGloss(t Texts, nodes int, st *sim.StepInfo, out sim.Outcome, calls []sim.CallRecord) string {
	if nodes == 0 || st == nil {
		return ""
	}
	// An acquire's calls come first, one per reachable node; the unlock a
	// client that missed the majority sends to every node comes after
	// them, with a release's outcomes.
	var granted, released []int
	sent, undo := false, false
	for _, c := range calls {
		if c.Node == 0 {
			continue
		}
		sent = true
		switch c.Outcome {
		case sim.Acquired, sim.Reentered:
			granted = append(granted, c.Node)
		case sim.Released, sim.StillHeld:
			released = append(released, c.Node)
			undo = true
		case sim.NotOwner:
			undo = true
		}
	}
	if !sent {
		return ""
	}
	q := sim.Quorum(nodes)
	switch {
	case st.Do == sim.ActAcquire && (out == sim.Acquired || out == sim.Reentered) && len(granted) >= q:
		return t.T("NodesGranted", "Nodes", nodeList(t, granted), "Count", len(granted), "Total", nodes)
	case st.Do == sim.ActAcquire && (out == sim.Busy || out == sim.Lost):
		if len(granted) == 0 {
			return t.T("NodesGrantedNone", "Total", nodes)
		}
		g := t.T("NodesGrantedNoMajority", "Nodes", nodeList(t, granted), "Count", len(granted), "Total", nodes)
		switch {
		case !undo:
			return t.T("NodesKept", "Gloss", g)
		case len(released) > 0:
			return t.T("NodesUndone", "Gloss", g, "Nodes", nodeList(t, released))
		}
		return g
	case st.Do == sim.ActRelease && out == sim.Released && len(released) >= q:
		return t.T("NodesReleased", "Actor", st.Actor, "Nodes", nodeList(t, released), "Count", len(released), "Total", nodes)
	case st.Do == sim.ActRelease && out == sim.NotOwner:
		if len(released) == 0 {
			return t.T("NodesReleasedNone", "Actor", st.Actor, "Total", nodes)
		}
		return t.T("NodesReleasedNoMajority", "Actor", st.Actor, "Nodes", nodeList(t, released), "Count", len(released), "Total", nodes)
	}
	return ""
}

// nodeList is node numbers as a list in t's language: "1, 3" in English,
// "1、3" in Chinese (LockListSep; a fresh review of issue 39 found "1, 2"
// in the zh captions).
func nodeList(t Texts, ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, t.T("LockListSep"))
}
