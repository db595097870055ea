package backend

import (
	"fmt"
	"slices"

	"lockstep/sim"
)

// MaxRunWriteBytes bounds what a user's scripts may write over one run of a
// timeline (every step from its start: a fork runs the timeline again on a
// fresh store, so a run's count starts at 0 and grows step by step), in
// bytes, on every backend: each key a step of a user's script left new or
// changed counts its name, its value and writeOverhead, and a Hash each
// of its fields' name and value and writeOverhead more (a fresh-eyes
// re-check of issue 37: charged a key's overhead once, Hashes of
// thousands of one-byte fields made frames of megabytes within the
// bound; what a frame draws of them is bounded apart, view.MaxShownKeys
// and view.MaxShownFields). MaxScriptWriteBytes bounds one call; without a bound per
// run, a script writing 1 MiB of keys a call made the keys pile up step
// after step, each step's frame holding them all (a fresh-eyes attack on
// issue 37: 400 to 600 MB of the server's RSS from one visitor, frames of
// 37 MB at step 20). 2 MiB is thousands of times what a lock writes in a
// run. Over it the step fails with a *RunWritesError.
const MaxRunWriteBytes = 2 << 20

// RunWritesError is a step whose user's scripts took the run's writes past
// the backend's bound (Config.RunWriteBytes, by default MaxRunWriteBytes):
// Bytes is the run's count with the step, Max the bound.
type RunWritesError struct {
	Bytes, Max int64
}

func (e *RunWritesError) Error() string {
	return fmt.Sprintf("backend: the run's scripts wrote %d bytes, more than the %d bytes (MaxRunWriteBytes) a run of a script of your own may write", e.Bytes, e.Max)
}

// Message makes RunWritesError a Coded error: backend.run-writes.
func (e *RunWritesError) Message() sim.Msg {
	return sim.M("backend.run-writes", "Bytes", e.Bytes, "Max", e.Max)
}

// runWriteBound is the backend's bound on a run's writes, in bytes.
func (b *Backend) runWriteBound() int64 {
	if b.cfg.RunWriteBytes > 0 {
		return b.cfg.RunWriteBytes
	}
	return MaxRunWriteBytes
}

// chargeWrites adds to the store's run count what b's calls of a user's
// script wrote, as res shows it against b.Prior, and returns a
// *RunWritesError once the count passes MaxRunWriteBytes. A key that the
// step left as it was shares its prior strings, so that the frames of a
// run hold one copy of a value however many steps keep it.
func (s *Store) chargeWrites(b *sim.Batch, res *sim.BatchResult) error {
	prior := make(map[string]sim.KeyState, len(b.Prior))
	for _, k := range b.Prior {
		prior[k.Name] = k
	}
	var n int64
	charge := func(keys []sim.KeyState) {
		for i := range keys {
			k := &keys[i]
			if !k.Exists() {
				continue
			}
			if p, ok := prior[k.Name]; ok && p.Exists() && p.Type == k.Type && p.Value == k.Value && slices.Equal(p.Fields, k.Fields) {
				k.Value, k.Fields = p.Value, p.Fields
				continue
			}
			n += int64(len(k.Name)+len(k.Value)) + writeOverhead
			for _, f := range k.Fields {
				n += int64(len(f.Name)+len(f.Value)) + writeOverhead
			}
		}
	}
	charge(res.Keys)
	charge(res.Found)
	s.mu.Lock()
	s.runWritten += n
	total := s.runWritten
	s.mu.Unlock()
	if max := s.be.runWriteBound(); total > max {
		return &RunWritesError{Bytes: total, Max: max}
	}
	return nil
}
