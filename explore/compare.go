package explore

import (
	"context"
	"fmt"
	"slices"

	"lockstep/sim"
)

// StoreOpener opens a fresh store for one run and returns a function that
// deletes its keys and closes it (sim.StoreOpener). *backend.Backend fits
// through a small adapter in package web; tests pass an embedded one.
type StoreOpener = sim.StoreOpener

// Side is one variant's run of a compared timeline.
type Side struct {
	Variant string
	Lesson  *sim.Lesson // the timeline under this variant
	Frames  []sim.Frame // frames[0] is the start
}

// RunError is a side of Compare whose run failed: Variant names it, Def
// is the variant file it ran (nil for a built-in variant without one), so
// that a caller can explain an error the file's design causes (the owner
// id in KEYS: backend.ExplainOwnerInKeys); Err is the run's error.
type RunError struct {
	Variant string
	Def     *sim.VariantDef
	Err     error
}

func (e *RunError) Error() string { return fmt.Sprintf("explore: compare %s: %v", e.Variant, e.Err) }
func (e *RunError) Unwrap() error { return e.Err }

// Comparison is one timeline run under two variants.
type Comparison struct {
	A, B Side
	// FirstDiff is the first step (1-based) whose outcomes differ, 0 when
	// every step came out the same.
	FirstDiff int
	// Diffs marks every step whose outcomes differ, by step number.
	Diffs map[int]bool
}

// Compare runs timeline l under variants a and b, each on a store of its
// own from open, and compares the steps' outcomes. The steps' expectations
// are dropped (they were written for one variant), everything else is l's,
// seed included, so the two runs draw the same tokens. A variant under
// which the timeline cannot run is an error that names it; a failed store
// or Redis call is wrapped. A variant named as one of defs (a learner's own
// lock) runs that variant file. A failed run is a *RunError.
func Compare(ctx context.Context, l *sim.Lesson, a, b string, open StoreOpener, defs ...*sim.VariantDef) (*Comparison, error) {
	c := &Comparison{Diffs: map[int]bool{}}
	for i, v := range []string{a, b} {
		side, err := runAs(ctx, l, v, open, defs)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			c.A = side
		} else {
			c.B = side
		}
	}
	for i := 1; i < len(c.A.Frames) && i < len(c.B.Frames); i++ {
		if c.A.Frames[i].Outcome != c.B.Frames[i].Outcome {
			c.Diffs[i] = true
			if c.FirstDiff == 0 {
				c.FirstDiff = i
			}
		}
	}
	return c, nil
}

// AsVariant returns a copy of l under variant v with the steps'
// expectations dropped: v is a built-in variant, or l's own variant (its
// variant file, when l runs one).
func AsVariant(l *sim.Lesson, v string) (*sim.Lesson, error) {
	var def *sim.VariantDef
	if v == l.Variant {
		def = l.VariantDef
	}
	return under(l, v, def)
}

// AsLock returns a copy of l under the variant file def (a learner's own
// lock) with the steps' expectations dropped.
func AsLock(l *sim.Lesson, def *sim.VariantDef) (*sim.Lesson, error) {
	return under(l, def.Name, def)
}

func under(l *sim.Lesson, v string, def *sim.VariantDef) (*sim.Lesson, error) {
	out := *l
	out.Variant, out.VariantDef = v, def
	out.Steps = slices.Clone(l.Steps)
	for i := range out.Steps {
		out.Steps[i].Expect = ""
		out.Steps[i].ExpectViolations = nil
	}
	if err := (sim.Options{AnyLocale: true}).Validate(&out); err != nil {
		return nil, rulesBroken(err, sim.M("explore.compare.under", "Variant", v), "under "+v)
	}
	return &out, nil
}

func runAs(ctx context.Context, l *sim.Lesson, v string, open StoreOpener, defs []*sim.VariantDef) (Side, error) {
	lv, err := AsVariant(l, v)
	if i := slices.IndexFunc(defs, func(d *sim.VariantDef) bool { return d.Name == v }); i >= 0 {
		lv, err = AsLock(l, defs[i])
	}
	if err != nil {
		return Side{}, err
	}
	frames, err := sim.RunFrames(ctx, lv, open)
	if err != nil {
		return Side{}, &RunError{Variant: v, Def: lv.VariantDef, Err: err}
	}
	return Side{Variant: v, Lesson: lv, Frames: frames}, nil
}
