package drill

import (
	"slices"
	"time"

	"lockstep/sim"
)

// say is narration message key ("narration.<key>" of the catalogue) with
// vars: the placeholders of the phrases.
func say(key string, vars map[string]any) sim.Msg {
	return sim.Msg{ID: "narration." + key, Args: vars}
}

// leaseOf is the lease an acquire step sets: its own, or the lesson's;
// under a variant file whose acquire passes the lease as lease_s (for
// EXPIRE), that lease in whole seconds, rounded up as the script is sent it
// (a 1.5 s lesson lease is a 2 s key there).
func leaseOf(l *sim.Lesson, st *sim.Step) time.Duration {
	d := l.Lease
	if st.Lease > 0 {
		d = st.Lease
	}
	if def := l.VariantDef; def != nil && def.Acquire != nil && slices.ContainsFunc(def.Acquire.Args, func(v sim.ValueRef) bool {
		return !v.IsLiteral && v.Name == sim.ValLeaseS
	}) {
		d = (d + time.Second - 1).Truncate(time.Second)
	}
	return d
}

func lockOf(f sim.Frame, lock string) sim.LockView {
	for _, l := range f.Locks {
		if l.Name == lock {
			return l
		}
	}
	return sim.LockView{Name: lock, State: sim.Idle}
}

func holdOf(f sim.Frame, actor, lock string) (sim.HoldView, bool) {
	for _, a := range f.Actors {
		if a.ID != actor {
			continue
		}
		for _, h := range a.Holds {
			if h.Lock == lock {
				return h, true
			}
		}
	}
	return sim.HoldView{}, false
}

// narrate sets each step's expect to the outcome the run gave it and its
// narration to why it came out so, from the frames before and after it,
// rendered by r in every locale.
func narrate(r sim.Renderer, l *sim.Lesson, frames []sim.Frame) {
	for i := range l.Steps {
		st := &l.Steps[i]
		prev, cur := frames[i], frames[i+1]
		if len(sim.OutcomesFor(st.Do)) > 1 {
			st.Expect = cur.Outcome
		}
		if m, ok := Explain(l, st, prev, cur); ok {
			st.Say = sim.TextOf(r, m)
		}
	}
}

// Explain returns the narration of step st of l as a message code
// ("narration.*" of the catalogue): why it came out as it did, read from
// the frames before (prev) and after (cur) it. It covers acquire, release,
// write, advance, pause and resume, the actions drills use; for any other
// action or outcome it returns false, and the player shows the outcome and
// its gloss alone. Package explore uses it for the steps a learner adds.
func Explain(l *sim.Lesson, st *sim.Step, prev, cur sim.Frame) (sim.Msg, bool) {
	lock := st.Lock
	if lock == "" {
		lock = l.Lock
	}
	pl, cl := lockOf(prev, lock), lockOf(cur, lock)
	var others []string
	for _, h := range pl.Holders {
		if h != st.Actor {
			others = append(others, h)
		}
	}
	var holders any = sim.List(others)
	if len(others) == 0 {
		holders = pl.Owner
	}
	vars := map[string]any{
		"Actor": st.Actor, "Owner": pl.Owner, "Holders": holders,
		"Before": pl.Count, "After": cl.Count,
		"PTTL": sim.Millis(pl.PTTL), "Lease": sim.Millis(leaseOf(l, st).Milliseconds()),
		"By": sim.Millis(st.By.Milliseconds()), "Value": st.Value,
	}
	own := slices.Contains(pl.Holders, st.Actor)
	switch st.Do {
	case sim.ActAcquire:
		switch cur.Outcome {
		case sim.Acquired:
			vars["Owner"] = cl.Owner
			switch {
			case pl.State != sim.Idle && own && len(others) == 0:
				// The lock was the actor's own: a script that keeps its
				// own count re-entered it, and its reply reads as a first
				// acquire (a variant file's reentry: none over such a
				// script, issue 33).
				return say("acquired-own-held", vars), true
			case pl.State != sim.Idle && len(pl.Holders) > 0:
				return say("acquired-over-holder", vars), true
			}
			switch l.Variant {
			case "setnx-del", "get-then-del":
				return say("acquired-plain", vars), true
			case "local-count":
				return say("acquired-local", vars), true
			}
			return say("acquired", vars), true
		case sim.Reentered:
			vars["Owner"] = cl.Owner
			if own && len(pl.Holders) == 1 {
				return say("reentered-own", vars), true
			}
			return say("reentered-shared", vars), true
		case sim.Busy:
			switch {
			case own:
				return say("busy-self", vars), true
			case l.Variant == "setnx-del" || l.Variant == "get-then-del" || l.Variant == "local-count":
				// SET NX compares no owner id: it only finds the key there.
				return say("busy-plain", vars), true
			}
			return say("busy", vars), true
		case sim.Lost:
			return say("lost", vars), true
		}
	case sim.ActRelease:
		switch cur.Outcome {
		case sim.Released:
			switch {
			case !own:
				return say("released-wrong", vars), true
			case l.Variant == "setnx-del":
				return say("released-plain", vars), true
			}
			return say("released", vars), true
		case sim.StillHeld:
			if own && len(pl.Holders) == 1 {
				return say("still-held", vars), true
			}
			return say("still-held-shared", vars), true
		case sim.NotOwner:
			if pl.State == sim.Idle {
				return say("not-owner-free", vars), true
			}
			return say("not-owner", vars), true
		}
	case sim.ActWrite:
		h, _ := holdOf(cur, st.Actor, lock)
		vars["Fence"] = h.Fence
		switch {
		case cur.Outcome == sim.Rejected:
			return say("rejected", vars), true
		case l.Fencing:
			return say("accepted-fenced", vars), true
		default:
			return say("accepted", vars), true
		}
	case sim.ActAdvance:
		switch {
		case pl.State != sim.Idle && cl.State == sim.Idle:
			return say("advance-expired", vars), true
		case cl.State != sim.Idle:
			vars["PTTL"] = sim.Millis(cl.PTTL)
			return say("advance-held", vars), true
		default:
			return say("advance", vars), true
		}
	case sim.ActPause:
		return say("pause", vars), true
	case sim.ActResume:
		if h, ok := holdOf(cur, st.Actor, lock); ok && h.Count > 0 && !h.InRedis {
			return say("resume-stale", vars), true
		}
		return say("resume", vars), true
	}
	// An outcome none of the phrases covers: the player still shows the
	// outcome and its gloss.
	return sim.Msg{}, false
}
