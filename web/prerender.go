package web

import (
	"context"
	"sync"

	"lockstep/backend"
	"lockstep/sim"
)

// firstFrames are the frames of the course's lessons, run once on an
// embedded store, so that the player page can show the requested step's
// panels before its websocket connects. Frames are deterministic: the run
// of the session shows the same (on a real Redis it adds the run's key
// prefix).
var firstFrames struct {
	sync.Mutex
	byLesson map[*sim.Lesson][]sim.Frame
}

// prerender renders the panels of a course lesson's step for the page; nil
// when it cannot (a drill, which is generated per seed, or a failed run),
// and the page then shows them loading.
func (s *Server) prerender(ctx context.Context, t *translator, l *sim.Lesson, step int) map[string]string {
	if s.byID[l.ID] != l {
		return nil
	}
	frames := lessonFrames(ctx, l)
	if len(frames) <= step {
		return nil
	}
	// The lesson's canonical frames: the step panels are those its sessions
	// share (stepcache.go).
	v := &view{t: t, lesson: l, frames: frames[:step+1], cur: step, info: s.cfg.Backend.Info(), shared: true}
	panels, err := v.panels(ctx)
	if err != nil {
		s.logf("web: prerender %s step %d: %v", l.ID, step, err)
		return nil
	}
	return panels
}

func lessonFrames(ctx context.Context, l *sim.Lesson) []sim.Frame {
	firstFrames.Lock()
	defer firstFrames.Unlock()
	if f, ok := firstFrames.byLesson[l]; ok {
		return f
	}
	if firstFrames.byLesson == nil {
		firstFrames.byLesson = map[*sim.Lesson][]sim.Frame{}
	}
	frames := runEmbedded(ctx, l)
	firstFrames.byLesson[l] = frames
	return frames
}

func runEmbedded(ctx context.Context, l *sim.Lesson) []sim.Frame {
	be, err := backend.Open(ctx, backend.Config{})
	if err != nil {
		return nil
	}
	defer be.Close()
	st, err := be.NewStore()
	if err != nil {
		return nil
	}
	defer st.Close(context.WithoutCancel(ctx))
	r, err := sim.NewRunner(l, st)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	frames, err := r.Run(ctx)
	if err != nil {
		return nil
	}
	return frames
}
