package view

import (
	"slices"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// InvariantTitleID is the message id of the title of invariant name (one
// of sim.Invariants), "" for an invariant without one.
func InvariantTitleID(name string) string { return invariantTitles[name] }

// InvariantTitle is invariant name's title in t's language ("Two holders
// at once"), or name itself for an invariant without one: what a learner
// reads, the id kept for a tooltip (issue 38, item 10).
func InvariantTitle(t Texts, name string) string {
	if id, ok := invariantTitles[name]; ok {
		return t.T(id)
	}
	return name
}

var invariantTitles = map[string]string{
	sim.InvOverlappingHolders:   "InvOverlappingHolders",
	sim.InvStaleWrite:           "InvStaleWrite",
	sim.InvWrongOwnerRelease:    "InvWrongOwnerRelease",
	sim.InvCountMismatch:        "InvCountMismatch",
	sim.InvLeakedHold:           "InvLeakedHold",
	sim.InvSharedContextHolders: "InvSharedContextHolders",
	sim.InvUnnoticedTakeover:    "InvUnnoticedTakeover",
}

// endOfRunLeak reports whether vi is a leaked hold only because the run
// ends there: every actor it names is still running or paused.
func (v *Step) endOfRunLeak(vi sim.Violation) bool {
	if vi.Name != sim.InvLeakedHold {
		return false
	}
	for _, id := range vi.Actors {
		for _, a := range v.frame().Actors {
			if a.ID == id && a.Status != sim.StatusRunning && a.Status != sim.StatusPaused {
				return false
			}
		}
	}
	return true
}

func (v *Step) Alerts() templates.AlertsView {
	t := v.t
	f := v.frame()
	a := templates.AlertsView{UI: t.UI()}
	for _, vi := range f.Violations {
		if v.tl.On && v.cur == v.total() && v.endOfRunLeak(vi) {
			// A timeline being built has not ended: "the lesson ends while
			// Redis still keeps a hold" would greet every acquire.
			continue
		}
		title := InvariantTitle(t, vi.Name)
		a.Violations = append(a.Violations, templates.AlertItem{
			Name: vi.Name, Title: title, Detail: t.Msg(vi.Detail), Lock: vi.Lock, Actors: strings.Join(vi.Actors, t.T("LockListSep")),
		})
	}
	for _, av := range f.Actors {
		if av.Status == sim.StatusCrashed {
			continue
		}
		for _, h := range av.Holds {
			if h.Count > 0 && !h.InRedis {
				if f.Nodes != nil {
					// Some node may still keep the token: what Redis no
					// longer says is a majority's.
					a.Stale = append(a.Stale, t.T("StaleNoticeNodes", "Actor", av.ID, "Lock", h.Lock, "Count", h.Count, "Token", h.Token,
						"Kept", nodesKeeping(f.Nodes, h.Token), "Nodes", len(f.Nodes)))
					continue
				}
				a.Stale = append(a.Stale, t.T("StaleNotice", "Actor", av.ID, "Lock", h.Lock, "Count", h.Count, "Token", h.Token))
			}
		}
	}
	return a
}

// nodesKeeping is how many of the nodes (a frame's Nodes) keep token in a
// key of theirs: as a string's value or a hash's field name or value.
func nodesKeeping(nodes [][]sim.KeyState, token string) int {
	n := 0
	for _, keys := range nodes {
		if slices.ContainsFunc(keys, func(k sim.KeyState) bool {
			return k.Value == token || slices.ContainsFunc(k.Fields, func(f sim.Field) bool { return f.Name == token || f.Value == token })
		}) {
			n++
		}
	}
	return n
}
