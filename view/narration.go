package view

import (
	"strconv"
	"strings"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
)

// actorLabel is how a headline names an actor: its id, which the lessons'
// Narration uses too.
func actorLabel(id string) string { return id }

// seconds formats simulated milliseconds for people: "2 s", "1.5 s",
// "31 s" (in the locale's unit).
func Seconds(t Texts, ms int64) string {
	if ms >= 3600_000 {
		return t.T("Hours", "N", strconv.FormatFloat(float64(ms)/3600_000, 'f', 1, 64))
	}
	if ms%1000 == 0 {
		return t.T("Seconds", "N", strconv.FormatInt(ms/1000, 10))
	}
	if ms < 1000 && ms > -1000 {
		return t.T("Millis", "N", strconv.FormatInt(ms, 10))
	}
	return t.T("Seconds", "N", strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64))
}

func (v *Step) Narration() templates.NarrationView {
	t := v.t
	f := v.frame()
	n := templates.NarrationView{UI: t.UI(), Step: v.cur, Total: v.total(), Time: t.T("TimeAt", "Time", Seconds(t, f.TimeMS))}
	if v.cur == 0 || f.Step == nil {
		n.StepLabel = t.T("BeforeFirstStep")
		n.Headline = t.T("HeadStart")
		n.Say = strings.TrimSpace(v.lesson.Summary.In(t.Locale()))
		n.Note = strings.TrimSpace(v.lesson.Note.In(t.Locale()))
		return n
	}
	n.StepLabel = t.T("StepOfTotal", "Step", v.cur, "Total", v.total())
	n.Headline, n.Detail = v.headline(f.Step)
	if len(f.Step.Unreachable) > 0 {
		n.Detail = strings.TrimPrefix(n.Detail+" · "+t.T("DetailUnreachable", "Nodes", nodeList(t, f.Step.Unreachable)), " · ")
	}
	if f.Step.Unreplicated {
		n.Detail = strings.TrimPrefix(n.Detail+" · "+t.T("DetailUnreplicated"), " · ")
	}
	n.Outcome = string(f.Outcome)
	n.OutcomeGloss = nodeGloss(t, v.lesson.Nodes, f.Step, f.Outcome, f.Calls)
	if n.OutcomeGloss == "" {
		n.OutcomeGloss = OutcomeGloss(t, v.lesson.Variant, f.Step.Do, f.Outcome)
	}
	n.OutcomeKind = outcomeKind(f.Outcome)
	if c := f.Check; c != nil {
		want := string(c.Expect)
		if len(c.ExpectViolations) > 0 {
			if want != "" {
				want += " + "
			}
			want += strings.Join(c.ExpectViolations, ", ")
		}
		n.CheckOK = c.OK
		if c.OK {
			n.CheckText = t.T("CheckOK", "Want", want)
		} else {
			got := string(c.Got)
			if len(c.Missing) > 0 {
				got += " − " + strings.Join(c.Missing, ", ")
			}
			n.CheckText = t.T("CheckBad", "Want", want, "Got", got)
		}
	}
	n.Say = strings.TrimSpace(f.Say.In(t.Locale()))
	if n.Say == "" && v.cur <= len(v.lesson.Steps) {
		// A step a learner added (explore mode) has no narration of its own.
		n.Say = strings.TrimSpace(t.Msg(explore.Narrate(v.lesson, &v.lesson.Steps[v.cur-1], v.frames[v.cur-1], f)))
		n.Generated = n.Say != ""
	}
	if v.cur <= len(v.lesson.Steps) {
		n.Misconception = strings.TrimSpace(v.lesson.Steps[v.cur-1].Misconception.In(t.Locale()))
	}
	if v.cur == v.total() && v.tl.OriginURL == "" {
		// A fork's lesson takeaway is about the lesson's own ending.
		n.Takeaway = strings.TrimSpace(v.lesson.Takeaway.In(t.Locale()))
	}
	return n
}

// Glosser gives a catalogue text by id, "" when the catalogue has none
// (Texts is one; so is the classroom's, classserve.Texts).
type Glosser interface {
	Maybe(id string, kv ...any) string
}

// OutcomeGloss is the caption beside a step's outcome, fitted to the lock's
// key (issue 16 item 1.10): "Outcome<OUTCOME>.<kind>" of the catalogue for
// the variant's kind (count: Redis keeps a hold count; string: a plain
// SET NX key with no owner check and no count; local: SET NX with the count
// in the client's memory), else "Outcome<OUTCOME>.<action>" (an acquire's
// NOT_OWNER), else the plain "Outcome<OUTCOME>", which fits every kind.
// A class's question glosses its choices, and its reveal says why, with
// it (issue 38, item 12).
func OutcomeGloss(t Glosser, variant string, do sim.Action, o sim.Outcome) string {
	id := "Outcome" + string(o)
	for _, more := range []string{captionKind(variant), string(do)} {
		if more == "" {
			continue
		}
		if g := t.Maybe(id + "." + more); g != "" {
			return g
		}
	}
	return t.Maybe(id)
}

// captionKind names what the captions may say of variant's lock key.
func captionKind(variant string) string {
	switch variant {
	case "setnx-del", "get-then-del":
		return "string"
	case "local-count":
		return "local"
	}
	if info, ok := sim.Variant(variant); ok && info.CountsInRedis {
		return "count"
	}
	return ""
}

// headline says what a step does, and a detail such as its lease.
func (v *Step) headline(st *sim.StepInfo) (string, string) {
	t := v.t
	a := actorLabel(st.Actor)
	switch st.Do {
	case sim.ActAcquire:
		detail := t.T("DetailLease", "Lease", Seconds(t, st.LeaseMS))
		if st.Nested {
			detail += " · " + t.T("DetailNested")
		}
		if st.ReplyLost {
			detail += " · " + t.T("DetailReplyLost")
		}
		return t.T("HeadAcquire", "Actor", a, "Lock", st.Lock), detail
	case sim.ActRelease:
		if st.ReplyLost {
			return t.T("HeadRelease", "Actor", a, "Lock", st.Lock), t.T("DetailReplyLost")
		}
		return t.T("HeadRelease", "Actor", a, "Lock", st.Lock), ""
	case sim.ActFinishRelease:
		return t.T("HeadFinishRelease", "Actor", a, "Lock", st.Lock), ""
	case sim.ActExit:
		return t.T("HeadExit", "Actor", a), ""
	case sim.ActClockJump:
		return t.T("HeadClockJump", "By", Seconds(t, st.ByMS)), ""
	case sim.ActFailover:
		return t.T("HeadFailover"), ""
	case sim.ActLongScript:
		return t.T("HeadLongScript", "Actor", a, "By", Seconds(t, st.ByMS)), ""
	case sim.ActRestart:
		return t.T("HeadRestart", "Node", st.Node), ""
	case sim.ActWrite:
		if st.CheckOnly {
			return t.T("HeadCheckWrite", "Actor", a, "Lock", st.Lock, "Value", st.Value), ""
		}
		return t.T("HeadWrite", "Actor", a, "Lock", st.Lock, "Value", st.Value), ""
	case sim.ActFinishWrite:
		return t.T("HeadFinishWrite", "Actor", a, "Lock", st.Lock), ""
	case sim.ActPause:
		return t.T("HeadPause", "Actor", a), ""
	case sim.ActResume:
		return t.T("HeadResume", "Actor", a), ""
	case sim.ActCrash:
		return t.T("HeadCrash", "Actor", a), ""
	case sim.ActFork:
		if st.Context == "lost" {
			return t.T("HeadForkLost", "Actor", a, "Child", st.Child), ""
		}
		return t.T("HeadForkInherit", "Actor", a, "Child", st.Child), ""
	case sim.ActAdvance:
		return t.T("HeadAdvance", "By", Seconds(t, st.ByMS)), ""
	}
	return string(st.Do), ""
}

// actionName is the short localized name of an action; an action this
// version does not know is shown as the lesson file names it.
func ActionName(t Texts, a sim.Action) string {
	if s := t.Maybe("Act" + Camel(string(a))); s != "" {
		return s
	}
	return string(a)
}

// stepActionName is the short name of a step's action do on the
// timeline: a write that sends only the token check (checkOnly: lesson
// field check_then_write) is named for the check (ActCheckToken), since it
// writes nothing; the write comes at finish-write.
func stepActionName(t Texts, do sim.Action, checkOnly bool) string {
	if do == sim.ActWrite && checkOnly {
		return t.T("ActCheckToken")
	}
	return ActionName(t, do)
}

// camel turns "finish-release" into "FinishRelease", for message ids.
func Camel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// outcomeKind classes an outcome for its color; the text always says it too.
func outcomeKind(o sim.Outcome) string {
	switch o {
	case sim.Acquired, sim.Reentered, sim.Released, sim.StillHeld, sim.Accepted, sim.Renewed:
		return "good"
	case sim.Busy, sim.NotOwner, sim.NoContext, sim.Rejected, sim.Pending:
		return "warn"
	case sim.Lost, sim.TimedOut, sim.Gone, sim.ScriptBusy:
		return "bad"
	}
	return "neutral"
}
