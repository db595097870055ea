package web

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
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

// TestForkPageAndExportWithoutTheNote: a fork of 16c that makes its long
// script 1 s does not show or export 16c's note, which says the script
// runs 25 s: not on the player of its link, not in its YAML export;
// the lesson's own page shows it.
func TestForkPageAndExportWithoutTheNote(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	// The notes of the narration panel of the first frame the player gets.
	notes := func(load ClientMessage) int {
		zero := 0
		load.Step = &zero
		_, m := loadedSession(t, hs, load)
		return len(parseDOM(t, m.Panels[view.PanelNarration]).all(byTestID("lesson-note")))
	}
	l := lessonByID(t, testLessons(t), "long-script-blocks")
	if n := notes(ClientMessage{Lesson: l.ID}); n != 1 {
		t.Fatalf("the lesson's first frame has %d notes, want 1", n)
	}
	st, err := explore.StepSpec{Actor: "R", Do: sim.ActLongScript, ByMS: 1000}.Step(l, 2)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := explore.Timeline{Kind: explore.KindLesson, Lesson: l}.Fork(2, st)
	if err != nil {
		t.Fatal(err)
	}
	code, err := srv.encodeTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if n := notes(ClientMessage{Timeline: code}); n != 0 {
		t.Errorf("the fork's page has %d notes of the lesson", n)
	}
	yml := get("/explore/export.yaml?t=" + url.QueryEscape(code))
	back, err := sim.Load("fork.yaml", []byte(yml))
	if err != nil {
		t.Fatalf("the fork's export does not load: %v\n%s", err, yml)
	}
	if len(back.Note) != 0 {
		t.Errorf("the fork's export has the lesson's note %v", back.Note)
	}
}
