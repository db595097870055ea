package web

import (
	"errors"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
)

// TestForkStepErrorsLocalised: a fork whose action explore refuses (a
// duration out of bounds, a field the action does not take) is answered in
// the session's language with the catalogue's words for the step and the
// field, as StepSpec.Step's problems are rendered, not with the Go error's
// prefixes; the same fork in the other languages says it in theirs.
func TestForkStepErrorsLocalised(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	l := lessonByID(t, testLessons(t), "stale-owner")
	for _, spec := range []explore.StepSpec{
		{Actor: "A", Do: sim.ActLongScript, ByMS: -5},
		{Actor: "A", Do: sim.ActLongScript, ByMS: explore.MaxAdvanceMS + 1},
		{Do: sim.ActAdvance, ByMS: -5},
		{Actor: "A", Do: sim.ActLongScript, ByMS: 1000, Lock: "x"},
		{Do: sim.ActAdvance, ByMS: 1000, Lock: "x"},
	} {
		_, stepErr := spec.Step(l, 2)
		var se *explore.StepError
		if !errors.As(stepErr, &se) || len(se.Problems) != 1 {
			t.Fatalf("%+v: StepSpec.Step: %v", spec, stepErr)
		}
		for _, lang := range sim.Locales {
			at := 2
			c, _ := loadedSession(t, hs, ClientMessage{Lesson: "stale-owner", Lang: string(lang), Step: &at})
			c.send(ClientMessage{Type: MsgFork, ID: 7, At: &at, Action: &spec})
			e := c.expect(MsgError)
			// Step 3, then the problem, in the catalogue's words.
			cat := srv.translators.cat
			want := cat.Where(lang, se.Problems[0]) + cat.T(lang, "error.sep") + cat.Message(lang, se.Problems[0])
			if e.Re != 7 || e.Code != ErrCodeBadStep || e.Message != want {
				t.Errorf("%s %+v: %+v, want message %q", lang, spec, e, want)
			}
		}
	}
}
