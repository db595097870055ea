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
// the same. Each entry also keeps the drawings of that run's steps (step
// panels, lane labels, timeline columns) by language, drawn when a session
// first shows them, for every session whose run's frames so far are these
// (session.sharedUpTo): a class stepping through a lesson draws each step
// once, not once per learner. It holds at most one entry per course lesson
// (a fixed set), never a drill's or an explore timeline's, and an entry's
// drawings are bounded by the lesson's steps and the locales. It is the
// server's only cache; BenchmarkPlayerPageClass and BenchmarkClassSteps
// (docs/performance.md) show what it saves.
type frameCache struct {
	off      bool // every call runs the lesson (the benchmark's baseline)
	noShared bool // sessions draw every step themselves (the benchmark's baseline)
	mu       sync.Mutex
	runs     map[string]*cachedRun
}

// cachedRun is one lesson's entry. Its own lock lets the first pages of
// different lessons run at once, while the pages of one lesson wait for its
// single run.
type cachedRun struct {
	mu     sync.Mutex
	frames []sim.Frame // nil until a run succeeded

	drawMu sync.Mutex // guards the drawings, apart from mu, which a run holds
	panels map[panelKey]string
	cols   map[columnKey]view.TimelineColumnPatch
}

// panelKey names a panel (or, with labelsPanel, the lane labels) of a step
// of the run, in a language.
type panelKey struct {
	locale sim.Locale
	step   int
	name   string
}

// columnKey names a timeline column of the run, past or future, in a
// language.
type columnKey struct {
	locale sim.Locale
	col    int
	past   bool
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
	run := c.entry(l.ID)
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

// entry is the entry of course lesson id, made empty the first time.
func (c *frameCache) entry(id string) *cachedRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]*cachedRun{}
	}
	run := c.runs[id]
	if run == nil {
		run = &cachedRun{}
		c.runs[id] = run
	}
	return run
}

// canonical returns the frames that a session's run of tl may share
// drawings with: those of the course lesson's cached run, nil when tl is no
// course lesson or sharing is off (then the session draws every step).
func (s *Server) canonical(ctx context.Context, tl explore.Timeline) []sim.Frame {
	if tl.Kind != explore.KindLesson || s.frames.off || s.frames.noShared {
		return nil
	}
	frames, err := s.lessonFrames(ctx, tl.Lesson)
	if err != nil {
		s.logf("web: lesson %s: %v; its steps are drawn for each run", tl.Lesson.ID, err)
		return nil
	}
	return frames
}

// drawings returns the drawings of step step of course lesson id's cached
// run in locale loc, for a session whose frames up to step are that run's.
func (s *Server) drawings(id string, loc sim.Locale, step int) view.Drawings {
	return stepDrawings{run: s.frames.entry(id), locale: loc, step: step}
}

// stepDrawings are the drawings of one step of a cached run in one
// language: view.Drawings.
type stepDrawings struct {
	run    *cachedRun
	locale sim.Locale
	step   int
}

func (d stepDrawings) Panel(name string, draw func() (string, error)) (string, error) {
	return keep(d.run, &d.run.panels, panelKey{d.locale, d.step, name}, draw)
}

// labelsPanel is the name the lane labels are kept by, beside the panels'.
const labelsPanel = "timeline-labels"

func (d stepDrawings) Labels(draw func() (string, error)) (string, error) {
	return keep(d.run, &d.run.panels, panelKey{d.locale, d.step, labelsPanel}, draw)
}

func (d stepDrawings) Column(col int, past bool, draw func() (view.TimelineColumnPatch, error)) (view.TimelineColumnPatch, error) {
	return keep(d.run, &d.run.cols, columnKey{d.locale, col, past}, draw)
}

// keep returns (*m)[k] under run's drawing lock, or draws it without the
// lock (two sessions may both draw a step the first time; they draw the
// same) and keeps it.
func keep[K comparable, V any](run *cachedRun, m *map[K]V, k K, draw func() (V, error)) (V, error) {
	run.drawMu.Lock()
	v, ok := (*m)[k]
	run.drawMu.Unlock()
	if ok {
		return v, nil
	}
	v, err := draw()
	if err != nil {
		return v, err
	}
	run.drawMu.Lock()
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	run.drawMu.Unlock()
	return v, nil
}

// drawnBytes is the size of the drawings the cache holds, in bytes of
// HTML.
func (c *frameCache) drawnBytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, run := range c.runs {
		run.drawMu.Lock()
		for _, html := range run.panels {
			n += len(html)
		}
		for _, col := range run.cols {
			n += len(col.Back) + len(col.Mid) + len(col.Front)
		}
		run.drawMu.Unlock()
	}
	return n
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
