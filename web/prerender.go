package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"lockstep/backend"
	"lockstep/sim"
)

// firstFrames are the frames of the course's lessons, run once on an
// embedded store: the player page shows the requested step's panels from
// them before its websocket connects, and sessions share the drawings of
// runs equal to them (stepcache.go). Frames are deterministic: the run of a
// session shows the same (on a real Redis it adds the run's key prefix).
var firstFrames struct {
	sync.Mutex
	byLesson map[*sim.Lesson]*canonicalRun
}

// canonicalRun is one lesson's first run. Its own lock lets the first
// loads of different lessons run at once, while the loads of one lesson
// wait for the single run.
type canonicalRun struct {
	mu     sync.Mutex
	frames []sim.Frame // nil until a run succeeded
	// After a failed run: its error, when the next run may start, and the
	// wait after the next one fails (canonicalRetryFirst, doubling up to
	// canonicalRetryMax).
	err     error
	retryAt time.Time
	wait    time.Duration
}

// A lesson whose canonical run failed is run again no sooner than
// canonicalRetryFirst later, then after waits that double up to
// canonicalRetryMax: every load and page of the lesson asks for the run,
// and a run that fails every time (a timeout on a starved machine) must not
// be repeated and logged for each of them. Meanwhile its sessions draw
// their own panels and its pages show them loading, as for any run that
// does not share.
const (
	canonicalRetryFirst = 5 * time.Second
	canonicalRetryMax   = 5 * time.Minute
)

// canonicalWaitError is lessonFrames' error while a lesson waits to be run
// again after its canonical run failed. The failure itself was logged by
// the caller that ran it, so callers do not log this one (errors.As).
type canonicalWaitError struct {
	failed error     // the failed run's error
	until  time.Time // when the next run may start
}

func (e *canonicalWaitError) Error() string {
	return fmt.Sprintf("%v (run again from %s UTC on)", e.failed, e.until.UTC().Format(time.TimeOnly))
}

func (e *canonicalWaitError) Unwrap() error { return e.failed }

// waitingForCanonical reports whether err says that a lesson waits to run
// its canonical run again (and so was logged already).
func waitingForCanonical(err error) bool {
	var w *canonicalWaitError
	return errors.As(err, &w)
}

var (
	// runCanonical runs a lesson's canonical run: runEmbedded; tests
	// replace it to make it fail.
	runCanonical = runEmbedded
	// canonicalNow is the clock of the waits between failed runs; tests
	// replace it.
	canonicalNow = time.Now
)

// prerender renders the panels of a course lesson's step for the page; nil
// when it cannot (a drill, which is generated per seed, or a failed run),
// and the page then shows them loading.
func (s *Server) prerender(ctx context.Context, t *translator, l *sim.Lesson, step int) map[string]string {
	if s.byID[l.ID] != l {
		return nil
	}
	frames, err := lessonFrames(ctx, l)
	if err != nil {
		if !waitingForCanonical(err) {
			s.logf("%v", err)
		}
		return nil
	}
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

// lessonFrames returns the frames of l's canonical run, running it the
// first time. The run does not end with ctx (a page request the browser
// gave up on must not leave the lesson without one) but is bounded by
// stepTimeout. A run that fails is not kept: a call after the wait that
// follows its end (canonicalRetryFirst, doubling) runs it again, and a call
// before gets a *canonicalWaitError wrapping the failure.
func lessonFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	firstFrames.Lock()
	if firstFrames.byLesson == nil {
		firstFrames.byLesson = map[*sim.Lesson]*canonicalRun{}
	}
	run := firstFrames.byLesson[l]
	if run == nil {
		run = &canonicalRun{}
		firstFrames.byLesson[l] = run
	}
	firstFrames.Unlock()
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.frames != nil {
		return run.frames, nil
	}
	if run.err != nil && canonicalNow().Before(run.retryAt) {
		return nil, &canonicalWaitError{failed: run.err, until: run.retryAt}
	}
	frames, err := runCanonical(context.WithoutCancel(ctx), l)
	if err != nil {
		// The wait starts when the run ends: a run that timed out took
		// stepTimeout, longer than the first waits.
		run.wait = min(max(2*run.wait, canonicalRetryFirst), canonicalRetryMax)
		run.err = fmt.Errorf("web: lesson %s: first run: %w", l.ID, err)
		run.retryAt = canonicalNow().Add(run.wait)
		return nil, run.err
	}
	run.frames, run.err = frames, nil
	return run.frames, nil
}

// runEmbedded runs l to its end on a store of a fresh embedded backend,
// within stepTimeout.
func runEmbedded(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	be, err := backend.Open(ctx, backend.Config{})
	if err != nil {
		return nil, err
	}
	defer be.Close()
	st, err := be.NewStore()
	if err != nil {
		return nil, err
	}
	defer st.Close(context.WithoutCancel(ctx))
	r, err := sim.NewRunner(l, st)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	return r.Run(ctx)
}
