package search

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"lockstep/sim"
)

// ErrInvalid is wrapped by every error Parse and Load return for a file that
// breaks the search format; test with errors.Is.
var ErrInvalid = errors.New("search: invalid search file")

// Errors is every problem of one search file, in file order, each as
// FILE:LINE:COL: message.
type Errors []sim.LoadError

func (es Errors) Error() string { return sim.LoadErrors(es).Error() }

// Is makes errors.Is(Errors, ErrInvalid) hold.
func (es Errors) Is(target error) bool { return target == ErrInvalid }

// sortErrors names path in every problem, sorts them by position and drops
// a second problem at a position already reported (a value the decoder could
// not read is not also reported as missing or out of range).
func sortErrors(errs sim.LoadErrors, path string) sim.LoadErrors {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Pos, errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	out := errs[:0]
	for i, e := range errs {
		if i > 0 && e.Pos == errs[i-1].Pos {
			continue
		}
		e.File = path
		out = append(out, e)
	}
	return sim.CapProblems(out)
}

var (
	actorIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

// Validate checks f, as Decode returned it, against every rule of the search format and returns
// the problems (none when f is valid). It is the format's one validator:
// Decode only parses. Missing optional fields are fine (Defaults fills
// them); a field given with a bad value is not.
func Validate(f *File) sim.LoadErrors {
	var errs sim.LoadErrors
	at := func(p sim.Pos) sim.Pos {
		if p == (sim.Pos{}) {
			if f.at.top != (sim.Pos{}) {
				return f.at.top
			}
			return sim.Pos{Line: 1, Col: 1}
		}
		return p
	}
	bad := func(p sim.Pos, format string, args ...any) {
		errs = append(errs, sim.LoadError{Pos: at(p), Msg: fmt.Sprintf(format, args...)})
	}
	locales := func(what string, pos map[string]sim.Pos) {
		for k := range pos {
			if !sim.ValidLocale(k) {
				bad(pos[k], "%s: unknown locale %q (want en, zh-CN or zh-TW)", what, k)
			}
		}
	}
	locales("title", f.at.title)
	switch {
	case f.Variant == "" && f.at.variant == (sim.Pos{}):
		bad(sim.Pos{}, "missing required field \"variant\"")
	case f.VariantDef != nil:
		// A variant file, checked when it was loaded.
	case !slices.Contains(sim.Variants(), f.Variant):
		bad(f.at.variant, "unknown variant %q (want one of %s)", f.Variant, strings.Join(sim.Variants(), ", "))
	}
	switch {
	case f.at.lease == (sim.Pos{}):
		bad(sim.Pos{}, "missing required field \"lease\"")
	case f.Lease <= 0:
		bad(f.at.lease, "lease: duration must be greater than zero, got %s", f.Lease)
	case f.Lease%time.Millisecond != 0:
		bad(f.at.lease, "lease: Redis leases count whole milliseconds, got %s", f.Lease)
	}
	// sim's lock-name rule, with its messages: a search's lock is a lesson's.
	switch {
	case f.at.lock == (sim.Pos{}):
	case f.Lock == "":
		errs = append(errs, sim.LoadError{Pos: at(f.at.lock), Problem: sim.M("lesson.lock-empty", "Field", "lock"), Msg: "lock: lock name must not be empty"})
	case !sim.ValidLockName(f.Lock):
		errs = append(errs, sim.LoadError{Pos: at(f.at.lock), Problem: sim.M("lesson.lock-name", "Field", "lock", "Max", sim.MaxLockName),
			Msg: fmt.Sprintf("lock: a lock name is 1 to %d bytes of text without control characters", sim.MaxLockName)})
	}
	switch {
	case f.at.actors == (sim.Pos{}):
		bad(sim.Pos{}, "missing required field \"actors\"")
	case len(f.Actors) == 0 || len(f.Actors) > MaxActors:
		bad(f.at.actors, "actors: want 1 to %d actors, got %d", MaxActors, len(f.Actors))
	}
	seen := map[string]bool{}
	for i, a := range f.Actors {
		var ap actorPos
		if i < len(f.at.actor) {
			ap = f.at.actor[i]
		}
		switch {
		case ap.id == (sim.Pos{}):
			bad(ap.at, "actor: missing required field \"id\"")
		case !actorIDPattern.MatchString(a.ID):
			bad(ap.id, "actor id %q: want a letter, then letters, digits, '_' and '-'", a.ID)
		case seen[a.ID]:
			bad(ap.id, "duplicate actor id %q", a.ID)
		}
		seen[a.ID] = true
		locales("actor "+a.ID+" name", ap.name)
		if ap.instance != (sim.Pos{}) && a.Instance == "" {
			bad(ap.instance, "actor %s: instance must not be empty", a.ID)
		}
		if ap.requestID != (sim.Pos{}) && a.RequestID == "" {
			bad(ap.requestID, "actor %s: request_id must not be empty", a.ID)
		}
	}
	if f.at.moves != (sim.Pos{}) && len(f.Moves) == 0 {
		bad(f.at.moves, "moves: want at least one move")
	}
	names := make([]string, len(Moves))
	for i, m := range Moves {
		names[i] = string(m)
	}
	for i, m := range f.Moves {
		switch {
		case m == "advance":
			bad(posAt(f.at.move, i), "moves: advance is not a move; list the clock moves under advance:")
		case !slices.Contains(Moves, m):
			bad(posAt(f.at.move, i), "moves: unknown move %q (want %s)", m, strings.Join(names, ", "))
		case slices.Contains(f.Moves[:i], m):
			bad(posAt(f.at.move, i), "moves: %q is listed twice", m)
		}
	}
	for i, d := range f.Advance {
		switch {
		case d <= 0:
			bad(posAt(f.at.advanceAt, i), "advance: duration must be greater than zero, got %s", d)
		case d%time.Millisecond != 0:
			bad(posAt(f.at.advanceAt, i), "advance: the clock moves in whole milliseconds, got %s", d)
		case slices.Contains(f.Advance[:i], d):
			bad(posAt(f.at.advanceAt, i), "advance: %s is listed twice", d)
		}
	}
	if f.at.depth != (sim.Pos{}) && (f.Depth < 1 || f.Depth > MaxDepth) {
		bad(f.at.depth, "depth: want 1 to %d steps, got %d", MaxDepth, f.Depth)
	}
	if f.at.invariants != (sim.Pos{}) && len(f.Invariants) == 0 {
		bad(f.at.invariants, "invariants: want at least one invariant")
	}
	for i, inv := range f.Invariants {
		switch {
		case !slices.Contains(sim.Invariants, inv):
			bad(posAt(f.at.invariant, i), "invariants: unknown invariant %q (want %s)", inv, strings.Join(sim.Invariants, ", "))
		case slices.Contains(f.Invariants[:i], inv):
			bad(posAt(f.at.invariant, i), "invariants: %q is listed twice", inv)
		}
	}
	return errs
}

// posAt is ps[i], or the zero Pos past its end.
func posAt(ps []sim.Pos, i int) sim.Pos {
	if i < len(ps) {
		return ps[i]
	}
	return sim.Pos{}
}
