package live

import (
	"encoding/json"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// idleDiagram is the player's state diagram (view.Step.Diagram, the same
// view model and drawing) before any lock state has arrived: no lock,
// Idle current, caption the page's own. The page's script moves the
// current state and marks the transition taken as lock states arrive
// (static/live.js: diagramState), with the texts of diagramTexts.
func idleDiagram(tx view.Texts, caption string) templates.DiagramView {
	step := view.New(view.Input{
		Texts:  tx,
		Lesson: &sim.Lesson{},
		Frames: []sim.Frame{{Locks: []sim.LockView{{State: sim.Idle}}}},
	})
	d := step.Diagram()
	d.StateLabel = caption
	return d
}

// diagramTexts are the diagram's words the script needs, in tx's
// language: each state's name ("state.<state>"), each edge's label
// ("edge.<id>"), and the player's captions with placeholders
// ("caption": {lock}, {state}, {count}; "caption-taken": and {edge}).
func diagramTexts(tx view.Texts) map[string]string {
	out := map[string]string{
		"caption":       tx.T("StateCaption", "Lock", "{lock}", "State", "{state}", "Count", "{count}"),
		"caption-taken": tx.T("StateCaptionTaken", "Lock", "{lock}", "State", "{state}", "Count", "{count}", "Edge", "{edge}"),
		"off-diagram":   tx.T("OffDiagram", "From", "{from}", "To", "{to}"),
	}
	for _, s := range sim.LockStates {
		out["state."+string(s)] = tx.Msg(sim.StateNames[s])
	}
	for _, e := range sim.Diagram {
		out["edge."+e.ID] = tx.Msg(e.Label)
	}
	return out
}

// diagramEdges is seed 001's transition table (sim.Diagram) as JSON for
// the script: [{id, from, to}], so the page names the same edges the
// runner does.
func diagramEdges() string {
	type edge struct {
		ID   string        `json:"id"`
		From sim.LockState `json:"from"`
		To   sim.LockState `json:"to"`
	}
	out := make([]edge, len(sim.Diagram))
	for i, e := range sim.Diagram {
		out[i] = edge{e.ID, e.From, e.To}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
