package search

import (
	"crypto/sha256"

	"lockstep/sim"
)

// What the search keeps of every state it reached is made to cost the
// garbage collector little: the scripts miniredis runs allocate a fresh Lua
// state per call (some 100 KiB), so the collector runs often, and each
// cycle scans whatever the search holds. A state's canonical key is kept
// as a digest, and a node's actors as flags, neither holding a pointer.

// stateID is the digest of a state's canonical key (sim.Runner.StateKey):
// the first 16 bytes of its SHA-256. Two distinct keys share one with a
// probability of about n²/2¹²⁹ for n states (under 10⁻²⁹ for a million),
// and the digest is the same on every run, so the search stays
// deterministic.
type stateID [16]byte

func idOf(key string) stateID {
	sum := sha256.Sum256([]byte(key))
	return stateID(sum[:16])
}

// actorState is what the moves of one actor depend on (moves.go).
type actorState uint8

const (
	actorRunning actorState = 1 << iota
	actorPaused
	// actorHolds: its local hold count of the search's lock is above 0.
	actorHolds
	// actorPending: a two-step release of the lock is half done.
	actorPending
)

// actorStates holds an actorState per actor of the file, in file order.
type actorStates [MaxActors]actorState

// actorsOf reads the actors of f in a frame's views.
func actorsOf(f *File, views []sim.ActorView) actorStates {
	var out actorStates
	for i, spec := range f.Actors {
		a := actorView(views, spec.ID)
		var s actorState
		switch a.Status {
		case sim.StatusRunning:
			s |= actorRunning
		case sim.StatusPaused:
			s |= actorPaused
		}
		h := holdView(a, f.Lock)
		if h.Count > 0 {
			s |= actorHolds
		}
		if h.Pending {
			s |= actorPending
		}
		out[i] = s
	}
	return out
}
