package search

import (
	"errors"
	"fmt"
	"maps"
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

// sortErrors names path in every problem that names no file of its own (a
// problem of the variant file the search names, or of one of its scripts,
// keeps that file's name: its line and column are that file's), sorts them
// by file (the search file first) and position, and drops a second problem
// at a place already reported (a value the decoder could not read is not
// also reported as missing or out of range).
func sortErrors(errs sim.LoadErrors, path string) sim.LoadErrors {
	rank := map[string]int{path: 0} // files in the order first named
	for i := range errs {
		if errs[i].File == "" {
			errs[i].File = path
		}
		if _, ok := rank[errs[i].File]; !ok {
			rank[errs[i].File] = len(rank)
		}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i], errs[j]
		if a.File != b.File {
			return rank[a.File] < rank[b.File]
		}
		return a.Pos.Line < b.Pos.Line || a.Pos.Line == b.Pos.Line && a.Pos.Col < b.Pos.Col
	})
	out := errs[:0]
	for i, e := range errs {
		if i > 0 && e.Pos == errs[i-1].Pos && e.File == errs[i-1].File {
			continue
		}
		out = append(out, e)
	}
	return sim.CapProblems(out)
}

var (
	actorIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

// Validate checks f, as Decode returned it or as a program built it (the
// Search page's shape), against every rule of the search format and returns
// the problems (none when f is valid). It is the format's one validator:
// Decode only parses. Missing optional fields are fine (Defaults fills
// them); a field given with a bad value is not. Every problem carries a
// message code of the catalogue (search.* and sim's lesson.*, rendered in
// the reader's language) and the path of its field ("depth", "moves[2]",
// "actors[1].id"); a decoded file's also carry their positions.
func Validate(f *File) sim.LoadErrors {
	var errs sim.LoadErrors
	at := func(p sim.Pos) sim.Pos {
		if p == (sim.Pos{}) && f.parsed {
			if f.at.top != (sim.Pos{}) {
				return f.at.top
			}
			return sim.Pos{Line: 1, Col: 1}
		}
		return p
	}
	// given reports whether the file wrote a field: by its position for a
	// decoded file, by its value for one built in code.
	given := func(p sim.Pos, set bool) bool {
		if f.parsed {
			return p != (sim.Pos{})
		}
		return set
	}
	// bad records a problem at p, on the field path, coded id with kv
	// (pairs of name, value), in English as format says.
	bad := func(p sim.Pos, path, id string, kv []any, format string, args ...any) {
		errs = append(errs, sim.LoadError{Pos: at(p), Path: path, Problem: sim.M(id, kv...), Msg: fmt.Sprintf(format, args...)})
	}
	locales := func(what, path string, pos map[string]sim.Pos, t sim.Text) {
		keys := slices.Sorted(maps.Keys(pos))
		if !f.parsed {
			for k := range t {
				keys = append(keys, string(k))
			}
			slices.Sort(keys)
		}
		for _, k := range keys {
			if !sim.ValidLocale(k) {
				bad(pos[k], path+"."+k, "lesson.unknown-locale", []any{"Field", what, "Locale", k, "Want", "en, zh-CN, zh-TW"},
					"%s: unknown locale %q (want en, zh-CN or zh-TW)", what, k)
			}
		}
	}
	locales("title", "title", f.at.title, f.Title)
	switch {
	case !given(f.at.variant, f.Variant != ""):
		bad(sim.Pos{}, "variant", "lesson.missing", []any{"Field", "variant"}, "missing required field \"variant\"")
	case f.VariantDef != nil:
		// A variant file, checked when it was loaded.
	case !slices.Contains(sim.Variants(), f.Variant):
		want := strings.Join(sim.Variants(), ", ")
		bad(f.at.variant, "variant", "lesson.unknown-variant", []any{"Variant", f.Variant, "Want", want}, "unknown variant %q (want one of %s)", f.Variant, want)
	}
	switch {
	case !given(f.at.lease, f.Lease != 0):
		bad(sim.Pos{}, "lease", "lesson.missing", []any{"Field", "lease"}, "missing required field \"lease\"")
	case f.Lease <= 0:
		bad(f.at.lease, "lease", "lesson.duration-positive", []any{"Field", "lease", "Got", f.Lease.String()}, "lease: duration must be greater than zero, got %s", f.Lease)
	case f.Lease%time.Millisecond != 0:
		bad(f.at.lease, "lease", "lesson.duration-ms", []any{"Field", "lease", "Got", f.Lease.String()}, "lease: Redis leases count whole milliseconds, got %s", f.Lease)
	}
	// sim's lock-name rule, with its messages: a search's lock is a lesson's.
	switch {
	case !given(f.at.lock, f.Lock != ""):
	case f.Lock == "":
		bad(f.at.lock, "lock", "lesson.lock-empty", []any{"Field", "lock"}, "lock: lock name must not be empty")
	case !sim.ValidLockName(f.Lock):
		bad(f.at.lock, "lock", "lesson.lock-name", []any{"Field", "lock", "Max", sim.MaxLockName},
			"lock: a lock name is 1 to %d bytes of text without control characters", sim.MaxLockName)
	}
	switch {
	case !given(f.at.actors, f.Actors != nil):
		bad(sim.Pos{}, "actors", "lesson.missing", []any{"Field", "actors"}, "missing required field \"actors\"")
	case len(f.Actors) == 0 || len(f.Actors) > MaxActors:
		bad(f.at.actors, "actors", "search.actors", []any{"Field", "actors", "Max", MaxActors, "Got", len(f.Actors)}, "actors: want 1 to %d actors, got %d", MaxActors, len(f.Actors))
	}
	seen := map[string]bool{}
	for i, a := range f.Actors {
		var ap actorPos
		if i < len(f.at.actor) {
			ap = f.at.actor[i]
		}
		path := fmt.Sprintf("actors[%d]", i+1)
		switch {
		case !given(ap.id, a.ID != ""):
			bad(ap.at, path+".id", "lesson.missing-in", []any{"In", "actor", "Field", "id"}, "actor: missing required field \"id\"")
		case !actorIDPattern.MatchString(a.ID):
			bad(ap.id, path+".id", "lesson.actor-id", []any{"ID", a.ID}, "actor id %q: want a letter, then letters, digits, '_' and '-'", a.ID)
		case seen[a.ID]:
			bad(ap.id, path+".id", "lesson.duplicate-actor", []any{"ID", a.ID}, "duplicate actor id %q", a.ID)
		}
		seen[a.ID] = true
		locales("actor "+a.ID+" name", path+".name", ap.name, a.Name)
		if ap.instance != (sim.Pos{}) && a.Instance == "" {
			bad(ap.instance, path+".instance", "search.actor-empty", []any{"Actor", a.ID, "Field", "instance"}, "actor %s: instance must not be empty", a.ID)
		}
		if ap.requestID != (sim.Pos{}) && a.RequestID == "" {
			bad(ap.requestID, path+".request_id", "search.actor-empty", []any{"Actor", a.ID, "Field", "request_id"}, "actor %s: request_id must not be empty", a.ID)
		}
	}
	if given(f.at.moves, f.Moves != nil) && len(f.Moves) == 0 {
		bad(f.at.moves, "moves", "search.moves-empty", []any{"Field", "moves"}, "moves: want at least one move")
	}
	names := make([]string, len(Moves))
	for i, m := range Moves {
		names[i] = string(m)
	}
	for i, m := range f.Moves {
		path := fmt.Sprintf("moves[%d]", i+1)
		switch {
		case m == "advance":
			bad(posAt(f.at.move, i), path, "search.move-advance", []any{"Field", "moves"}, "moves: advance is not a move; list the clock moves under advance:")
		case !slices.Contains(Moves, m):
			want := strings.Join(names, ", ")
			bad(posAt(f.at.move, i), path, "search.unknown-move", []any{"Field", "moves", "Move", string(m), "Want", want}, "moves: unknown move %q (want %s)", m, want)
		case slices.Contains(f.Moves[:i], m):
			bad(posAt(f.at.move, i), path, "search.listed-twice", []any{"Field", "moves", "Value", string(m)}, "moves: %q is listed twice", m)
		}
	}
	if len(f.Advance) > MaxAdvance {
		bad(f.at.advance, "advance", "search.list-long", []any{"Field", "advance", "Max", MaxAdvance, "Got", len(f.Advance)},
			"advance: want at most %d amounts, got %d", MaxAdvance, len(f.Advance))
	}
	for i, d := range f.Advance {
		path := fmt.Sprintf("advance[%d]", i+1)
		switch {
		case d <= 0:
			bad(posAt(f.at.advanceAt, i), path, "lesson.duration-positive", []any{"Field", "advance", "Got", d.String()}, "advance: duration must be greater than zero, got %s", d)
		case d%time.Millisecond != 0:
			bad(posAt(f.at.advanceAt, i), path, "search.advance-ms", []any{"Field", "advance", "Got", d.String()}, "advance: the clock moves in whole milliseconds, got %s", d)
		case slices.Contains(f.Advance[:i], d):
			bad(posAt(f.at.advanceAt, i), path, "search.listed-twice", []any{"Field", "advance", "Value", d.String()}, "advance: %s is listed twice", d)
		}
	}
	if given(f.at.depth, f.Depth != 0) && (f.Depth < 1 || f.Depth > MaxDepth) {
		bad(f.at.depth, "depth", "search.depth", []any{"Field", "depth", "Max", MaxDepth, "Got", f.Depth}, "depth: want 1 to %d steps, got %d", MaxDepth, f.Depth)
	}
	if given(f.at.invariants, f.Invariants != nil) && len(f.Invariants) == 0 {
		bad(f.at.invariants, "invariants", "search.invariants-empty", []any{"Field", "invariants"}, "invariants: want at least one invariant")
	}
	for i, inv := range f.Invariants {
		path := fmt.Sprintf("invariants[%d]", i+1)
		switch {
		case !slices.Contains(sim.SearchInvariants, inv):
			want := strings.Join(sim.SearchInvariants, ", ")
			bad(posAt(f.at.invariant, i), path, "search.unknown-invariant", []any{"Field", "invariants", "Invariant", inv, "Want", want}, "invariants: unknown invariant %q (want %s)", inv, want)
		case slices.Contains(f.Invariants[:i], inv):
			bad(posAt(f.at.invariant, i), path, "search.listed-twice", []any{"Field", "invariants", "Value", inv}, "invariants: %q is listed twice", inv)
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
