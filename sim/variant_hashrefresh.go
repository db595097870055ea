package sim

import "fmt"

// hashRefresh is seed 000's design: the owner id is the execution context's
// request id, the Hash maps it to a count, every successful call renews the
// lease, and both acquire and release answer only 1 or 0.
//
// With name "instance-owner" it is the known mistake of seed 001's second
// follow-up question: the same scripts, but the owner id is the process
// (instance) id, so two requests in one process count as one owner.
type hashRefresh struct{ name string }

func (v hashRefresh) info() VariantInfo {
	src := "000_ababaab3e824e250.txt"
	if v.name == "instance-owner" {
		src = "001_5402deabadbfda6d.txt (follow-up question 2)"
	}
	return VariantInfo{
		Name: v.name, Source: src, LockType: TypeHash, CountsInRedis: true,
		Scripts: []*Script{mustScript("hash-refresh/acquire"), mustScript("hash-refresh/release"), mustScript("resource/write")},
	}
}

func (v hashRefresh) newOwner(_ *Runner, a *actor) string {
	if v.name == "instance-owner" {
		return a.instance
	}
	return a.requestID // "" for a context that lost its id: NO_CONTEXT
}

func (hashRefresh) acquire(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("hash-refresh/acquire"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS)}}
}

func (v hashRefresh) acquireOutcome(op lockOp, _ *grant, reply Reply, after KeyState) (Outcome, error) {
	return oneZeroAcquire(v.name, op, reply, after)
}

// oneZeroAcquire reads an acquire that answers 1 for a new hold and for a
// reentry alike, and 0 when busy (seeds 000 and 004): the count the script
// left behind says which it was ("count became 1").
func oneZeroAcquire(variant string, op lockOp, reply Reply, after KeyState) (Outcome, error) {
	switch {
	case reply.IsInt(0):
		return Busy, nil
	case reply.IsInt(1):
		if hashCounts(after)[op.owner] == 1 {
			return Acquired, nil
		}
		return Reentered, nil
	}
	return "", fmt.Errorf("sim: %s acquire: unexpected reply %s", variant, reply)
}

func (hashRefresh) release(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("hash-refresh/release"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS)}}
}

// releaseOutcome: 1 means "still held" or "released"; whether the key is
// still there tells them apart.
func (v hashRefresh) releaseOutcome(_ lockOp, _ *grant, reply Reply, after KeyState) (Outcome, error) {
	switch {
	case reply.IsInt(0):
		return NotOwner, nil
	case reply.IsInt(1):
		if after.Exists() {
			return StillHeld, nil
		}
		return Released, nil
	}
	return "", fmt.Errorf("sim: %s release: unexpected reply %s", v.name, reply)
}

func (hashRefresh) holds(k KeyState) map[string]int64 { return hashCounts(k) }
