package view

import (
	"encoding/json"
	"slices"

	"lockstep/sim"
)

// Predict mode (issue #6). Before each step that has something to predict
// (an acquire, a release, a finish-release or a write), the player asks the
// learner which outcome the step will come to, offering the outcomes below;
// then it sends the step, and the outcome it reveals is the one of the
// frame the run really produced. Everything else (the score, retrying the
// misses) lives in the page's script and localStorage: the server only
// describes the steps, in the player page's data-predict-steps attribute.

// PredictStep is one step of the data-predict-steps attribute.
type PredictStep struct {
	Do       sim.Action    `json:"do"`
	Actor    string        `json:"actor"`
	Lock     string        `json:"lock"`
	Outcomes []sim.Outcome `json:"outcomes"`
	// CheckOnly marks a write that sends only the token check (lesson
	// field check_then_write): the question names it by the gloss
	// "act:check-token", not "act:write".
	CheckOnly bool `json:"check_only,omitempty"`
	// Why is the step's "why" question (lesson field why) in every locale
	// of the catalogue, asked once the outcome is revealed; Because are its
	// reasons in the order shown, Right the index of the right one among
	// them. Absent for a step without one.
	Why     map[sim.Locale]string   `json:"why,omitempty"`
	Because []map[sim.Locale]string `json:"because,omitempty"`
	Right   int                     `json:"right,omitempty"`
	// Pause tells Play (static/play.js) to stop before the step: its
	// outcome is worth predicting (WorthPredicting).
	Pause bool `json:"pause,omitempty"`
}

// PredictOutcomes returns the outcomes the buttons offer before step st of
// l, or nil when there is nothing to predict (the action has one outcome).
// They are sim.OutcomesFor(st.Do) without those the step cannot come to
// whatever Redis replies: TIMED_OUT only for a call whose reply is lost,
// PENDING only for the first round trip of a two-step release or of a
// check_then_write write (whose check is never ACCEPTED), NO_CONTEXT
// only in a lesson where some fork loses its context, NOT_OWNER for an
// acquire only when it is declared nested, CROSSSLOT only in a lesson
// with cluster: true.
func PredictOutcomes(l *sim.Lesson, st sim.Step) []sim.Outcome {
	all := sim.OutcomesFor(st.Do)
	if len(all) < 2 {
		return nil
	}
	info, _ := sim.LessonVariant(l)
	lostContext := slices.ContainsFunc(l.Steps, func(s sim.Step) bool { return s.Do == sim.ActFork && s.Context == "lost" })
	var out []sim.Outcome
	for _, o := range all {
		switch o {
		case sim.TimedOut:
			if !st.ReplyLost {
				continue
			}
		case sim.Pending:
			if !(info.TwoStepRelease && st.Do == sim.ActRelease) && !(checkOnly(l, st)) {
				continue
			}
		case sim.Accepted:
			if checkOnly(l, st) {
				continue
			}
		case sim.NoContext:
			if !lostContext {
				continue
			}
		case sim.NotOwner:
			if st.Do == sim.ActAcquire && !st.Nested {
				continue
			}
		case sim.CrossSlot:
			if !l.Cluster {
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// checkOnly reports whether st is a write that sends only the token check
// (lesson field check_then_write).
func checkOnly(l *sim.Lesson, st sim.Step) bool {
	return st.Do == sim.ActWrite && l.Fencing && l.CheckThenWrite
}

// PredictSteps is the JSON of the data-predict-steps attribute: one entry
// per step, null where there is nothing to predict. The texts of a why
// question come in every locale of sim.Locales (a language switch on the
// page keeps the attribute), each as Text.In gives it.
func PredictSteps(l *sim.Lesson) string {
	steps := make([]*PredictStep, len(l.Steps))
	for i, st := range l.Steps {
		if outs := PredictOutcomes(l, st); outs != nil {
			steps[i] = &PredictStep{Do: st.Do, Actor: st.Actor, Lock: st.Lock, Outcomes: outs, CheckOnly: checkOnly(l, st), Pause: WorthPredicting(st)}
			if st.Why != nil && len(st.Because) > 1 {
				steps[i].Why = inLocales(st.Why)
				steps[i].Because, steps[i].Right = reasonsShown(st.Because, i)
			}
		}
	}
	b, _ := json.Marshal(steps)
	return string(b)
}

// ordinaryOutcomes are the outcomes a step comes to when nothing goes
// wrong: the lock taken, re-entered or given back, the write accepted.
var ordinaryOutcomes = []sim.Outcome{sim.Acquired, sim.Reentered, sim.Released, sim.StillHeld, sim.Accepted, sim.OK}

// WorthPredicting reports whether Play should stop before step st, one
// with something to predict (PredictOutcomes), so that the learner can
// guess its outcome (issue 38, item 14): the lesson asks why of it (why)
// or names a misconception there, or it asserts an outcome other than the
// ordinary ones (BUSY, NOT_OWNER, REJECTED, LOST, ...), which is where the
// story turns.
func WorthPredicting(st sim.Step) bool {
	if len(st.Why) > 0 || len(st.Misconception) > 0 {
		return true
	}
	return st.Expect != "" && !slices.Contains(ordinaryOutcomes, st.Expect)
}

// PredictGlosses is the JSON of the controls' data-glosses attribute: the
// gloss of every outcome a prediction may offer, and the name of every
// action under "act:<action>" (and a write that only checks its token under
// "act:check-token"), in t's language.
func PredictGlosses(t Texts) string {
	m := map[string]string{}
	for _, a := range sim.Actions {
		for _, o := range sim.OutcomesFor(a) {
			if g := t.Maybe("Outcome" + string(o)); g != "" {
				m[string(o)] = g
			}
		}
		m["act:"+string(a)] = ActionName(t, a)
	}
	m["act:check-token"] = stepActionName(t, sim.ActWrite, true)
	b, _ := json.Marshal(m)
	return string(b)
}

// reasonsShown puts the reasons of the why question of step i (0-based; the
// right reason first, as the lesson writes them) in the order the player
// shows them, rotated by the step's place so that the right one is not
// always first, and returns them with the index of the right one.
func reasonsShown(because []sim.Text, i int) ([]map[sim.Locale]string, int) {
	n := len(because)
	r := (i + 1) % n
	out := make([]map[sim.Locale]string, n)
	for k := range out {
		out[k] = inLocales(because[(k+r)%n])
	}
	return out, (n - r) % n
}

// inLocales is t in every locale of sim.Locales.
func inLocales(t sim.Text) map[sim.Locale]string {
	m := make(map[sim.Locale]string, len(sim.Locales))
	for _, l := range sim.Locales {
		m[l] = t.In(l)
	}
	return m
}
