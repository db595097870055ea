package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
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
	r.lag, r.replicated, r.lost = st.Unreplicated, false, nil
	switch st.Do {
	case ActAdvance:
		byExpiry = true
		res.outcome = OK
		res.calls, res.events, err = r.advance(ctx, st.By.Milliseconds(), clockAdvance, st.ReplyLost)
	case ActClockJump:
		byExpiry = true
		res.outcome = OK
		if st.Node > 0 {
			err = r.jumpNode(ctx, st.Node, st.By.Milliseconds())
			break
		}
		res.calls, res.events, err = r.advance(ctx, st.By.Milliseconds(), clockJump, false)
	case ActLongScript:
		byExpiry = true
		res.outcome = OK
		res.calls, res.events, err = r.advance(ctx, st.By.Milliseconds(), clockBlocked, false)
	case ActAcquire:
		res, err = r.acquire(ctx, st)
	case ActRelease:
		res, err = r.release(ctx, st)
	case ActFinishRelease:
		res, err = r.finishRelease(ctx, st)
	case ActWrite:
		res, err = r.write(ctx, st)
	case ActFinishWrite:
		res, err = r.finishWrite(ctx, st)
	case ActPause:
		r.byID[st.Actor].status, res.outcome = StatusPaused, OK
	case ActResume:
		a := r.byID[st.Actor]
		a.status, res.outcome = StatusRunning, OK
		for _, g := range a.grants {
			if g.renewAt > 0 && g.renewAt < r.now {
				g.renewAt = r.now // the watchdog's overdue timer fires first thing
			}
		}
	case ActCrash:
		r.byID[st.Actor].status, res.outcome = StatusCrashed, OK
	case ActExit:
		r.byID[st.Actor].status, res.outcome = StatusExited, OK
	case ActFork:
		r.addActor(st.Child, st.Actor, st.Context)
		res.outcome = OK
	case ActFailover:
		res.outcome = OK
		err = r.failover(ctx)
	case ActRestart:
		res.outcome = OK
		err = r.restart(ctx, st.Node)
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
	r.dropLatches()
	if r.replicated && !r.failedOver {
		// The replica caught up: it holds what the primary holds.
		r.replicaKeys = slices.Clone(r.keys)
		r.replicaCurrent, r.replicaWritten = maps.Clone(r.current), maps.Clone(r.written)
	}
	prev := r.frames[len(r.frames)-1].Locks
	f := r.frame(st, res.outcome, res.calls, res.events, func(i int) *Transition {
		now := r.lockView(r.locks[i])
		t := transition(prev[i].State, prev[i].Count, now.State, now.Count, byExpiry)
		switch {
		case t == nil:
		case st.Do == ActFailover || st.Do == ActRestart:
			// A hold lost with the primary, or with a restarted node's
			// majority, is neither released nor expired: seed 001's diagram
			// has no arrow for it.
			t.ID = OffDiagram
		case slices.ContainsFunc(res.events, func(v Violation) bool { return v.Name == InvWrongOwnerRelease && v.Lock == r.locks[i] }):
			// Not the holder's release: another owner's hold was changed.
			t.ID = WrongOwner
		}
		return t
	})
	return f, nil
}

// replication is the Replication of a batch the current step sends; calls
// says whether the batch makes calls (the batch of an advance makes none).
func (r *Runner) replication(calls bool) Replication {
	switch {
	case !r.lesson.Replica:
		return NoReplica
	case r.failedOver:
		return Replicated // the promoted replica is the only server
	case r.lag || !calls:
		return Unreplicated
	}
	return Replicated
}

// failover promotes the replica: the store kills the primary, re-establishes
// the replica's simulated state on the replica where its clock needs that,
// and reads the keys back from it. The primary's state, with every write the
// replica never received, is gone; the actors believe what they believed.
func (r *Runner) failover(ctx context.Context) error {
	want := r.replicaKeys
	res, err := r.store.Exec(ctx, &Batch{Prior: want, Read: r.reads, Replica: Failover})
	if err != nil {
		return err
	}
	if len(res.Keys) != len(want) {
		return fmt.Errorf("store answered %d keys for %d at failover", len(res.Keys), len(want))
	}
	for i := range want {
		if !sameKey(res.Keys[i], want[i]) {
			return fmt.Errorf("the promoted replica disagrees with the simulated one: want %s, got %s", formatKey(want[i]), formatKey(res.Keys[i]))
		}
	}
	if err := r.install(res.Keys); err != nil {
		return err
	}
	r.current, r.written = r.replicaCurrent, r.replicaWritten
	r.replicaKeys, r.replicaCurrent, r.replicaWritten = nil, nil, nil
	r.failedOver = true
	return nil
}

// exec runs calls through the store from the current simulated state and
// installs the snapshot it reads back.
func (r *Runner) exec(ctx context.Context, calls ...*Call) ([]Reply, error) {
	if r.onNodes() {
		return nil, fmt.Errorf("a run with nodes sends its calls to a node (execOn)")
	}
	b := &Batch{Prior: r.keys, Read: r.reads, Replica: r.replication(len(calls) > 0), Derived: r.derived()}
	for _, c := range calls {
		b.Calls = append(b.Calls, *c)
	}
	res, err := r.runBatch(ctx, b, calls)
	if err != nil {
		return nil, err
	}
	if err := r.install(r.readFound(res.Keys, res.Found)); err != nil {
		return nil, err
	}
	if b.Replica == Replicated {
		r.replicated = true
	}
	return res.Replies, nil
}

// runBatch sends b, whose calls are calls, and checks the store's answer:
// one reply per call and one key per read, and no error reply a variant does
// not read as an outcome.
func (r *Runner) runBatch(ctx context.Context, b *Batch, calls []*Call) (*BatchResult, error) {
	res, err := r.store.Exec(ctx, b)
	if err != nil {
		return nil, err
	}
	if len(res.Replies) != len(calls) || len(res.Keys) != len(r.reads) {
		return nil, fmt.Errorf("store answered %d replies and %d keys for %d calls and %d keys", len(res.Replies), len(res.Keys), len(calls), len(r.reads))
	}
	for i, rep := range res.Replies {
		if rep.Kind == ReplyError && strings.Contains(rep.Str, scriptBoundMarker) {
			return nil, &ScriptStoppedError{Script: calls[i].Script.Name, Max: MaxScriptTurns}
		}
		if rep.Kind == ReplyError && !calls[i].mapsErrors {
			return nil, newScriptError(calls[i].Script, rep.Str)
		}
	}
	return res, nil
}

// install takes a snapshot as the run's state, refusing keys without a TTL:
// Lockstep must never leave a key behind on someone's Redis.
func (r *Runner) install(keys []KeyState) error {
	if err := checkTTLs(keys); err != nil {
		return err
	}
	r.keys = keys
	return nil
}

// checkTTLs refuses keys without a TTL.
func checkTTLs(keys []KeyState) error {
	for _, k := range keys {
		if k.Exists() && k.PTTL < 0 {
			return fmt.Errorf("key %s has no TTL (PTTL %d); every Lockstep key must expire", k.Name, k.PTTL)
		}
	}
	return nil
}

// decay returns keys as they are d ms later: TTLs lower, keys at or below 0
// gone ("keys at or below 0 expire").
func decay(keys []KeyState, d int64) []KeyState {
	out := make([]KeyState, len(keys))
	for i, k := range keys {
		out[i] = k
		if k.Exists() && k.PTTL >= 0 {
			out[i].PTTL -= d
			if out[i].PTTL <= 0 {
				out[i] = Absent(k.Name)
			}
		}
	}
	return out
}

// passTime moves the store's clock and the simulated keys d ms on, with no
// round trip; the next exec carries the decayed state to a real Redis.
func (r *Runner) passTime(ctx context.Context, d int64) error {
	if d <= 0 {
		return nil
	}
	if err := r.store.Advance(ctx, time.Duration(d)*time.Millisecond); err != nil {
		return err
	}
	r.keys = decay(r.keys, d)
	if r.replicaKeys != nil {
		r.replicaKeys = decay(r.replicaKeys, d)
	}
	for i, keys := range r.nodeKeys {
		r.nodeKeys[i] = decay(keys, d)
	}
	if r.onNodes() {
		r.keys = r.quorumKeys()
	}
	return nil
}

// clockMode is how a step moves the clocks (Runner.advance).
type clockMode int

const (
	// clockAdvance: simulated time and the server's clock move together,
	// and watchdog renewals due inside the interval run at their own times
	// (an advance step).
	clockAdvance clockMode = iota
	// clockJump: only the server's clock moves (a clock-jump step).
	clockJump
	// clockBlocked: both clocks move while another client's script keeps
	// Redis busy for the whole interval (a long-script step): see
	// Runner.advance.
	clockBlocked
)

// advance moves the Redis server's clock by ms. In clockAdvance and
// clockBlocked mode simulated time moves too; in clockJump mode only the
// server's clock does and no watchdog fires. In clockAdvance mode the
// watchdog renewals due inside the interval run at their own times; with
// repliesLost (an advance with reply_lost) each one runs but reads as
// TIMED_OUT and stops its watchdog.
//
// In clockBlocked mode a script runs in Redis from now to now+ms, and Redis
// serves nothing else meanwhile: a renewal due strictly inside that window
// sends no command Redis runs. It waits in Redis's input buffer until the
// script has run BusyReplyThreshold; if the script is still running then,
// Redis reads it and answers with the BUSY error (outcome ScriptBusy, reply
// ScriptBusyReply) and its watchdog stops, as on any renewal error;
// otherwise it is served when the script ends, on the keys as they are
// then. A renewal due when the script starts runs first, one due when it
// ends after it. The keys' leases run down over the whole window: a key
// whose lease ran out during the script is gone when it ends (inside a
// script Redis holds time still for key expiry, and no other client can
// read a key meanwhile).
//
// A renewal the variant reads as LOST ends the holder's belief there
// (endBelief); one that answers RENEWED after another context took a hold
// of its own meanwhile breaks unnoticed-takeover (noticeTakeover).
//
// It returns the renewal calls made, in order, and the violations they
// are events of.
func (r *Runner) advance(ctx context.Context, ms int64, mode clockMode, repliesLost bool) ([]CallRecord, []Violation, error) {
	var calls []CallRecord
	var events []Violation
	start, cur, end := r.now, r.now, r.now+ms
	clientClock := mode != clockJump
	if mode == clockAdvance {
		// (A long script makes at most two calls per hold: one due as it
		// starts, one inside it or at its end.)
		if err := r.checkRenewals(cur, end); err != nil {
			return nil, nil, err
		}
	}
	for clientClock {
		lock, g := r.nextRenewal(end)
		if g == nil {
			break
		}
		at := max(g.renewAt, cur)
		op := lockOp{key: lockKeyPrefix + lock, lock: lock, owner: g.token, leaseMS: g.leaseMS}
		if mode == clockBlocked && at > start && at < end {
			if busyAt := max(at, start+BusyReplyThreshold.Milliseconds()); busyAt < end {
				// Redis reads the renewal while the script still runs and
				// answers BUSY without running it; the watchdog gets an
				// error and gives up on the hold, telling nobody.
				calls = append(calls, record(r.v.(renewer).renew(op), ErrorReply(ScriptBusyReply), ScriptBusy))
				g.renewAt = 0
				continue
			}
			at = end // the script ends first: the renewal is served then
		}
		if err := r.passTime(ctx, at-cur); err != nil {
			return nil, nil, err
		}
		cur, r.now = at, at
		call := r.v.(renewer).renew(op)
		var out Outcome
		var recs []CallRecord
		var err error
		if r.onNodes() {
			out, recs, err = r.quorumRenew(ctx, call)
		} else {
			var replies []Reply
			if replies, err = r.exec(ctx, call); err == nil {
				out, err = r.renewOutcome(replies[0])
				recs = []CallRecord{record(call, replies[0], out)}
			}
		}
		if err != nil {
			return nil, nil, err
		}
		g.renewAt = at + r.renewPeriod(g.leaseMS)
		if repliesLost {
			// The renewal ran, but the client saw only a timeout: the
			// watchdog gives up on the hold (Redisson logs "Can't update
			// lock expiration" and drops the renewal), telling nobody.
			out = TimedOut
			for i := range recs {
				recs[i].Outcome = TimedOut
			}
		}
		switch out {
		case Renewed:
			events = append(events, r.noticeTakeover(lock, g)...)
		case Lost:
			// The client tells the application: its belief ends here.
			r.endBelief(lock, g)
		default:
			g.renewAt = 0 // the hold is not ours any more, or we cannot tell: the watchdog stops
		}
		calls = append(calls, recs...)
	}
	if err := r.passTime(ctx, end-cur); err != nil {
		return nil, nil, err
	}
	if r.onNodes() {
		if clientClock {
			r.now = end
		}
		return calls, events, r.verifyNodes(ctx)
	}
	want := r.keys
	res, err := r.store.Exec(ctx, &Batch{Prior: want, Read: r.reads, Replica: r.replication(false), Derived: r.derived()})
	if err != nil {
		return nil, nil, err
	}
	if len(res.Found) > 0 {
		return nil, nil, fmt.Errorf("store disagrees with the simulated clock: it holds %s, which no step wrote", formatKey(res.Found[0]))
	}
	for i := range want {
		if i >= len(res.Keys) || !sameKey(res.Keys[i], want[i]) {
			return nil, nil, fmt.Errorf("store disagrees with the simulated clock: want %s, got %v", formatKey(want[i]), res.Keys)
		}
	}
	if clientClock {
		r.now = end
	}
	return calls, events, r.install(res.Keys)
}

// renewOutcome reads a renewal's reply: through the variant's reply map,
// or 1 as RENEWED and anything else as GONE.
func (r *Runner) renewOutcome(reply Reply) (Outcome, error) {
	if ro, ok := r.v.(renewReader); ok {
		return ro.renewOutcome(reply)
	}
	if reply.IsInt(1) {
		return Renewed, nil
	}
	return Gone, nil
}

// nextRenewal finds the earliest watchdog renewal due at or before end: the
// holder's process must be running or exited (a paused or crashed process
// runs no timer). Ties go to the earlier actor and lock.
func (r *Runner) nextRenewal(end int64) (string, *grant) {
	var bl string
	var bg *grant
	r.eachRenewing(end, func(lock string, g *grant) bool {
		if bg == nil || g.renewAt < bg.renewAt {
			bl, bg = lock, g
		}
		return true
	})
	return bl, bg
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
	if i, ok := r.lockRead[lock]; ok {
		return r.keys[i]
	}
	return Absent(lockKeyPrefix + lock)
}

func (r *Runner) op(st *Step, owner string, lease int64) lockOp {
	op := lockOp{key: lockKeyPrefix + st.Lock, lock: st.Lock, owner: owner, leaseMS: lease, keepMS: r.keepMS}
	if r.lesson.Fencing {
		op.fenceKey = fenceKeyPrefix + st.Lock
		if t := r.lesson.FencingCounterTTL; t > 0 {
			op.keepMS = t.Milliseconds() // a counter that lapses and restarts at 1
		}
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
	if st.Nested && g == nil {
		// Seed 001's nested_acquire: no grant token in the context, so the
		// client answers NOT_OWNER without asking Redis.
		return stepResult{outcome: NotOwner}, nil
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
	// lostReply: Redis runs the call, the client sees a timeout and learns
	// nothing, so its beliefs stay as they were.
	lostReply := st.ReplyLost && call != nil
	var reply, fence Reply
	var calls []CallRecord
	var events []Violation // a failed acquire's undo on nodes (quorumAcquire)
	var out Outcome
	if r.onNodes() && call != nil {
		var err error
		if out, calls, events, err = r.quorumAcquire(ctx, st, op, g, call); err != nil {
			return stepResult{}, err
		}
	} else {
		var err error
		if out, reply, fence, calls, err = r.singleAcquire(ctx, st, op, g, call); err != nil {
			return stepResult{}, err
		}
	}
	switch out {
	case Acquired:
		r.holdSeq[st.Lock]++
		seq := r.holdSeq[st.Lock]
		r.current[st.Lock] = &redisHold{seq: seq, context: a.context, owner: owner}
		r.markTakeover(a, st.Lock)
		if lostReply {
			break
		}
		if g == nil {
			g = &grant{token: owner, fence: r.fenceIn(reply), leaseMS: lease}
			if fence.Kind == ReplyInt {
				g.fence = fence.Int
			}
			a.grants[st.Lock] = g
		}
		// A nested call that gets ACQUIRED re-created an expired hold: the
		// actor's belief now rests on this new hold, which no other
		// context held after it was taken. A renewal that later confirms
		// it confirms this hold, not the earlier one another context took
		// over (that overlap is overlapping-holders'): the takeover is
		// forgotten, as the invariant counts only takeovers since the hold
		// confirmed was taken (InvUnnoticedTakeover; a search at depth 8
		// on touch once read it as unnoticed-takeover).
		g.count++
		g.seq = seq
		g.takenBy = ""
		if r.info.Watchdog {
			g.renewAt = r.now + r.renewPeriod(lease)
		}
	case Reentered:
		if lostReply {
			break
		}
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
	if lostReply {
		out = TimedOut
	}
	return stepResult{outcome: out, calls: calls, events: events}, nil
}

// singleAcquire runs an acquire's call (and the fencing call that goes with
// it) on the run's one server, or its primary. It returns the outcome, the
// acquire's reply and the fencing call's (zero when not made) and the call
// records.
func (r *Runner) singleAcquire(ctx context.Context, st *Step, op lockOp, g *grant, call *Call) (out Outcome, reply, fence Reply, calls []CallRecord, err error) {
	fenceCall := r.fenceCall(op, g, call)
	if call != nil {
		batch := []*Call{call}
		if fenceCall != nil {
			batch = append(batch, fenceCall)
		}
		if r.crossSlot(batch...) {
			// A Cluster refuses the request before anything runs: the
			// client gets an error and holds nothing.
			return CrossSlot, ErrorReply(CrossSlotReply), Reply{}, refused(batch...), nil
		}
		replies, err := r.exec(ctx, batch...)
		if err != nil {
			return "", Reply{}, Reply{}, nil, err
		}
		reply = replies[0]
		if fenceCall != nil {
			fence = replies[1]
		}
	}
	out, err = r.v.acquireOutcome(op, g, reply, r.lockKey(st.Lock))
	if err != nil {
		return "", Reply{}, Reply{}, nil, err
	}
	if call != nil {
		calls = append(calls, record(call, reply, out))
	}
	if fenceCall != nil {
		fo := Outcome("NONE")
		if fence.Kind == ReplyInt && fence.Int > 0 {
			fo = "FENCED"
		}
		calls = append(calls, record(fenceCall, fence, fo))
	}
	return out, reply, fence, calls, nil
}

// fenceCall returns the resource/fence call that issues a fencing token for
// an outermost acquire, when the lesson fences and the variant's own acquire
// script does not; nil otherwise.
func (r *Runner) fenceCall(op lockOp, g *grant, acquire *Call) *Call {
	info := r.info
	if !r.lesson.Fencing || g != nil || acquire == nil || info.IssuesFences {
		return nil
	}
	kind := "field"
	if info.LockType == TypeString {
		kind = "string"
	} else if d, ok := r.v.(*defVariant); ok && d.d.Lock.Layout == LayoutOwnerAndCount {
		kind = "owner"
	}
	return &Call{Script: mustScript("resource/fence"), Keys: []string{op.key, op.fenceKey}, Args: []string{op.owner, kind, ms(op.keepMS)}}
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
	if r.info.UnlockIDs {
		if id, retry := a.lostUnlock[st.Lock]; retry {
			op.unlockID = id // the retry repeats the call whose reply was lost
			delete(a.lostUnlock, st.Lock)
		} else {
			op.unlockID = r.newUnlockID()
		}
		r.lastUnlockID = op.unlockID
	}
	call := r.v.release(op, g)
	if d, ok := r.v.(*defVariant); ok && call != nil {
		r.readLatches(d.latches(st.Lock, op.unlockID))
	}
	var reply Reply
	var res stepResult
	holdBefore, keyBefore := r.current[st.Lock], r.lockKey(st.Lock)
	var out Outcome
	switch {
	case r.onNodes() && call != nil:
		var err error
		if out, res.calls, err = r.quorumRelease(ctx, st, op, g, call); err != nil {
			return stepResult{}, err
		}
	case call != nil && r.crossSlot(call):
		// A Cluster refuses the unlock before it runs: the lock stays, and
		// the error unwinds the caller's stack as any exception does.
		out, res.calls = CrossSlot, refused(call)
	case call != nil:
		replies, err := r.exec(ctx, call)
		if err != nil {
			return stepResult{}, err
		}
		reply = replies[0]
		fallthrough
	default:
		var err error
		if out, err = r.v.releaseOutcome(op, g, reply, r.lockKey(st.Lock)); err != nil {
			return stepResult{}, err
		}
		if call != nil {
			res.calls = append(res.calls, r.recordRelease(call, reply, out))
		}
	}
	res.outcome = out
	if call != nil {
		res.events = r.checkOwnerRelease(a, st.Lock, out, holdBefore, keyBefore)
	}
	switch {
	case st.ReplyLost && call != nil:
		// Redis did the work, but the client saw a timeout: its call stack
		// has not unwound, and it will retry.
		res.outcome = TimedOut
		a.lostUnlock[st.Lock] = op.unlockID
		return res, nil
	case out == Pending:
		a.pending[st.Lock] = owner // the DEL comes at finish-release
		return res, nil
	}
	r.unwind(a, st.Lock)
	return res, nil
}

// finishRelease sends the DEL of a two-step release whose check found the
// actor's token. Without such a check pending there is nothing to send.
func (r *Runner) finishRelease(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	owner, ok := a.pending[st.Lock]
	ts, two := r.v.(twoStepReleaser)
	if !ok || !two || !r.info.TwoStepRelease {
		return stepResult{outcome: NotOwner}, nil
	}
	delete(a.pending, st.Lock)
	holdBefore, keyBefore := r.current[st.Lock], r.lockKey(st.Lock)
	op := r.op(st, owner, 0)
	call := ts.finishRelease(op)
	replies, err := r.exec(ctx, call)
	if err != nil {
		return stepResult{}, err
	}
	out, err := ts.finishOutcome(replies[0])
	if err != nil {
		return stepResult{}, err
	}
	res := stepResult{outcome: out, calls: []CallRecord{record(call, replies[0], out)}}
	res.events = r.checkOwnerRelease(a, st.Lock, out, holdBefore, keyBefore)
	r.unwind(a, st.Lock)
	return res, nil
}

// unwind drops the actor's local hold count by one, never below 0; at 0 the
// token leaves the context.
func (r *Runner) unwind(a *actor, lock string) {
	if g := a.grants[lock]; g != nil {
		g.count = max(g.count-1, 0)
		if g.count == 0 {
			delete(a.grants, lock)
		}
	}
}

// checkOwnerRelease reports wrong-owner-release when a release changed or
// deleted a hold that another execution context took.
//
// A release that left the lock key as it was changed no hold: an unlock
// latch that answered a retried call with its first answer.
func (r *Runner) checkOwnerRelease(a *actor, lock string, out Outcome, holdBefore *redisHold, keyBefore KeyState) []Violation {
	if (out != StillHeld && out != Released) || holdBefore == nil || holdBefore.context == a.context || sameKey(keyBefore, r.lockKey(lock)) {
		return nil
	}
	taker := r.actorsInContext(holdBefore.context)
	return []Violation{violation(InvWrongOwnerRelease, lock, append([]string{a.id}, taker...),
		explainWrongOwnerRelease(a.id, taker, lock, out))}
}

func (r *Runner) recordRelease(c *Call, reply Reply, out Outcome) CallRecord {
	rec := record(c, reply, out)
	if r.info.BooleanReading {
		rec.AsBoolean = "false"
		if reply.Kind == ReplyInt && reply.Int != 0 {
			rec.AsBoolean = "true"
		}
	}
	return rec
}

func (r *Runner) write(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	var fence int64
	seq := 0
	g := a.grants[st.Lock]
	if g != nil {
		fence, seq = g.fence, g.seq
	}
	key := resourceKeyPrefix + st.Lock
	call := &Call{Script: mustScript("resource/write"), Keys: []string{key}, Args: []string{st.Value, a.id, ms(r.keepMS)}}
	switch {
	case r.lesson.Fencing && r.lesson.CheckThenWrite:
		return r.checkWrite(ctx, a, st, pendingWrite{value: st.Value, fence: fence, seq: seq, held: g != nil})
	case r.lesson.Fencing:
		call = &Call{Script: mustScript("resource/write_fenced"), Keys: []string{key}, Args: []string{st.Value, a.id, fmt.Sprint(fence), ms(r.keepMS)}}
	}
	return r.landWrite(ctx, a, st.Lock, call, pendingWrite{value: st.Value, fence: fence, seq: seq, held: g != nil})
}

// pendingWrite is a write of a check_then_write resource between its two
// round trips: what the check passed, to be written at finish-write.
type pendingWrite struct {
	value string
	fence int64 // the writer's fencing token when it checked
	seq   int   // the hold the writer believed in when it checked
	held  bool  // whether it believed it held the lock then
}

// checkWrite sends round trip 1 of a check_then_write write: it reads the
// highest token the resource has accepted, and the client compares its own
// with it. PENDING (the write comes at finish-write) when its token is not
// lower, REJECTED otherwise.
func (r *Runner) checkWrite(ctx context.Context, a *actor, st *Step, w pendingWrite) (stepResult, error) {
	call := &Call{Script: mustScript("resource/check"), Keys: []string{resourceKeyPrefix + st.Lock}}
	replies, err := r.exec(ctx, call)
	if err != nil {
		return stepResult{}, err
	}
	if replies[0].Kind != ReplyInt {
		return stepResult{}, fmt.Errorf("%s: unexpected reply %s", call.Script.Name, replies[0])
	}
	out := Rejected
	if w.fence >= replies[0].Int {
		out = Pending
		a.pendingWrite[st.Lock] = w
	}
	return stepResult{outcome: out, calls: []CallRecord{record(call, replies[0], out)}}, nil
}

// finishWrite sends round trip 2 of a check_then_write write: the write the
// check passed, compared with nothing. Without such a check pending there is
// nothing to send, and the outcome is REJECTED.
func (r *Runner) finishWrite(ctx context.Context, st *Step) (stepResult, error) {
	a := r.byID[st.Actor]
	w, ok := a.pendingWrite[st.Lock]
	if !ok {
		return stepResult{outcome: Rejected}, nil
	}
	delete(a.pendingWrite, st.Lock)
	call := &Call{Script: mustScript("resource/write_unchecked"), Keys: []string{resourceKeyPrefix + st.Lock},
		Args: []string{w.value, a.id, fmt.Sprint(w.fence), ms(r.keepMS)}}
	return r.landWrite(ctx, a, st.Lock, call, w)
}

// landWrite sends a resource write call (1: accepted, 0: refused) and, when
// it lands, reports a stale write: one by a hold older than the newest hold
// whose write the resource accepted.
func (r *Runner) landWrite(ctx context.Context, a *actor, lock string, call *Call, w pendingWrite) (stepResult, error) {
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
		// A write by an actor that believes it holds nothing (no grant:
		// its acquire was refused, or it never asked) went round the lock,
		// which no lock can stop: it is not a holder's stale write. A
		// lesson written for a lock that let the actor in writes so when
		// it runs under a lock that refuses it (lesson 09's B under any
		// lock that tells B BUSY), and the search's clients write only
		// while they hold (issue 33).
		if newest := r.written[lock]; w.held && w.seq < newest {
			res.events = append(res.events, violation(InvStaleWrite, lock, []string{a.id}, explainStaleWrite(a.id, w.seq, newest, lock, fenceIf(r.lesson.Fencing, w.fence), call.Script.Name == "resource/write_unchecked", r.counterBack())))
		}
		r.written[lock] = max(r.written[lock], w.seq)
	}
	return res, nil
}

// fenceIf is fence when the lesson uses fencing, else 0.
func fenceIf(fencing bool, fence int64) int64 {
	if fencing {
		return fence
	}
	return 0
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

// readLatches adds the unlock-latch keys of a release call (a variant
// file's keys with role unlock-latch, one per unlock id) to the keys the
// run reads, so both backends re-establish and show them like any other.
func (r *Runner) readLatches(refs []KeyRef) {
	for _, k := range refs {
		if slices.ContainsFunc(r.reads[r.fixedReads:], func(x KeyRef) bool { return x.Name == k.Name }) {
			continue
		}
		r.reads = append(slices.Clip(r.reads), k)
		r.keys = append(slices.Clip(r.keys), Absent(k.Name))
		if r.replicaKeys != nil {
			r.replicaKeys = append(slices.Clip(r.replicaKeys), Absent(k.Name))
		}
		for i := range r.nodeKeys {
			r.nodeKeys[i] = append(slices.Clip(r.nodeKeys[i]), Absent(k.Name))
		}
		r.latchIDs = append(slices.Clip(r.latchIDs), r.lastUnlockID)
	}
}

// dropLatches stops reading the latch keys that have expired (on the
// replica and on every node too) and whose call no actor will retry: nothing can bring them
// back, and a run of many unlock calls would otherwise read every latch
// it ever made.
func (r *Runner) dropLatches() {
	if len(r.reads) == r.fixedReads {
		return
	}
	retry := map[string]bool{}
	for _, a := range r.actors {
		for _, id := range a.lostUnlock {
			retry[id] = true
		}
	}
	reads, keys := slices.Clone(r.reads[:r.fixedReads]), slices.Clone(r.keys[:r.fixedReads])
	var replica []KeyState
	if r.replicaKeys != nil {
		replica = slices.Clone(r.replicaKeys[:r.fixedReads])
	}
	nodes := make([][]KeyState, len(r.nodeKeys))
	for n, keys := range r.nodeKeys {
		nodes[n] = slices.Clone(keys[:r.fixedReads])
	}
	var ids []string
	for i := r.fixedReads; i < len(r.reads); i++ {
		j := i - r.fixedReads
		gone := !r.keys[i].Exists() && (r.replicaKeys == nil || !r.replicaKeys[i].Exists()) &&
			!slices.ContainsFunc(r.nodeKeys, func(keys []KeyState) bool { return keys[i].Exists() })
		if gone && !retry[r.latchIDs[j]] {
			continue
		}
		reads, keys, ids = append(reads, r.reads[i]), append(keys, r.keys[i]), append(ids, r.latchIDs[j])
		if replica != nil {
			replica = append(replica, r.replicaKeys[i])
		}
		for n := range nodes {
			nodes[n] = append(nodes[n], r.nodeKeys[n][i])
		}
	}
	r.reads, r.keys, r.latchIDs = reads, keys, ids
	if replica != nil {
		r.replicaKeys = replica
	}
	if r.nodeKeys != nil {
		r.nodeKeys = nodes
	}
}

// runnerState is what Step restores when the store fails mid-step.
type runnerState struct {
	src   []byte // the RNG source's MarshalBinary form
	now   int64
	keys  []KeyState
	reads []KeyRef
	// latchIDs are the unlock ids of the latch keys read (past fixedReads)
	latchIDs []string
	actors   []actor
	grants   []map[string]grant
	nActors  int
	holdSeq  map[string]int
	current  map[string]*redisHold
	written  map[string]int
	// the replica's state (runs with a replica)
	replicaKeys    []KeyState
	replicaCurrent map[string]*redisHold
	replicaWritten map[string]int
	failedOver     bool
	nodeKeys       [][]KeyState // the nodes' keys (runs with nodes)
}

func (r *Runner) save() runnerState {
	src, _ := r.src.MarshalBinary() // a PCG's state always marshals
	s := runnerState{src: src, now: r.now, keys: r.keys, reads: r.reads, latchIDs: r.latchIDs, nActors: len(r.actors),
		holdSeq: maps.Clone(r.holdSeq), current: maps.Clone(r.current), written: maps.Clone(r.written),
		replicaKeys: r.replicaKeys, replicaCurrent: maps.Clone(r.replicaCurrent), replicaWritten: maps.Clone(r.replicaWritten),
		failedOver: r.failedOver, nodeKeys: cloneNodes(r.nodeKeys)}
	for _, a := range r.actors {
		c := *a
		c.pending, c.pendingWrite, c.lostUnlock = maps.Clone(a.pending), maps.Clone(a.pendingWrite), maps.Clone(a.lostUnlock)
		s.actors = append(s.actors, c)
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
	r.now, r.keys, r.reads, r.latchIDs = s.now, s.keys, s.reads, s.latchIDs
	r.holdSeq, r.current, r.written = s.holdSeq, s.current, s.written
	r.replicaKeys, r.replicaCurrent, r.replicaWritten = s.replicaKeys, s.replicaCurrent, s.replicaWritten
	r.failedOver, r.nodeKeys = s.failedOver, s.nodeKeys
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
