package sim

import "sort"

// stateViolations checks the invariants that hold or fail on a state (the
// others, stale-write and wrong-owner-release, are events the step reports).
// atEnd adds the end-of-lesson check of leaked-hold.
func (r *Runner) stateViolations(atEnd bool) []Violation {
	var out []Violation
	for _, lock := range r.locks {
		holds := r.v.holds(r.lockKey(lock))
		// overlapping-holders: believers grouped by execution context.
		byCtx := map[string][]string{}
		var ctxOrder []string
		for _, a := range r.actors {
			if g := a.grants[lock]; g != nil && g.count > 0 && !a.gone() {
				if _, ok := byCtx[a.context]; !ok {
					ctxOrder = append(ctxOrder, a.context)
				}
				byCtx[a.context] = append(byCtx[a.context], a.id)
			}
		}
		if len(ctxOrder) > 1 {
			var who []string
			for _, c := range ctxOrder {
				who = append(who, byCtx[c]...)
			}
			out = append(out, violation(InvOverlappingHolders, lock, who, explainOverlap(who, lock)))
		}
		// shared-context-holders: within one context, believers that are
		// not nested calls of one another run side by side.
		for _, c := range ctxOrder {
			if who := r.concurrentBelievers(byCtx[c]); len(who) > 1 {
				out = append(out, violation(InvSharedContextHolders, lock, who, explainSharedContext(who, lock)))
			}
		}
		// count-mismatch: Redis's count against the live local counts.
		if r.info.CountsInRedis {
			owners := make([]string, 0, len(holds))
			for o := range holds {
				owners = append(owners, o)
			}
			sort.Strings(owners)
			for _, o := range owners {
				sum := 0
				var who []string
				for _, a := range r.actors {
					if g := a.grants[lock]; g != nil && g.token == o && !a.gone() && g.count > 0 {
						sum += g.count
						who = append(who, a.id)
					}
				}
				if c := holds[o]; c > 0 && sum > 0 && int64(sum) != c {
					out = append(out, violation(InvCountMismatch, lock, who, explainCountMismatch(who, o, lock, c, sum)))
				}
			}
		}
		// leaked-hold: Redis keeps a count for a token nobody will release.
		// At the end, live actors that share a token (a parent and the
		// children it forked with context: inherit) leak one hold between
		// them: it is reported once, naming them all.
		liveLeak := map[string]int{} // token -> index in out
		for _, a := range r.actors {
			g := a.grants[lock]
			if g == nil || holds[g.token] <= 0 || (!a.gone() && !atEnd) {
				continue
			}
			if i, ok := liveLeak[g.token]; ok && !a.gone() {
				out[i].Actors = append(out[i].Actors, a.id)
				continue
			}
			renewing := a.status == StatusExited && g.renewAt > 0
			if !a.gone() {
				liveLeak[g.token] = len(out)
			}
			out = append(out, violation(InvLeakedHold, lock, []string{a.id}, explainLeak(a.id, a.gone(), renewing, g.token, lock, holds[g.token])))
		}
		if atEnd && r.onNodes() {
			out = append(out, r.unclaimedLeak(lock, holds)...)
		}
	}
	return out
}

// unclaimedLeak is leaked-hold at the end of a run with nodes for the hold
// no actor believes in any more: a release that reached too few nodes
// (NOT_OWNER) unwinds the caller's local count, yet the nodes it missed
// keep the owner id, and when they are a majority the lock stays held by
// nobody. holds is what a majority holds of lock (quorumLock); the leak
// names the actors of the execution context of the lock's latest hold,
// when that hold's owner id is the one left.
func (r *Runner) unclaimedLeak(lock string, holds map[string]int64) []Violation {
	h := r.current[lock]
	if h == nil || holds[h.owner] <= 0 {
		return nil
	}
	for _, a := range r.actors {
		if g := a.grants[lock]; g != nil && g.token == h.owner {
			return nil // reported above, or still believed during the run
		}
	}
	who := r.actorsInContext(h.context)
	if len(who) == 0 {
		return nil
	}
	gone := true
	for _, id := range who {
		gone = gone && r.byID[id].gone()
	}
	return []Violation{violation(InvLeakedHold, lock, who, explainLeak(who[0], gone, false, h.owner, lock, holds[h.owner]))}
}

// concurrentBelievers returns, in the order given, the actors of ids (all
// of one execution context, all believing they hold a lock) that share the
// hold with at least one other of them that is neither their ancestor nor
// their descendant by fork. A child forked with context: inherit is a nested
// call or callback of its parent, so a parent and its child both holding is
// reentry; two children of one parent (or of different branches) both
// holding can only run side by side, like the tasks of one Promise.all
// under one request, and the lock does not exclude them from each other.
func (r *Runner) concurrentBelievers(ids []string) []string {
	var out []string
	for i, a := range ids {
		for j, b := range ids {
			if i != j && !r.forkedFrom(a, b) && !r.forkedFrom(b, a) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// forkedFrom reports whether actor id descends from actor anc by forks.
func (r *Runner) forkedFrom(id, anc string) bool {
	for a := r.byID[id]; a != nil && a.parent != ""; a = r.byID[a.parent] {
		if a.parent == anc {
			return true
		}
	}
	return false
}

func violation(name, lock string, actors []string, detail Msg) Violation {
	return Violation{Name: name, Lock: lock, Actors: actors, Detail: detail}
}

// The explanations of violations are messages "violation.<name>" of the
// catalogue (catalog/sim.*.toml); the functions below pick the variant of
// the message and its arguments.

func explainOverlap(who []string, lock string) Msg {
	return M("violation.overlapping-holders", "Actors", List(who), "Lock", lock)
}

func explainSharedContext(who []string, lock string) Msg {
	return M("violation.shared-context-holders", "Actors", List(who), "Lock", lock)
}

// explainStaleWrite explains a write from an older hold accepted after one
// from a newer hold. fence is the stale writer's fencing token, 0 without
// fencing. With fencing such a write gets through only when the token is no
// lower than the newer hold's: the counter went back, and back names why
// (backFailover, backExpired; "" when the run cannot tell), so that the
// banner says what happened in this run (issue 39: lesson 19a's counter
// expired, lesson 20's failover lost the writer's hold with its increment).
func explainStaleWrite(who string, seq, newest int, lock string, fence int64, checkedApart bool, back string) Msg {
	if checkedApart {
		// The token passed a check the resource made in a call of its own,
		// before the newer write landed (check_then_write).
		return M("violation.stale-write.checked-apart", "Lock", lock, "Actor", who, "Hold", seq, "Newer", newest, "Fence", fence)
	}
	if fence > 0 {
		id := "violation.stale-write.fenced"
		if back != "" {
			id += "." + back
		}
		return M(id, "Lock", lock, "Actor", who, "Hold", seq, "Newer", newest, "Fence", fence)
	}
	return M("violation.stale-write", "Lock", lock, "Actor", who, "Hold", seq, "Newer", newest)
}

// Why a fencing counter went back, for explainStaleWrite.
const (
	// backFailover: a failover promoted a replica that never got the
	// counter's last increments (nor the hold that came with them).
	backFailover = "failover"
	// backExpired: the lesson gave the counter a TTL of its own
	// (Lesson.FencingCounterTTL), and the counter lapsed and restarted.
	backExpired = "expired"
)

// counterBack is why the run's fencing counter can have gone back: a
// failover when the run has had one and the counter has Lockstep's TTL
// longer than the run, its expiry when the lesson gave it a TTL and no
// failover happened; "" when both or neither could be the cause (a
// variant that issues its own tokens, a node restart).
func (r *Runner) counterBack() string {
	switch {
	case r.failedOver && r.lesson.FencingCounterTTL == 0:
		return backFailover
	case !r.failedOver && r.lesson.FencingCounterTTL > 0 && !r.onNodes():
		return backExpired
	}
	return ""
}

func explainWrongOwnerRelease(who string, taker []string, lock string, out Outcome) Msg {
	id := "violation.wrong-owner-release.lowered"
	if out == Released {
		id = "violation.wrong-owner-release.deleted"
	}
	return M(id, "Actor", who, "Takers", List(taker), "Lock", lock)
}

func explainCountMismatch(who []string, owner, lock string, redis int64, local int) Msg {
	return M("violation.count-mismatch", "Redis", redis, "Owner", owner, "Lock", lock, "Actors", List(who), "Local", local)
}

func explainLeak(who string, gone, renewing bool, token, lock string, n int64) Msg {
	id := "violation.leaked-hold.at-end"
	switch {
	case renewing:
		id = "violation.leaked-hold.renewing"
	case gone:
		id = "violation.leaked-hold.gone"
	}
	return M(id, "Actor", who, "Holds", n, "Token", token, "Lock", lock)
}
