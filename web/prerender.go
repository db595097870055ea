package web

import (
	"context"
	"sync"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
)

// frameCache keeps the frames of the course's lessons, one run each, by
// lesson id: the player page shows a deep link's step from them before its
// websocket connects, and the interview pages draw their timelines and
// diagram from them. Frames are deterministic, so a session's own run shows
// the same. It holds at most one entry per course lesson (a fixed set),
// never a drill's or an explore timeline's. It is the server's only cache;
// BenchmarkPlayerPageClass (docs/performance.md) shows what it saves.
type frameCache struct {
	off  bool // every call runs the lesson (the benchmark's baseline)
	mu   sync.Mutex
	runs map[string]*cachedRun
}

// cachedRun is one lesson's entry. Its own lock lets the first pages of
// different lessons run at once, while the pages of one lesson wait for its
// single run.
type cachedRun struct {
	mu     sync.Mutex
	frames []sim.Frame // nil until a run succeeded
}

// lessonFrames returns every frame of course lesson l, running it the first
// time on a store of the server's backend. The run does not end with ctx (a
// page request the browser gave up on must not waste the run) but is
// bounded by runTimeout. A run that fails is not kept: the next call runs
// the lesson again.
func (s *Server) lessonFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	c := &s.frames
	if c.off {
		return s.runFrames(context.WithoutCancel(ctx), l)
	}
	c.mu.Lock()
	if c.runs == nil {
		c.runs = map[string]*cachedRun{}
	}
	run := c.runs[l.ID]
	if run == nil {
		run = &cachedRun{}
		c.runs[l.ID] = run
	}
	c.mu.Unlock()
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.frames != nil {
		return run.frames, nil
	}
	frames, err := s.runFrames(context.WithoutCancel(ctx), l)
	if err != nil {
		return nil, err
	}
	run.frames = frames
	return frames, nil
}

// prerender renders the panels of a course lesson's step for the page; nil
// when it cannot (a drill, which is generated per seed, or a failed run),
// and the page then shows them loading.
func (s *Server) prerender(ctx context.Context, t *translator, tl explore.Timeline, step int) map[string]string {
	if tl.Kind != explore.KindLesson {
		return nil
	}
	l := tl.Lesson
	frames, err := s.lessonFrames(ctx, l)
	if err != nil {
		s.logf("web: lesson %s: %v", l.ID, err)
		return nil
	}
	if len(frames) <= step {
		return nil
	}
	v := view.New(view.Input{Texts: t, Lesson: l, Frames: frames[:step+1], Cur: step, Info: s.cfg.Backend.Info()})
	panels, err := v.Panels(ctx)
	if err != nil {
		s.logf("web: prerender %s step %d: %v", l.ID, step, err)
		return nil
	}
	return panels
}
