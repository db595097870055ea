package sim

// A user's script may write keys it builds itself (KEYS[1] .. ":count"),
// which no KEYS list names and the variant file need not declare. Every
// batch of such a run asks the store to find them (Batch.Derived); the
// runner then reads them like the keys it knows: shown in the frames, held
// to the TTL rule (install), re-established before every later step on a
// real Redis, and deleted at the end of the run with the others (issue 33).

// derived reports whether the run's batches must find the keys its
// scripts build (Batch.Derived): a run under a user's variant file on a
// single server. A run with a replica or with nodes runs on servers of its
// own (never a user's Redis), and its scripts are the same.
func (r *Runner) derived() bool {
	return r.info.Custom && !r.lesson.Replica && !r.onNodes()
}

// readFound adds the keys a Derived batch found to the keys the run reads
// and returns the snapshot with them: keys (in Read order), then found.
// They are read past fixedReads like unlock latches, with no unlock id, so
// a found key that is gone is read no more (dropLatches) and is found
// again if a later step writes it again.
func (r *Runner) readFound(keys, found []KeyState) []KeyState {
	if len(found) == 0 {
		return keys
	}
	for _, k := range found {
		r.reads = append(r.reads[:len(r.reads):len(r.reads)], KeyRef{Name: k.Name, Type: k.Type})
		r.latchIDs = append(r.latchIDs[:len(r.latchIDs):len(r.latchIDs)], "")
	}
	return append(keys[:len(keys):len(keys)], found...)
}

// keyNamed returns the run's key of logical name as last read, absent
// when the run does not read it.
func (r *Runner) keyNamed(name string) KeyState {
	for i, k := range r.reads {
		if k.Name == name && i < len(r.keys) {
			return r.keys[i]
		}
	}
	return Absent(name)
}
