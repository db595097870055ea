package web

import (
	"strings"
	"testing"

	"lockstep/sim"
	"lockstep/view"
)

// courseView returns the view of step cur of course lesson id in locale loc.
func courseView(t *testing.T, id string, cur int, loc sim.Locale) *view.Step {
	t.Helper()
	l := lessonByID(t, testLessons(t), id)
	frames := expectedFrames(t, l)
	if cur >= len(frames) {
		t.Fatalf("%s has %d frames, not %d", id, len(frames), cur+1)
	}
	return view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames[:cur+1], Cur: cur})
}

// TestLessonNoteApart checks issue 16 item 1.8: how Lockstep runs the
// failover lesson is its note, shown before the first step in every
// language, and no step's narration speaks of the tool.
func TestLessonNoteApart(t *testing.T) {
	t.Parallel()
	for _, loc := range sim.Locales {
		n := courseView(t, "failover", 0, loc).Narration()
		if n.Note == "" || !strings.Contains(n.Note, "redis-server") {
			t.Errorf("%s: step 0 shows no note of how the lesson runs: %q", loc, n.Note)
		}
		if n1 := courseView(t, "failover", 1, loc).Narration(); n1.Note != "" || strings.Contains(n1.Say, "Lockstep") || strings.Contains(n1.Say, "redis-server") {
			t.Errorf("%s: step 1 note %q, say %q: the tool belongs in the note", loc, n1.Note, n1.Say)
		}
	}
}
