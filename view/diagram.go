package view

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"lockstep/sim"
	"lockstep/templates"
)

// Diagram geometry. States stand in one row in the order of sim.LockStates;
// transitions to a later state arc above the row, to an earlier one below
// it, and a transition to the same state loops above its node. The table of
// states and transitions is sim's: nothing here names a state or an edge.
//
// A step's diagram is drawn twice, for the screen and for a projector
// (presenter mode, where the page shows only that one): the projector's is
// narrower, with labels of fewer, larger lines, so that drawn at about 86%
// of its size, beside the narration on a 1024 px wide projector, its
// labels are still 18 px tall (app.css sets the label sizes, lineH here is
// their line spacing in the same units). A desk player (961 px and wider)
// shows the projector's drawing too, in the board's right column, where the
// screen's drew its labels 5-9 px; a phone shows the screen's.
type dgGeometry struct {
	nodeW, nodeH int
	gap          int // distance between node centers
	left, right  int // room for the start marker; margin
	top, below   int // top of the nodes; room under the nodes
	lineH        int // label line spacing
	maxUnit      int // label line length in "units" (a CJK character is 2)
	loopCtrl     int // height of the self loop's control points above the nodes
	loopLabel    int // baseline of the self loop label's lowest line above the nodes
	downExtra    int // extra depth of a lower arc per state it passes under
	nameDY       int // baseline of a state's name below the node's middle
}

// dgProjector's loopLabel is 92, not the 84 the loop's height alone would
// allow: the arc from Held to Reentered puts its label's top line 100 units
// left of Reentered's loop label, whose lowest line sat one unit above it;
// drawn a little smaller (a class's tally taking a second row), hinted
// glyphs made the two overlap (TestBrowserPresenterClassFits). Eight units
// leave a descent between them; top grows by the same.
var (
	dgScreen    = dgGeometry{nodeW: 150, nodeH: 52, gap: 235, left: 56, right: 24, top: 112, below: 124, lineH: 15, maxUnit: 34, loopCtrl: 78, loopLabel: 66, downExtra: 56, nameDY: 6}
	dgProjector = dgGeometry{nodeW: 132, nodeH: 52, gap: 200, left: 44, right: 28, top: 142, below: 124, lineH: 23, maxUnit: 16, loopCtrl: 100, loopLabel: 92, downExtra: 96, nameDY: 7}
)

// Diagram returns the step's state diagram of its focus lock: both
// drawings, the caption and the notes.
func (v *Step) Diagram() templates.DiagramView {
	t := v.t
	ui := t.UI()
	focus, others := v.focusLock()
	d := templates.DiagramView{
		UI:          ui,
		Lock:        focus.Name,
		MermaidURL:  "/diagram.mmd?lang=" + string(t.Locale()),
		CurrentName: string(focus.State),
	}
	d.DiagramDrawing = v.diagramDrawing(focus, dgScreen, "dg")
	d.Projector = v.diagramDrawing(focus, dgProjector, "dgp")
	tr := focus.Transition
	state := t.Msg(sim.StateNames[focus.State])
	d.StateLabel = t.T("StateCaption", "Lock", focus.Name, "State", state, "Count", focus.Count)
	if tr != nil {
		if tr.ID == sim.WrongOwner {
			d.OffDiagram = v.wrongOwnerNote(focus.Name, tr)
		} else if tr.ID == sim.OffDiagram {
			d.OffDiagram = t.T("OffDiagram", "From", t.Msg(sim.StateNames[tr.From]), "To", t.Msg(sim.StateNames[tr.To]))
		} else {
			for _, e := range sim.Diagram {
				if e.ID == tr.ID {
					d.StateLabel = t.T("StateCaptionTaken", "Lock", focus.Name, "State", state, "Count", focus.Count, "Edge", t.Msg(e.Label))
				}
			}
		}
	}
	for _, o := range others {
		d.OtherLocks = append(d.OtherLocks, t.T("OtherLock", "Lock", o.Name, "State", t.Msg(sim.StateNames[o.State])))
	}
	return d
}

// diagramDrawing lays the diagram of lock focus out with geometry g; id
// prefixes the drawing's element ids (its arrowheads), unique on the page.
func (v *Step) diagramDrawing(focus sim.LockView, g dgGeometry, id string) templates.DiagramDrawing {
	t := v.t
	n := len(sim.LockStates)
	d := templates.DiagramDrawing{
		ID:     id,
		Width:  g.left + g.nodeW + (n-1)*g.gap + g.right,
		Height: g.top + g.nodeH + g.below,
	}
	index := map[sim.LockState]int{}
	for i, s := range sim.LockStates {
		index[s] = i
	}
	cx := func(i int) int { return g.left + g.nodeW/2 + i*g.gap }
	top, bottom := g.top, g.top+g.nodeH
	tr := focus.Transition
	for i, s := range sim.LockStates {
		d.Nodes = append(d.Nodes, templates.DiagramNode{
			State: string(s), Label: t.Msg(sim.StateNames[s]),
			X: cx(i) - g.nodeW/2, Y: top, W: g.nodeW, H: g.nodeH, TX: cx(i), TY: top + g.nodeH/2 + g.nameDY,
			Current: s == focus.State, Entered: tr != nil && tr.To == s,
		})
	}
	cy := top + g.nodeH/2
	d.Start = templates.DiagramStart{CX: 18, CY: cy, Path: fmt.Sprintf("M25 %d H%d", cy, cx(0)-g.nodeW/2-3)}
	// Edges leaving the same node below the row start at spread-out points.
	for _, e := range sim.Diagram {
		i, j := index[e.From], index[e.To]
		label := t.Msg(e.Label)
		de := templates.DiagramEdge{
			ID: e.ID, Title: label, Taken: tr != nil && tr.ID == e.ID,
			FromTo: t.Msg(sim.StateNames[e.From]) + " → " + t.Msg(sim.StateNames[e.To]),
		}
		var lx, ly int // label anchor: baseline of the line nearest the arc
		up := true
		switch {
		case i == j:
			x := cx(i)
			de.Path = fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x-28, top, x-60, top-g.loopCtrl, x+60, top-g.loopCtrl, x+28, top-2)
			lx, ly = x, top-g.loopLabel
		case j > i:
			span := j - i
			x1, x2 := cx(i)+g.nodeW/4, cx(j)-g.nodeW/4
			ctrl := top - 50*span
			de.Path = fmt.Sprintf("M%d %d Q%d %d %d %d", x1, top, (x1+x2)/2, ctrl, x2, top-2)
			lx, ly = (x1+x2)/2, (top+ctrl)/2-8
		default:
			span := i - j
			x1, x2 := cx(i)-g.nodeW/4-10*(span-1), cx(j)+g.nodeW/4+10*(span-1)
			ctrl := bottom + 52*span + g.downExtra*(span-1)
			de.Path = fmt.Sprintf("M%d %d Q%d %d %d %d", x1, bottom, (x1+x2)/2, ctrl, x2, bottom+2)
			lx, ly = (x1+x2)/2, (bottom+ctrl)/2+16
			up = false
		}
		lines := wrapLabel(label, g.maxUnit)
		for k, line := range lines {
			y := ly + k*g.lineH
			if up {
				y = ly - (len(lines)-1-k)*g.lineH
			}
			de.Label = append(de.Label, templates.DiagramText{X: lx, Y: y, Text: line})
		}
		d.Edges = append(d.Edges, de)
	}
	if tr != nil && tr.ID == sim.WrongOwner {
		d.Edges = append(d.Edges, v.wrongOwnerEdge(tr, g, index, cx, top, bottom))
	}
	return d
}

// wrongOwnerEdge draws the transition of a release by the wrong owner
// (sim.WrongOwner) apart from seed 001's edges: a dashed arrow between the
// two states, straight across the gap between neighbours (where no edge of
// the diagram runs), else in a deeper arc below the row.
func (v *Step) wrongOwnerEdge(tr *sim.Transition, g dgGeometry, index map[sim.LockState]int, cx func(int) int, top, bottom int) templates.DiagramEdge {
	t := v.t
	i, j := index[tr.From], index[tr.To]
	label := t.T("WrongOwnerEdge")
	de := templates.DiagramEdge{ID: sim.WrongOwner, Title: label, Taken: true, Wrong: true,
		FromTo: t.Msg(sim.StateNames[tr.From]) + " → " + t.Msg(sim.StateNames[tr.To])}
	cy := (top + bottom) / 2
	dir := 1
	if j < i {
		dir = -1
	}
	switch span := (j - i) * dir; {
	case span == 1:
		x1, x2 := cx(i)+dir*(g.nodeW/2+3), cx(j)-dir*(g.nodeW/2+3)
		de.Path = fmt.Sprintf("M%d %d H%d", x1, cy, x2)
		de.Label = []templates.DiagramText{{X: (x1 + x2) / 2, Y: cy - 8, Text: "✕"}}
	default:
		x1, x2 := cx(i), cx(j)
		ctrl := bottom + 60*span + 60
		de.Path = fmt.Sprintf("M%d %d Q%d %d %d %d", x1, bottom, (x1+x2)/2, ctrl, x2, bottom+2)
		de.Label = []templates.DiagramText{{X: (x1 + x2) / 2, Y: (bottom+ctrl)/2 + 4, Text: "✕"}}
	}
	return de
}

// wrongOwnerNote says what a wrong-owner transition was: whose release
// changed whose hold, from the step's wrong-owner-release violation.
func (v *Step) wrongOwnerNote(lock string, tr *sim.Transition) string {
	t := v.t
	from, to := t.Msg(sim.StateNames[tr.From]), t.Msg(sim.StateNames[tr.To])
	for _, vi := range v.frame().Violations {
		if vi.Name == sim.InvWrongOwnerRelease && vi.Lock == lock && len(vi.Actors) > 1 {
			return t.T("WrongOwnerNote", "From", from, "To", to, "Actor", vi.Actors[0], "Takers", strings.Join(vi.Actors[1:], t.T("LockListSep")))
		}
	}
	return t.T("OffDiagram", "From", from, "To", to)
}

// textUnits measures s in half-em units: 1 for ASCII, 2 for wide (CJK)
// characters.
func textUnits(s string) int {
	n := 0
	for _, r := range s {
		if r < 0x1100 || !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) && !isWidePunct(r) {
			n++
		} else {
			n += 2
		}
	}
	return n
}

func isWidePunct(r rune) bool {
	return (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}

// wrapLabel breaks a label into lines of at most max units, at spaces, or
// after CJK punctuation, or anywhere between CJK characters. A break at a
// space or a comma wins over one between characters when it keeps at least
// half a line; between characters, the lines come out about even (9
// characters in 8-character lines break 4 + 5, not 8 + 1).
func wrapLabel(s string, max int) []string {
	if textUnits(s) <= max {
		return []string{s}
	}
	var lines []string
	for textUnits(s) > max {
		total := textUnits(s)
		even := (total + (total+max-1)/max - 1) / ((total + max - 1) / max) // ceil(total / lines)
		word, char, units := -1, -1, 0
		for i, r := range s {
			w := textUnits(string(r))
			if units+w > max {
				break
			}
			units += w
			switch {
			case r == ' ':
				word = i
			case r == '，' || r == '、' || r == '；' || r == ',':
				word = i + utf8.RuneLen(r)
			case w == 2 && units <= even:
				char = i + utf8.RuneLen(r)
			}
		}
		cut := word
		if cut <= 0 || (char > 0 && textUnits(s[:cut]) < max/2) {
			cut = char
		}
		if cut <= 0 {
			cut = word
		}
		if cut <= 0 {
			break
		}
		lines = append(lines, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		lines = append(lines, s)
	}
	return lines
}
