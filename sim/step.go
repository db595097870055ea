package sim

import (
	"context"
	"fmt"
	"maps"
)

// stepResult is what one action did, before the frame is assembled.
type stepResult struct {
	outcome Outcome
	calls   []CallRecord
	events  []Violation // violations that are events of this step
}

// apply runs one step: its Redis calls (if any) through the store, then the
// local effects on the actors.
func (r *Runner) apply(ctx context.Context, st *Step) (Frame, error) {
	var res stepResult
	var err error
	byExpiry := false
	switch st.Do {
	case ActAdvance:
		byExpiry = true
		err = r.advance(ctx, st)
		res.outcome = OK
	case ActAcquire:
		res, err = r.acquire(ctx, st)
	case ActRelease:
		res, err = r.release(ctx, st)
	case ActWrite:
		res, err = r.write(ctx, st)
	case ActPause:
		r.byID[st.Actor].status, res.outcome = StatusPaused, OK
	case ActResume:
		r.byID[st.Actor].status, res.outcome = StatusRunning, OK
	case ActCrash:
		r.byID[st.Actor].status, res.outcome = StatusCrashed, OK
	case ActFork:
		r.addActor(st.Child, st.Actor, st.Context)
		res.outcome = OK
	default:
		err = fmt.Errorf("unknown action %q", st.Do)
	}
	if err != nil {
		return Frame{}, err
	}
	for _, lock := range r.locks {
		if !r.lockKey(lock).Exists() {
			delete(r.current, lock)
		}
	}
	prev := r.frames[len(r.frames)-1].Locks
	f := r.frame(st, res.outcome, res.calls, res.events, func(i int) *Transition {
		now := r.lockView(r.locks[i])
		return transition(prev[i].State, prev[i].Count, now.State, now.Count, byExpiry)
	})
	return f, nil
}

// exec runs calls through the store from the current simulated state and
// installs the snapshot it reads back.
func (r *Runner) exec(ctx context.Context, calls ...*Call) ([]Reply, error) {
	b := &Batch{Prior: r.keys, Read: r.reads}
	for _, c := range calls {
		b.Calls = append(b.Calls, *c)
	}
	res, err := r.store.Exec(ctx, b)
	if err != nil {
		return nil, err
	}
	if len(res.Replies) != len(calls) || len(res.Keys) != len(r.reads) {
		return nil, fmt.Errorf("store answered %d replies and %d keys for %d calls and %d keys", len(res.Replies), len(res.Keys), len(calls), len(r.reads))
	}
	for i, rep := range res.Replies {
		if rep.Kind == ReplyError {
			return nil, fmt.Errorf("%s replied with an error: %s", calls[i].Script.Name, rep.Str)
		}
	}
	if err := r.install(res.Keys); err != nil {
		return nil, err
	}
	return res.Replies, nil
}

// install takes a snapshot as the run's state, refusing keys without a TTL:
// Lockstep must never leave a key behind on someone's Redis.
func (r *Runner) install(keys []KeyState) error {
	for _, k := range keys {
		if k.Exists() && k.PTTL < 0 {
			return fmt.Errorf("key %s has no TTL (PTTL %d); every Lockstep key must expire", k.Name, k.PTTL)
		}
	}
	r.keys = keys
	return nil
}

func (r *Runner) advance(ctx context.Context, st *Step) error {
	by := st.By.Milliseconds()
	want := make([]KeyState, len(r.keys))
	for i, k := range r.keys {
		want[i] = k
		if k.Exists() && k.PTTL >= 0 {
			want[i].PTTL -= by
			if want[i].PTTL <= 0 {
				want[i] = Absent(k.Name) // "keys at or below 0 expire"
			}
		}
	}
	if err := r.store.Advance(ctx, st.By); err != nil {
		return err
	}
	res, err := r.store.Exec(ctx, &Batch{Prior: want, Read: r.reads})
	if err != nil {
		return err
	}
	for i := range want {
		if i >= len(res.Keys) || !sameKey(res.Keys[i], want[i]) {
			return fmt.Errorf("store disagrees with the simulated clock after %s: want %s, got %v", st.By, formatKey(want[i]), res.Keys)
		}
	}
	r.now += by
	return r.install(res.Keys)
}

func sameKey(a, b KeyState) bool {
	if a.Name != b.Name || a.Type != b.Type || a.Value != b.Value || a.PTTL != b.PTTL || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}

func (r *Runner) lockKey(lock string) KeyState {
	for i, k := range r.reads {
		if k.Name == lockKeyPrefix+lock {
			return r.keys[i]
		}
	}
	return Absent(lockKeyPrefix + lock)
}

func (r *Runner) op(st *Step, owner string, lease int64) lockOp {
	op := lockOp{key: lockKeyPrefix + st.Lock, owner: owner, leaseMS: lease, keepMS: r.keepMS}
	if r.lesson.Fencing {
		op.fenceKey = fenceKeyPrefix + st.Lock
	}
	return op
}

func (r *Runner) acquire(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	g := a.grants[st.Lock]
	lease := r.lesson.Lease.Milliseconds()
	if st.Lease > 0 {
		lease = st.Lease.Milliseconds()
	}
	owner := ""
	if g != nil {
		owner = g.token
	} else {
		owner = r.v.newOwner(r, a)
	}
	if owner == "" {
		return stepResult{outcome: NoContext}, nil
	}
	op := r.op(st, owner, lease)
	call := r.v.acquire(op, g)
	var reply Reply
	var calls []CallRecord
	if call != nil {
		replies, err := r.exec(ctx, call)
		if err != nil {
			return stepResult{}, err
		}
		reply = replies[0]
	}
	out, err := r.v.acquireOutcome(op, g, reply, r.lockKey(st.Lock))
	if err != nil {
		return stepResult{}, err
	}
	if call != nil {
		calls = append(calls, record(call, reply, out))
	}
	switch out {
	case Acquired:
		r.holdSeq[st.Lock]++
		seq := r.holdSeq[st.Lock]
		if g == nil {
			g = &grant{token: owner, fence: fenceOf(reply), leaseMS: lease}
			a.grants[st.Lock] = g
		}
		// A nested call that gets ACQUIRED re-created an expired hold: the
		// actor's belief now rests on this new hold.
		g.count++
		g.seq = seq
		r.current[st.Lock] = &redisHold{seq: seq, context: a.context, owner: owner}
	case Reentered:
		if g == nil {
			// An outermost acquire joined a hold kept under the same owner id.
			g = &grant{token: owner, leaseMS: lease}
			if h := r.current[st.Lock]; h != nil {
				g.seq = h.seq
			}
			a.grants[st.Lock] = g
		}
		g.count++
	}
	return stepResult{outcome: out, calls: calls}, nil
}

func (r *Runner) release(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	g := a.grants[st.Lock]
	lease := r.lesson.Lease.Milliseconds()
	owner := ""
	if g != nil {
		owner, lease = g.token, g.leaseMS
	} else {
		// No token for this lock: the release goes out under an owner id it
		// never acquired with (or, without a context id, not at all).
		owner = r.v.newOwner(r, a)
	}
	if owner == "" {
		return stepResult{outcome: NoContext}, nil
	}
	op := r.op(st, owner, lease)
	call := r.v.release(op, g)
	var reply Reply
	var res stepResult
	holdBefore := r.current[st.Lock]
	if call != nil {
		replies, err := r.exec(ctx, call)
		if err != nil {
			return stepResult{}, err
		}
		reply = replies[0]
	}
	out, err := r.v.releaseOutcome(op, g, reply, r.lockKey(st.Lock))
	if err != nil {
		return stepResult{}, err
	}
	res.outcome = out
	if call != nil {
		res.calls = append(res.calls, record(call, reply, out))
		if (out == StillHeld || out == Released) && holdBefore != nil && holdBefore.context != a.context {
			taker := r.actorsInContext(holdBefore.context)
			res.events = append(res.events, violation(InvWrongOwnerRelease, st.Lock, append([]string{a.id}, taker...),
				explainWrongOwnerRelease(a.id, taker, st.Lock, out)))
		}
	}
	// The call stack unwinds whatever Redis said.
	if g != nil {
		g.count = max(g.count-1, 0)
		if g.count == 0 {
			delete(a.grants, st.Lock)
		}
	}
	return res, nil
}

func (r *Runner) write(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	var fence int64
	seq := 0
	if g := a.grants[st.Lock]; g != nil {
		fence, seq = g.fence, g.seq
	}
	key := resourceKeyPrefix + st.Lock
	call := &Call{Script: mustScript("resource/write"), Keys: []string{key}, Args: []string{st.Value, a.id, ms(r.keepMS)}}
	if r.lesson.Fencing {
		call = &Call{Script: mustScript("resource/write_fenced"), Keys: []string{key}, Args: []string{st.Value, a.id, fmt.Sprint(fence), ms(r.keepMS)}}
	}
	replies, err := r.exec(ctx, call)
	if err != nil {
		return stepResult{}, err
	}
	var out Outcome
	switch {
	case replies[0].IsInt(1):
		out = Accepted
	case replies[0].IsInt(0):
		out = Rejected
	default:
		return stepResult{}, fmt.Errorf("%s: unexpected reply %s", call.Script.Name, replies[0])
	}
	res := stepResult{outcome: out, calls: []CallRecord{record(call, replies[0], out)}}
	if out == Accepted {
		if newest := r.written[st.Lock]; seq < newest {
			res.events = append(res.events, violation(InvStaleWrite, st.Lock, []string{a.id}, explainStaleWrite(a.id, seq, newest, st.Lock)))
		}
		r.written[st.Lock] = max(r.written[st.Lock], seq)
	}
	return res, nil
}

func record(c *Call, reply Reply, out Outcome) CallRecord {
	return CallRecord{Script: c.Script.Name, Keys: c.Keys, Args: c.Args, Reply: reply, Outcome: out}
}

func (r *Runner) actorsInContext(ctxID string) []string {
	var out []string
	for _, a := range r.actors {
		if a.context == ctxID {
			out = append(out, a.id)
		}
	}
	return out
}

// runnerState is what Step restores when the store fails mid-step.
type runnerState struct {
	src     []byte // the RNG source's MarshalBinary form
	now     int64
	keys    []KeyState
	actors  []actor
	grants  []map[string]grant
	nActors int
	holdSeq map[string]int
	current map[string]*redisHold
	written map[string]int
}

func (r *Runner) save() runnerState {
	src, _ := r.src.MarshalBinary() // a PCG's state always marshals
	s := runnerState{src: src, now: r.now, keys: r.keys, nActors: len(r.actors),
		holdSeq: maps.Clone(r.holdSeq), current: maps.Clone(r.current), written: maps.Clone(r.written)}
	for _, a := range r.actors {
		s.actors = append(s.actors, *a)
		gs := map[string]grant{}
		for k, g := range a.grants {
			gs[k] = *g
		}
		s.grants = append(s.grants, gs)
	}
	return s
}

func (r *Runner) restore(s runnerState) {
	_ = r.src.UnmarshalBinary(s.src) // bytes from MarshalBinary above
	r.now, r.keys = s.now, s.keys
	r.holdSeq, r.current, r.written = s.holdSeq, s.current, s.written
	for _, a := range r.actors[s.nActors:] {
		delete(r.byID, a.id)
	}
	r.actors = r.actors[:s.nActors]
	for i, a := range r.actors {
		*a = s.actors[i]
		a.grants = map[string]*grant{}
		for k, g := range s.grants[i] {
			a.grants[k] = &g
		}
	}
}
