package sim

import (
	"slices"
	"sort"
)

// frame assembles the frame after a step from the runner's state. trans
// gives lock i's transition (nil for frame 0).
func (r *Runner) frame(st *Step, out Outcome, calls []CallRecord, events []Violation, trans func(i int) *Transition) Frame {
	f := Frame{
		Index:   len(r.frames),
		TimeMS:  r.now,
		Outcome: out,
		Calls:   calls,
		Keys:    slices.Clone(r.keys),
	}
	if f.Calls == nil {
		f.Calls = []CallRecord{}
	}
	if r.replicaKeys != nil {
		f.Replica = slices.Clone(r.replicaKeys)
	}
	for _, keys := range r.nodeKeys {
		f.Nodes = append(f.Nodes, slices.Clone(keys))
	}
	for i, lock := range r.locks {
		lv := r.lockView(lock)
		if trans != nil {
			lv.Transition = trans(i)
		}
		f.Locks = append(f.Locks, lv)
	}
	for _, a := range r.actors {
		f.Actors = append(f.Actors, r.actorView(a))
	}
	f.Violations = append(r.stateViolations(st != nil && f.Index == len(r.lesson.Steps)), events...)
	sort.SliceStable(f.Violations, func(i, j int) bool {
		return slices.Index(Invariants, f.Violations[i].Name) < slices.Index(Invariants, f.Violations[j].Name)
	})
	if f.Violations == nil {
		f.Violations = []Violation{}
	}
	f.Lost = slices.Clone(r.lost)
	if st != nil {
		f.Step = &StepInfo{Actor: st.Actor, Do: st.Do, Value: st.Value, Child: st.Child, Context: st.Context, Line: st.Pos.Line,
			ReplyLost: st.ReplyLost, Nested: st.Nested, Unreplicated: st.Unreplicated, Node: st.Node, Unreachable: slices.Clone(st.Unreachable), KeepPartial: st.KeepPartial}
		if st.Do == ActAcquire || st.Do == ActRelease || st.Do == ActWrite || st.Do == ActFinishRelease || st.Do == ActFinishWrite {
			f.Step.Lock = st.Lock
		}
		f.Step.CheckOnly = st.Do == ActWrite && r.lesson.Fencing && r.lesson.CheckThenWrite
		if st.Do == ActAcquire {
			f.Step.LeaseMS = r.lesson.Lease.Milliseconds()
			if st.Lease > 0 {
				f.Step.LeaseMS = st.Lease.Milliseconds()
			}
		}
		f.Step.ByMS = st.By.Milliseconds()
		f.Say = st.Say
		f.Check = check(st, out, f.Violations)
	}
	return f
}

func check(st *Step, out Outcome, vs []Violation) *Check {
	if st.Expect == "" && len(st.ExpectViolations) == 0 {
		return nil
	}
	c := &Check{Expect: st.Expect, Got: out, ExpectViolations: st.ExpectViolations, OK: true}
	if st.Expect != "" && st.Expect != out {
		c.OK = false
	}
	for _, want := range st.ExpectViolations {
		if !slices.ContainsFunc(vs, func(v Violation) bool { return v.Name == want }) {
			c.Missing = append(c.Missing, want)
			c.OK = false
		}
	}
	return c
}

// lockView places a lock on the diagram from what Redis holds.
func (r *Runner) lockView(lock string) LockView {
	k := r.lockKey(lock)
	lv := LockView{Name: lock, Key: k.Name, State: Idle, Holders: []string{}, PTTL: k.PTTL}
	if !k.Exists() {
		return lv
	}
	holds := r.v.holds(k)
	owners := make([]string, 0, len(holds))
	for o, c := range holds {
		owners = append(owners, o)
		lv.Count += c
	}
	sort.Strings(owners)
	if len(owners) > 0 {
		lv.Owner = owners[0]
		for _, o := range owners[1:] {
			lv.Owner += "," + o
		}
	}
	for _, a := range r.actors {
		if g := a.grants[lock]; g != nil && g.count > 0 && holds[g.token] > 0 {
			lv.Holders = append(lv.Holders, a.id)
		}
	}
	if !r.info.CountsInRedis {
		// Redis keeps no count: the holder's own map does (seed 004).
		local := 0
		for _, a := range r.actors {
			if g := a.grants[lock]; g != nil && holds[g.token] > 0 {
				local += g.count
			}
		}
		lv.Count = int64(max(local, 1))
	}
	lv.State = stateOf(lv.Count)
	return lv
}

func (r *Runner) actorView(a *actor) ActorView {
	v := ActorView{ID: a.id, Name: a.name, Instance: a.instance, Status: a.status, Context: a.context,
		Parent: a.parent, ForkMode: a.mode, RequestID: a.requestID, Holds: []HoldView{}}
	for _, lock := range r.locks {
		g := a.grants[lock]
		if g == nil {
			continue
		}
		_, pending := a.pending[lock]
		v.Holds = append(v.Holds, HoldView{Lock: lock, Token: g.token, Count: g.count, Fence: g.fence, Hold: g.seq,
			RenewAtMS: g.renewAt, Pending: pending, InRedis: r.v.holds(r.lockKey(lock))[g.token] > 0})
	}
	for _, lock := range r.locks {
		if _, ok := a.pendingWrite[lock]; ok {
			v.PendingWrites = append(v.PendingWrites, lock)
		}
	}
	return v
}
