package view

import (
	"encoding/json"
	"strings"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
)

// ExploreState is what the explore panel needs beyond the run.
type ExploreState struct {
	On          bool   // an explore timeline, not a course lesson or drill
	Code        string // its share code
	OriginURL   string // the lesson step a fork comes from, "" for none
	OriginTitle string
	CanUndo     bool // explore.Timeline.CanUndo
}

// ExplorePanel is the fork menu at the current step.
func (v *Step) ExplorePanel() templates.ExplorePanelView {
	t := v.t
	x := t.Explore()
	f := v.frame()
	p := v.ExploreTools()
	p.Step = v.cur
	p.Help = t.T("ForkHelp", "Step", v.cur)
	p.OriginURL, p.OriginTitle = v.tl.OriginURL, v.tl.OriginTitle
	if dropped := v.total() - v.cur; dropped > 0 {
		p.Drops = t.T("ForkDrops", "N", dropped)
	}
	byActor := map[string]int{}
	for _, c := range explore.Choices(v.lesson, f) {
		b := v.choiceButton(c)
		if c.Actor == "" {
			p.Clock = append(p.Clock, b)
			continue
		}
		i, ok := byActor[c.Actor]
		if !ok {
			i = len(p.Groups)
			byActor[c.Actor] = i
			g := templates.ChoiceGroup{Title: c.Actor}
			for _, a := range f.Actors {
				if a.ID == c.Actor {
					if name := a.Name.In(t.Locale()); name != "" && name != a.ID {
						g.Title = a.ID + " · " + name
					}
					if a.Status == sim.StatusPaused {
						g.Status = x.StatusPaused
					}
				}
			}
			p.Groups = append(p.Groups, g)
		}
		p.Groups[i].Choices = append(p.Groups[i].Choices, b)
	}
	return p
}

// ExploreTools is the part of the explore panel's view that depends on the
// run only: undo, the share code, exports and the comparison.
func (v *Step) ExploreTools() templates.ExplorePanelView {
	t := v.t
	p := templates.ExplorePanelView{
		UI: t.UI(), X: t.Explore(),
		Timeline: v.tl.On, CanUndo: v.tl.CanUndo, Empty: v.total() == 0,
		Lang: string(t.Locale()), Variant: v.lesson.Variant, Variants: sim.Variants(),
		Code: v.tl.Code,
	}
	if !v.tl.On {
		p.Lesson = v.lesson.ID
	}
	return p
}

// choiceButton is the fork menu's button for a choice.
func (v *Step) choiceButton(c explore.Choice) templates.ChoiceButton { return specButton(v.t, c.Spec) }

// specButton is the button of a step a learner may add: its label, its
// tooltip and the step as the fork message's JSON. It depends on the step
// and the language only.
func specButton(t Texts, sp explore.StepSpec) templates.ChoiceButton {
	label := ActionName(t, sp.Do)
	switch {
	case sp.Do == sim.ActRelease && sp.ReplyLost:
		label = t.T("ChoiceReplyLost")
	case sp.Do == sim.ActWrite:
		label = t.T("ChoiceWrite", "Value", sp.Value)
	case sp.Do == sim.ActFork && sp.Context == "inherit":
		label = t.T("ChoiceForkInherit", "Child", sp.Child)
	case sp.Do == sim.ActFork:
		label = t.T("ChoiceForkLost", "Child", sp.Child)
	case sp.Do == sim.ActAdvance:
		label = t.T("ChoiceAdvance", "By", Seconds(t, sp.ByMS))
	case sp.Do == sim.ActClockJump:
		label = t.T("ChoiceClockJump", "By", Seconds(t, sp.ByMS))
	case sp.Do == sim.ActRestart:
		label = t.T("ChoiceRestart", "Node", sp.Node)
	}
	if sp.Lock != "" {
		label += " · " + sp.Lock
	}
	kind := string(sp.Do)
	title := t.Maybe("ChoiceHelp" + Camel(string(sp.Do)))
	if sp.ReplyLost {
		kind += " reply-lost"
		title = t.T("ChoiceHelpReplyLost")
	}
	for _, n := range sp.Unreachable {
		label += " · " + t.T("ChoiceUnreachable", "Node", n)
		kind += " unreachable"
		title = t.T("ChoiceHelpUnreachable")
	}
	if sp.Unreplicated {
		label += " · " + t.T("ChoiceUnreplicated")
		kind += " unreplicated"
		title = t.T("ChoiceHelpUnreplicated")
	}
	spec, _ := json.Marshal(sp)
	return templates.ChoiceButton{Label: label, Title: title, Spec: string(spec), Kind: kind}
}

// CompareRows are the rows of a comparison of timeline l: each step in one
// line, with its outcome, replies and violations under either variant.
func CompareRows(t Texts, l *sim.Lesson, c *explore.Comparison) []templates.CompareRow {
	v := &Step{t: t, lesson: l}
	var rows []templates.CompareRow
	for i, st := range l.Steps {
		n := i + 1
		rows = append(rows, templates.CompareRow{
			Step: n, Action: v.stepLine(&st), A: cell(t, c.A.Frames, n), B: cell(t, c.B.Frames, n),
			Differs: c.Diffs[n], First: n == c.FirstDiff,
		})
	}
	return rows
}

// cell is step n of a compared run.
func cell(t Texts, frames []sim.Frame, n int) templates.CompareCell {
	if n >= len(frames) {
		return templates.CompareCell{}
	}
	f := frames[n]
	c := templates.CompareCell{Outcome: string(f.Outcome), Kind: outcomeKind(f.Outcome)}
	var replies, vios []string
	for _, call := range f.Calls {
		reply := call.Reply.String()
		if call.Node > 0 {
			reply = t.T("TLNodeReply", "Node", call.Node, "Reply", reply)
		}
		replies = append(replies, call.Script+" → "+reply)
	}
	for _, v := range f.Violations {
		vios = append(vios, InvariantTitle(t, v.Name))
	}
	c.Replies = strings.Join(replies, "; ")
	c.Violations = strings.Join(vios, t.T("LockListSep"))
	return c
}

// stepLine is a step in one line: "A · acquire", "advance 31 s".
func (v *Step) stepLine(st *sim.Step) string {
	lease := st.Lease
	if lease == 0 {
		lease = v.lesson.Lease
	}
	h, d := v.headline(&sim.StepInfo{Actor: st.Actor, Do: st.Do, Lock: st.Lock, LeaseMS: lease.Milliseconds(), ByMS: st.By.Milliseconds(), Value: st.Value, Child: st.Child, Context: st.Context, ReplyLost: st.ReplyLost,
		CheckOnly: checkOnly(v.lesson, *st)})
	if d != "" {
		return h + " · " + d
	}
	return h
}
