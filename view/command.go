package view

import (
	"slices"
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// sourceID is the element id of a script's source; stable across steps so
// the page can keep it open.
func sourceID(script string, i int) string {
	id := "src-" + strings.NewReplacer("/", "-", " ", "-").Replace(script)
	if i > 0 {
		id += "-" + strconv.Itoa(i)
	}
	return id
}

// Command is the step's command card: each Redis call of the step, in
// order, with its source and the branch that replied; consecutive calls
// alike (sameCall) make one row with their count (CallView.Repeat).
func (v *Step) Command() templates.CommandView {
	t := v.t
	f := v.frame()
	c := templates.CommandView{UI: t.UI()}
	if len(f.Calls) == 0 {
		c.NoCall = t.UI().NoCall
		if f.Step != nil && (f.Step.Do == sim.ActAcquire || f.Step.Do == sim.ActRelease) && f.Outcome != sim.NoContext {
			c.NoCall = t.T("NoCallLocal")
		}
	}
	seen := map[string]int{}
	for i, call := range f.Calls {
		// a call like the one before, with the same reply (a watchdog's 18
		// renewals in one step: a fresh review of issue 38) is counted on
		// that one's row
		if i > 0 && sameCall(f.Calls[i-1], call) {
			c.Calls[len(c.Calls)-1].Repeat++
			continue
		}
		cv := templates.CallView{Index: i + 1, Repeat: 1, Script: call.Script, Reply: call.Reply.String(), AsBoolean: call.AsBoolean,
			Outcome: string(call.Outcome), OutcomeKnd: outcomeKind(call.Outcome)}
		if call.Node > 0 {
			cv.Node, cv.NodeLabel = call.Node, t.T("NodeLabel", "Node", call.Node)
		}
		cv.SourceID = sourceID(call.Script, seen[call.Script])
		seen[call.Script]++
		var docs map[string]string
		if s := sim.ScriptByName(call.Script); s != nil {
			docs = ScriptDocs(s.Source)
			branch := replyBranch(s.Source, s.BranchLines(call.Outcome), call.Reply.Kind)
			for n, line := range strings.Split(strings.TrimRight(s.Source, "\n"), "\n") {
				cv.Lines = append(cv.Lines, templates.SourceLine{N: n + 1, Text: line, Branch: slices.Contains(branch, n+1)})
			}
		}
		for j, k := range call.Keys {
			cv.Keys = append(cv.Keys, templates.ArgView{N: j + 1, Value: k, Doc: LuaDoc(t, docs["KEYS"+strconv.Itoa(j+1)])})
		}
		for j, a := range call.Args {
			cv.Args = append(cv.Args, templates.ArgView{N: j + 1, Value: a, Doc: LuaDoc(t, docs["ARGV"+strconv.Itoa(j+1)])})
		}
		c.Calls = append(c.Calls, cv)
	}
	return c
}

// sameCall reports whether calls a and b are the same call with the same
// answer: script, node, KEYS, ARGV, reply, its Boolean reading and
// outcome.
func sameCall(a, b sim.CallRecord) bool {
	return a.Script == b.Script && a.Node == b.Node && slices.Equal(a.Keys, b.Keys) && slices.Equal(a.Args, b.Args) &&
		a.Reply.String() == b.Reply.String() && a.AsBoolean == b.AsBoolean && a.Outcome == b.Outcome
}

// replyBranch narrows lines, the lines of src tagged with a call's outcome
// (sim.Script.BranchLines), to those whose return fits the reply's kind
// when more than one is tagged: token-count's acquire answers ACQUIRED as
// {'ACQUIRED', fence} with fencing and as 'ACQUIRED' without, and the Lua
// panel marked both as the branch that replied (a fresh-eyes review of
// issue 39). lines is returned as it is when no line or every line fits.
func replyBranch(src string, lines []int, kind sim.ReplyKind) []int {
	if len(lines) < 2 {
		return lines
	}
	text := strings.Split(src, "\n")
	var fit []int
	for _, n := range lines {
		code, _, _ := strings.Cut(text[n-1], "--")
		table := strings.Contains(code, "return {")
		if table == (kind == sim.ReplyArray) {
			fit = append(fit, n)
		}
	}
	if len(fit) == 0 {
		return lines
	}
	return fit
}
