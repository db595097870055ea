package sim

// LockState is a node of seed 001's state diagram of a reentrant lock.
type LockState string

// The states of seed 001's diagram.
const (
	Idle     LockState = "idle"
	HeldOnce LockState = "held-once"
	HeldMany LockState = "held-many"
)

// LockStates lists the diagram's states in drawing order.
var LockStates = []LockState{Idle, HeldOnce, HeldMany}

// StateNames are the states' display names: messages "state.<state>" of
// the catalogue.
var StateNames = map[LockState]Msg{
	Idle:     M("state.idle"),
	HeldOnce: M("state.held-once"),
	HeldMany: M("state.held-many"),
}

// Edge is a transition of the diagram.
type Edge struct {
	ID       string
	From, To LockState
	Label    Msg // "edge.<ID>" of the catalogue
}

// OffDiagram is the id of a change of state the diagram has no arrow for,
// e.g. a hold lost with the primary in a failover.
const OffDiagram = "off-diagram"

// WrongOwner is the id of a change of state made by a release from an
// execution context that did not take the hold (the step reports
// wrong-owner-release): another owner's hold deleted or lowered. The
// states it joins may have an arrow on seed 001's diagram, but that arrow
// is the holder's own release or the lease's end, so the player draws this
// one apart, as a marked wrong transition, never as the diagram's edge.
const WrongOwner = "wrong-owner"

// Diagram is the transition table of seed 001's diagram. The runner names the
// edge each step takes from it, and the player draws it, so both always agree.
var Diagram = []Edge{
	{ID: "first-acquire", From: Idle, To: HeldOnce, Label: M("edge.first-acquire")},
	{ID: "reenter", From: HeldOnce, To: HeldMany, Label: M("edge.reenter")},
	{ID: "reenter-or-partial-release", From: HeldMany, To: HeldMany, Label: M("edge.reenter-or-partial-release")},
	{ID: "count-to-one", From: HeldMany, To: HeldOnce, Label: M("edge.count-to-one")},
	{ID: "release-or-expire", From: HeldOnce, To: Idle, Label: M("edge.release-or-expire")},
	{ID: "expire", From: HeldMany, To: Idle, Label: M("edge.expire")},
}

// Transition is the edge a step took on one lock's diagram.
type Transition struct {
	ID   string    `json:"id"` // an Edge ID, OffDiagram or WrongOwner
	From LockState `json:"from"`
	To   LockState `json:"to"`
}

// stateOf places a hold count on the diagram.
func stateOf(count int64) LockState {
	switch {
	case count <= 0:
		return Idle
	case count == 1:
		return HeldOnce
	}
	return HeldMany
}

// transition names the edge from one (state, count) to the next, or returns
// nil when nothing moved.
func transition(from LockState, fromCount int64, to LockState, toCount int64, byExpiry bool) *Transition {
	if from == to && fromCount == toCount {
		return nil
	}
	for _, e := range Diagram {
		if e.From != from || e.To != to {
			continue
		}
		// HeldMany -> Idle is on the diagram only as expiry.
		if e.ID == "expire" && !byExpiry {
			break
		}
		return &Transition{ID: e.ID, From: from, To: to}
	}
	if from == to && from == HeldOnce {
		return nil // a new owner in one step cannot happen; the count is unchanged
	}
	return &Transition{ID: OffDiagram, From: from, To: to}
}

// Mermaid returns the diagram as Mermaid stateDiagram-v2 text in locale l,
// its labels rendered by r.
func Mermaid(l Locale, r Renderer) string {
	id := map[LockState]string{Idle: "Idle", HeldOnce: "HeldOnce", HeldMany: "HeldMany"}
	s := "stateDiagram-v2\n"
	for _, st := range LockStates {
		s += "    " + id[st] + " : " + r.Render(l, StateNames[st]) + "\n"
	}
	s += "    [*] --> Idle\n"
	for _, e := range Diagram {
		s += "    " + id[e.From] + " --> " + id[e.To] + " : " + r.Render(l, e.Label) + "\n"
	}
	return s
}
