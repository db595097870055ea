package web

import (
	"io"
	"net/http"
	"net/url"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
)

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
