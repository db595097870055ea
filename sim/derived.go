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
// when the run does not read it: from countFrom while it is set (a node's
// keys), from keys otherwise.
func (r *Runner) keyNamed(name string) KeyState {
	keys := r.keys
	if r.countFrom != nil {
		keys = r.countFrom
	}
	for i, k := range r.reads {
		if k.Name == name && i < len(keys) {
			return keys[i]
		}
	}
	return Absent(name)
}

// holdsIn is the variant's holds of k, a key of the key set keys (in reads
// order): a count the variant keeps in a second key (lock.count) is read
// from the same set. In a run with nodes, each node's lock key goes with
// its own count key, not with the majority's view (keys): read from that,
// a Redlock lesson's first acquire under a count-key lock once read as
// REENTERED (a fresh-eyes review of issue 33).
func (r *Runner) holdsIn(keys []KeyState, k KeyState) map[string]int64 {
	prev := r.countFrom
	r.countFrom = keys
	defer func() { r.countFrom = prev }()
	return r.v.holds(k)
}
