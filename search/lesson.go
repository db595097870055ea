package search

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"lockstep/explore"
	"lockstep/sim"
)

// Counterexample is the shortest timeline found that breaks one invariant,
// as a lesson that replays it.
type Counterexample struct {
	Invariant string
	// Lesson has an expect on every step, the invariant as expect_violation
	// on the last (the breaking) one, and narration in every locale.
	Lesson *sim.Lesson
	// YAML is Lesson as a lesson file (sim.MarshalLesson).
	YAML []byte
	// Frames are the frames of its replay: frame 0 and one per step.
	Frames []sim.Frame
}

// Steps is the timeline's length.
func (c *Counterexample) Steps() int { return len(c.Lesson.Steps) }

// Stem is the name of a search file without its directory and extension.
func Stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

var notID = regexp.MustCompile(`[^a-z0-9-]+`)

// lessonOf is the lesson of f's shape with id and steps.
func lessonOf(f *File, id string, steps []sim.Step) *sim.Lesson {
	return &sim.Lesson{
		ID: id, File: f.Path, Source: "lockstep search " + filepath.Base(f.Path),
		Variant: f.Variant, VariantDef: f.VariantDef, Lease: f.Lease, Fencing: f.Fencing, Lock: f.Lock, Seed: searchSeed,
		Actors: slices.Clone(f.Actors), Steps: steps,
	}
}

// counterexample turns a breaking timeline into a lesson and replays it on
// be twice: once to learn each step's outcome and narrate it, then from its
// YAML, as `lockstep run` would, which must pass.
func counterexample(ctx context.Context, be *Backend, f *File, inv string, path []sim.Step) (*Counterexample, error) {
	msgs, err := NewMessages()
	if err != nil {
		return nil, err
	}
	id := strings.Trim(notID.ReplaceAllString(strings.ToLower(Stem(f.Path)), "-"), "-")
	if id == "" {
		id = "search"
	}
	id += "-" + inv
	steps := slices.Clone(path)
	for i := range steps {
		steps[i].Pos = sim.Pos{Line: i + 1, Col: 1}
		steps[i].ActorPos = steps[i].Pos
	}
	l := lessonOf(f, id, steps)
	l.File = id + ".yaml"
	data := map[string]any{"Invariant": inv, "Steps": len(steps), "Search": Stem(f.Path), "Depth": f.Depth,
		"Actors": len(f.Actors), "Variant": f.Variant}
	l.Title = msgs.Text("lesson-title", data)
	if f.Title != nil {
		for _, loc := range sim.Locales {
			data["Search"] = f.Title.In(loc)
			l.Title[loc] = msgs.Say(loc, "lesson-title", data)
		}
	}
	l.Summary = msgs.Text("lesson-summary", data)
	frames, err := replay(ctx, be, l)
	if err != nil {
		return nil, err
	}
	last := frames[len(frames)-1]
	vi := slices.IndexFunc(last.Violations, func(v sim.Violation) bool { return v.Name == inv })
	if vi < 0 {
		return nil, fmt.Errorf("search: %s: the replay of the timeline that broke %s does not break it", f.Path, inv)
	}
	for i := range l.Steps {
		st := &l.Steps[i]
		st.Expect = frames[i+1].Outcome
		st.Say = msgs.Narration(explore.Narrate(l, st, frames[i], frames[i+1]))
	}
	br := &l.Steps[len(l.Steps)-1]
	br.ExpectViolations = []string{inv}
	why := msgs.Narration(last.Violations[vi].Detail)
	say := sim.Text{}
	for _, loc := range sim.Locales {
		sep := " "
		if loc != sim.English {
			sep = ""
		}
		say[loc] = strings.TrimSpace(br.Say.In(loc) + sep + why.In(loc))
	}
	br.Say = say
	out, err := sim.MarshalLesson(l)
	if err != nil {
		return nil, err
	}
	back, err := sim.Options{Variant: func(string) (*sim.VariantDef, error) { return f.VariantDef, nil }}.Load(l.File, out)
	if err != nil {
		return nil, fmt.Errorf("search: %s: the lesson of %s does not load: %w", f.Path, inv, err)
	}
	frames, err = replay(ctx, be, back)
	if err != nil {
		return nil, err
	}
	for i, fr := range frames[1:] {
		if fr.Check == nil || !fr.Check.OK {
			return nil, fmt.Errorf("search: %s: the lesson of %s fails its replay at step %d", f.Path, inv, i+1)
		}
	}
	return &Counterexample{Invariant: inv, Lesson: back, YAML: out, Frames: frames}, nil
}

// replay runs l on a fresh replay store of be and returns its frames.
func replay(ctx context.Context, be *Backend, l *sim.Lesson) ([]sim.Frame, error) {
	st, closeFn, err := be.replay(ctx)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	r, err := sim.NewRunner(l, st)
	if err != nil {
		return nil, fmt.Errorf("search: replay %s: %w", l.ID, err)
	}
	frames, err := r.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("search: replay %s: %w", l.ID, err)
	}
	return frames, nil
}
