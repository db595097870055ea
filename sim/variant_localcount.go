package sim

import "fmt"

// localCount is the ThreadLocal design of seed 004: the client keeps a map of
// hold counts per lock and only the first acquire and the last release reach
// Redis, as SET key token NX PX lease and a compare-and-delete. Reentry never
// extends the lease.
type localCount struct{}

func (localCount) info() VariantInfo {
	return VariantInfo{
		Name: "local-count", Source: "004_9ef5ee932af18c81.txt", LockType: TypeString, CountsInRedis: false,
		Scripts: []*Script{mustScript("local-count/acquire"), mustScript("local-count/release"), mustScript("resource/write")},
	}
}

func (localCount) newOwner(r *Runner, _ *actor) string { return r.newToken() }

// acquire: the map has the lock, so the count grows in memory only.
func (localCount) acquire(op lockOp, g *grant) *Call {
	if g != nil {
		return nil
	}
	return &Call{Script: mustScript("local-count/acquire"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS)}}
}

func (localCount) acquireOutcome(_ lockOp, g *grant, reply Reply, _ KeyState) (Outcome, error) {
	switch {
	case g != nil:
		return Reentered, nil
	case reply.IsString("OK"):
		return Acquired, nil
	case reply.Kind == ReplyNil:
		return Busy, nil
	}
	return "", fmt.Errorf("sim: local-count acquire: unexpected reply %s", reply)
}

// release: while more than one hold is counted locally, only memory changes;
// the last one (or a release with nothing counted) goes to Redis.
func (localCount) release(op lockOp, g *grant) *Call {
	if g != nil && g.count > 1 {
		return nil
	}
	return &Call{Script: mustScript("local-count/release"), Keys: []string{op.key}, Args: []string{op.owner}}
}

func (localCount) releaseOutcome(_ lockOp, g *grant, reply Reply, _ KeyState) (Outcome, error) {
	switch {
	case g != nil && g.count > 1:
		return StillHeld, nil
	case reply.IsInt(1):
		return Released, nil
	case reply.IsInt(0):
		return NotOwner, nil
	}
	return "", fmt.Errorf("sim: local-count release: unexpected reply %s", reply)
}

func (localCount) holds(k KeyState) map[string]int64 {
	if k.Type != TypeString {
		return nil
	}
	return map[string]int64{k.Value: 1}
}
