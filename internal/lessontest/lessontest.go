// Package lessontest holds the small helpers that tests running lessons
// share: opening a backend for one test and comparing lessons apart from
// where they were read. It is for tests only.
package lessontest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"lockstep/backend"
	"lockstep/lessons"
	"lockstep/sim"
)

// Open opens the backend cfg names (the embedded Redis for a zero Config)
// and closes it when the test ends; an error opening it fails the test.
func Open(tb testing.TB, cfg backend.Config) *backend.Backend {
	tb.Helper()
	be, err := backend.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { be.Close() })
	return be
}

// WithoutPositions returns a copy of l without its File and the positions
// of its actors and steps: what a lesson keeps when it is exported or shared
// and read back.
func WithoutPositions(l *sim.Lesson) *sim.Lesson {
	c := *l
	c.File = ""
	c.Actors = slices.Clone(l.Actors)
	for i := range c.Actors {
		c.Actors[i].Pos = sim.Pos{}
	}
	c.Steps = slices.Clone(l.Steps)
	for i := range c.Steps {
		c.Steps[i].Pos, c.Steps[i].ActorPos = sim.Pos{}, sim.Pos{}
	}
	return &c
}

// Store returns a fresh store of be for one run, closed (its keys deleted)
// when the test ends; an error opening it fails the test.
func Store(tb testing.TB, be *backend.Backend) *backend.Store {
	tb.Helper()
	st, err := be.NewStore()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close(context.Background()) })
	return st
}

// Run runs l to its end on a fresh store of be, which it closes before it
// returns, and gives the frames (frames[0] is the start) and the
// expectations that did not hold. A run error, or an error closing the
// store, fails the test, naming the lesson and the backend.
func Run(tb testing.TB, be *backend.Backend, l *sim.Lesson) ([]sim.Frame, []sim.Failure) {
	tb.Helper()
	ctx := context.Background()
	st, err := be.NewStore()
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := st.Close(ctx); err != nil {
			tb.Error(err)
		}
	}()
	r, err := sim.NewRunner(l, st)
	if err != nil {
		tb.Fatal(err)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		tb.Fatalf("%s on %s: %v", l.ID, be.Info(), err)
	}
	return frames, r.Failures()
}

// Complete reports, as errors of tb, each locale of sim.Locales that text
// tx (the what of lesson name: "title", "summary") has no words in.
func Complete(tb testing.TB, name, what string, tx sim.Text) {
	tb.Helper()
	for _, loc := range sim.Locales {
		if tx[loc] == "" {
			tb.Errorf("%s: %s has no %s text", name, what, loc)
		}
	}
}

// FramesWithoutLines returns a copy of frames with the steps' file lines
// zeroed: the one thing a frame of an exported or shared lesson, which keeps
// no positions, may differ in.
func FramesWithoutLines(frames []sim.Frame) []sim.Frame {
	out := slices.Clone(frames)
	for i := range out {
		if out[i].Step != nil {
			st := *out[i].Step
			st.Line = 0
			out[i].Step = &st
		}
	}
	return out
}

// ByStatus splits the actors of order (creation order) by their status in
// a generated lesson: those running and those paused, each in order; the
// others (not yet forked, crashed, exited) are in neither.
func ByStatus[S comparable](order []string, status map[string]S, running, paused S) (run, pau []string) {
	for _, id := range order {
		switch status[id] {
		case running:
			run = append(run, id)
		case paused:
			pau = append(pau, id)
		}
	}
	return run, pau
}

// Course returns the embedded course (lessons.All); an error loading it
// fails the test.
func Course(tb testing.TB) []*sim.Lesson {
	tb.Helper()
	all, err := lessons.All()
	if err != nil {
		tb.Fatal(err)
	}
	return all
}

// Files returns the course's lesson files, ../lessons/*.yaml: the paths as
// a test of a package at the module's top level (cli, catalog) names them.
// No file, or a bad pattern, fails the test.
func Files(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("../lessons/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no lessons: %v", err)
	}
	return files
}
