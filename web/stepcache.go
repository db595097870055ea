package web

import (
	"context"
	"reflect"

	"lockstep/backend"
	"lockstep/sim"
)

// Step panels shared by sessions.
//
// A course lesson's frames are the same on every run (sim is deterministic,
// and the embedded backend names its keys without a run prefix), and a
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
// on, as does any run on a real Redis (its keys carry the run's prefix, which
// the panels show), an explore timeline and a drill.

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
// a course lesson on a store without a key prefix. It is called when a run
// starts.
func (s *session) canonical(ctx context.Context) {
	s.canon, s.same = nil, 0
	if s.timeline || s.store.Prefix() != "" || s.srv.byID[s.lesson.ID] != s.lesson {
		return
	}
	canon, err := lessonFrames(ctx, s.lesson)
	if err != nil {
		s.srv.logf("%v; its panels are drawn for each run", err)
		return
	}
	s.canon = canon
}

// sharable reports whether the view's step drawings may come from, and go
// to, the translator's step memo: its frames are the lesson's canonical ones
// up to cur (shared), and it has none of the inputs the memo's keys leave
// out (a key prefix, an explore timeline).
func (v *view) sharable() bool {
	return v.shared && v.prefix == "" && v.tl == (timelineView{})
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
