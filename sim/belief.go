package sim

// A holder that hears "lock lost" (issue 33, item 4). A renewal (a
// watchdog's, or an extend: the same script) that answers the lock is gone
// reaches the application in a real client: redsync's Extend returns an
// error, Redisson logs that it cannot update the lock's expiration and
// stops the watchdog. A variant file says which renewal replies mean that
// with the renew outcome LOST; GONE stays the watchdog that stops and tells
// nobody. A renewal that re-takes an expired lock instead (SET NX inside
// the renewal script) answers RENEWED, and its holder never learns that
// another client held the lock in between: unnoticed-takeover.

// endBelief ends the belief in the hold g of lock, whose renewal answered
// LOST: every actor keeping g's token for the lock (the holder, and the
// children it forked with its context, who share the token) drops it, the
// watchdog with it, and the step's frame records each that believed it
// held (Frame.Lost). From then on such an actor holds nothing: a write of its is
// no holder's, and a release of its goes out with no token, as after any
// acquire that failed.
func (r *Runner) endBelief(lock string, g *grant) {
	token := g.token
	for _, a := range r.actors {
		h := a.grants[lock]
		if h == nil || h.token != token {
			continue
		}
		if h.count > 0 {
			r.lost = append(r.lost, LostBelief{Actor: a.id, Lock: lock, Token: token, Hold: h.seq})
		}
		delete(a.grants, lock)
		delete(a.pending, lock)
	}
	g.renewAt = 0
}

// markTakeover records, after taker's acquire created hold seq of lock
// (outcome ACQUIRED: Redis had no hold of it then), that every actor of
// another execution context who still believes it holds the lock held
// nothing in Redis meanwhile, and that taker did: the first such taker is
// kept on each grant.
func (r *Runner) markTakeover(taker *actor, lock string) {
	for _, a := range r.actors {
		g := a.grants[lock]
		if a.context == taker.context || g == nil || g.count <= 0 || a.gone() || g.takenBy != "" {
			continue
		}
		g.takenBy = taker.id
	}
}

// noticeTakeover returns unnoticed-takeover when the renewal of hold g of
// lock answered RENEWED after another context's acquire created a hold of
// its own while g was believed in (markTakeover): the holder believed it
// held the lock all along, and the reply tells it nothing else. It is
// reported once per grant.
func (r *Runner) noticeTakeover(lock string, g *grant) []Violation {
	if g.takenBy == "" {
		return nil
	}
	var holder *actor
	for _, a := range r.actors {
		if a.grants[lock] == g {
			holder = a
		}
	}
	if holder == nil || holder.gone() {
		return nil
	}
	taker := g.takenBy
	g.takenBy = ""
	return []Violation{violation(InvUnnoticedTakeover, lock, []string{holder.id, taker},
		M("violation.unnoticed-takeover", "Actor", holder.id, "Taker", taker, "Lock", lock, "Hold", g.seq))}
}
