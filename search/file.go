package search

import (
	"time"

	"lockstep/sim"
)

// File is a parsed search file (shared/spec/search-format.md, version 1).
// Decode fills it from YAML without judging it; Validate checks every rule
// of the format. The zero values of the optional fields mean "not given":
// Defaults fills them.
type File struct {
	// Path is where the file was read from, for messages and output names.
	Path    string
	Title   sim.Text
	Variant string
	// VariantDef is the variant file Variant names (a path ending in
	// .variant.yaml, relative to the search file), loaded and checked by
	// Load; nil for a built-in variant.
	VariantDef *sim.VariantDef
	Lease      time.Duration
	Fencing    bool
	// Lock is the one lock of the search; "" until Defaults ("lock").
	Lock   string
	Actors []sim.ActorSpec
	// Moves are the moves tried (spec: acquire, release, write, pause,
	// resume, crash; additions: finish-release, exit); nil until Defaults.
	Moves []Move
	// Advance are the clock moves tried; nil until Defaults (lease + 1ms).
	Advance []time.Duration
	// Depth is the most steps a timeline has (1 to 16); 0 until Defaults (8).
	Depth int
	// Invariants are the invariants asked; nil until Defaults (all five).
	Invariants []string

	// at holds where each value stands, for Validate's messages.
	at positions
	// parsed is false when the file is not a YAML mapping at all.
	parsed bool
}

// Move is one kind of step the search tries.
type Move string

// The moves of the format, and two additions (documented in lessons/README.md).
const (
	MoveAcquire Move = "acquire"
	MoveRelease Move = "release"
	MoveWrite   Move = "write"
	MovePause   Move = "pause"
	MoveResume  Move = "resume"
	MoveCrash   Move = "crash"
	// MoveFinishRelease (an addition) sends the DEL of a two-step release
	// (get-then-del) that an earlier release left pending.
	MoveFinishRelease Move = "finish-release"
	// MoveExit (an addition) ends the actor's task without releasing; its
	// process lives on, so a watchdog it started keeps renewing.
	MoveExit Move = "exit"
)

// Moves lists every move, in the order the search tries them for an actor.
var Moves = []Move{MoveAcquire, MoveRelease, MoveWrite, MovePause, MoveResume, MoveCrash, MoveFinishRelease, MoveExit}

// DefaultMoves are the moves tried when a file names none (the spec's list).
var DefaultMoves = []Move{MoveAcquire, MoveRelease, MoveWrite, MovePause, MoveResume}

// Bounds of the format.
const (
	DefaultDepth = 8
	MaxDepth     = 16
	MaxActors    = 4
	// MaxAdvance bounds the advance list: each amount is a branch of every
	// state (issue 37, item 6).
	MaxAdvance = 16
	// maxFileBytes bounds what Decode reads.
	maxFileBytes = 64 << 10
)

// positions are where a file wrote its values; the zero Pos when absent.
type positions struct {
	top        sim.Pos // the first key of the file
	title      map[string]sim.Pos
	variant    sim.Pos
	lease      sim.Pos
	lock       sim.Pos
	actors     sim.Pos
	actor      []actorPos
	moves      sim.Pos
	move       []sim.Pos
	advance    sim.Pos
	advanceAt  []sim.Pos
	depth      sim.Pos
	invariants sim.Pos
	invariant  []sim.Pos
}

type actorPos struct {
	at, id, instance, requestID sim.Pos
	name                        map[string]sim.Pos
}

// Defaults fills the optional fields the file left out with the format's
// defaults: lock "lock", the default moves, an advance of lease + 1ms,
// depth 8, the format's five invariants (sim.DefaultSearchInvariants).
func (f *File) Defaults() {
	if f.Lock == "" {
		f.Lock = "lock"
	}
	if f.Moves == nil {
		f.Moves = append([]Move(nil), DefaultMoves...)
	}
	if f.Advance == nil && f.Lease > 0 {
		f.Advance = []time.Duration{f.Lease + time.Millisecond}
	}
	if f.Depth == 0 {
		f.Depth = DefaultDepth
	}
	if f.Invariants == nil {
		f.Invariants = append([]string(nil), sim.DefaultSearchInvariants...)
	}
}
