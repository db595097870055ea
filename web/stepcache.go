package web

import (
	"context"
	"reflect"
	"slices"

	"lockstep/backend"
	"lockstep/sim"
)

// Step panels shared by sessions.
//
// A course lesson's frames are the same on every run (sim is deterministic,
// and a frame names keys without the run's prefix, on either backend), and a
// step's panels depend only on the lesson, the frames up to the step, the
// language and the backend's description (view). So the panels a step
// draws are drawn once per process and language and then served to every
// session that reaches the step with the same frames: a class stepping
// through the same lesson costs one drawing per step, not one per learner.
//
// "The same frames" is checked, not assumed: a session compares each frame
// its run makes with the lesson's canonical run (lessonFrames, the run that
// pre-renders the player page) and shares only while every frame so far is
// equal (reflect.DeepEqual, a few µs a frame). A run that differs (which
// would be a determinism bug, and is logged) draws its own panels from then
// on, as do an explore timeline and a drill.
//
// A run on a real Redis shares too: its frames are the embedded canonical
// run's (the same frames on both backends; its keys' names in a frame carry
// no prefix). Only the Redis panel names the run's key prefix, so each run
// with a prefix draws that panel itself (ownPanel), and the memo keeps a
// Redis panel only as drawn without a prefix.

// stepKey names the step panels of one step of a lesson's canonical run in
// a translator's step memo.
type stepKey struct {
	lesson *sim.Lesson
	info   backend.Info
	step   int
}

// timelineKey names a timeline column (past: drawn from its frames; else a
// step not reached yet) or, with labels, the lane labels at step col, of a
// lesson's canonical run, in a translator's step memo.
type timelineKey struct {
	lesson *sim.Lesson
	info   backend.Info
	col    int
	past   bool
	labels bool
}

// canonical sets up the session's run to share step panels when it may:
// a course lesson, not an explore timeline. It is called when a run starts.
func (s *session) canonical(ctx context.Context) {
	s.canon, s.same = nil, 0
	if s.timeline || s.srv.byID[s.lesson.ID] != s.lesson {
		return
	}
	canon, err := lessonFrames(ctx, s.lesson)
	if err != nil {
		if !waitingForCanonical(err) {
			s.srv.logf("%v; its panels are drawn for each run", err)
		}
		return
	}
	s.canon = canon
}

// sharable reports whether the view's step drawings may come from, and go
// to, the translator's step memo: its frames are the lesson's canonical ones
// up to cur (shared), and it has no explore timeline (an input the memo's
// keys leave out). A key prefix, the other such input, changes one panel
// only: see ownPanel.
func (v *view) sharable() bool {
	return v.shared && v.tl == (timelineView{})
}

// ownPanel reports whether the view draws the named step panel itself even
// when the memo has it, and keeps it out of the memo: the Redis panel of a
// run with a key prefix, which names the prefix.
func (v *view) ownPanel(name string) bool {
	return name == panelRedis && v.prefix != ""
}

// sharedPanel reports whether the view's named panel is the same HTML for
// every session that shares the step: a step panel of a sharable view that
// is not its own. A frame message quotes such HTML once (framejson.go).
func (v *view) sharedPanel(name string) bool {
	return v.sharable() && !v.ownPanel(name) && slices.Contains(stepPanels, name)
}

// sharedUpTo reports whether the run's frames up to step cur are the
// lesson's canonical ones, comparing the frames not compared yet.
func (s *session) sharedUpTo(cur int) bool {
	if s.canon == nil {
		return false
	}
	frames := s.runner.Frames()
	for s.same <= cur && s.same < len(frames) && s.same < len(s.canon) {
		if !reflect.DeepEqual(frames[s.same], s.canon[s.same]) {
			s.srv.logf("web: lesson %s: step %d of this run differs from the lesson's first run; its panels are drawn for this run only", s.lesson.ID, s.same)
			s.canon, s.same = nil, 0
			return false
		}
		s.same++
	}
	return cur < s.same
}
