package search

import "lockstep/sim"

// DefaultMaxBytes is the byte budget of a search whose Config.MaxBytes is
// 0: 128 MiB of states kept, as stateBytes counts them. The Search page's
// searches run with it unless the server is given -search-max-mib. A
// search of a built-in lock counts about 1.9 KB a state
// (BenchmarkSearchHeapAtLimit), so -search-max-states (50,000 states)
// stops it first, as before; a learner's lock with large values is
// stopped by this. The process's heap at the budget, garbage included,
// measured some 4 times what was counted (docs/security.md).
const DefaultMaxBytes int64 = 64 << 20

// What a search keeps of a state, in bytes, as stateBytes counts it:
//
//   - seenBytes for every distinct state it reached: its digest in the
//     seen set and the node that records the step that reached it (for
//     the counterexample's timeline);
//   - for a state whose moves are still to run (every state above the
//     last depth), the saved run (sim.Branch) besides: branchBytes, plus
//     the text of its keys (names, values, hash fields) and of the lock
//     views of its last frame, which the saved run holds.
//
// branchBytes is what a saved run of a built-in lock costs besides that
// text (its actors' beliefs and the Go maps and slices that hold them),
// measured by BenchmarkSearchHeapAtLimit: it is set so that the bytes
// counted are at least the heap a search at its budget holds live.
const (
	seenBytes   = 160
	branchBytes = 4 << 10
)

// stateBytes is what the search keeps of a new state reached by a step
// (see seenBytes): keys and locks are the state's keys and its frame's lock
// views, kept when kept is true (the state's moves are still to run).
func stateBytes(keys []sim.KeyState, locks []sim.LockView, kept bool) int64 {
	n := int64(seenBytes)
	if !kept {
		return n
	}
	n += branchBytes
	for _, k := range keys {
		n += int64(len(k.Name) + len(k.Value))
		for _, f := range k.Fields {
			n += int64(len(f.Name) + len(f.Value))
		}
	}
	for _, l := range locks {
		n += int64(len(l.Name) + len(l.Key) + len(l.Owner))
		for _, h := range l.Holders {
			n += int64(len(h))
		}
	}
	return n
}

// maxBytes is cfg's byte budget: DefaultMaxBytes for 0, none (0) when
// negative.
func (cfg Config) maxBytes() int64 {
	switch {
	case cfg.MaxBytes == 0:
		return DefaultMaxBytes
	case cfg.MaxBytes < 0:
		return 0
	}
	return cfg.MaxBytes
}
