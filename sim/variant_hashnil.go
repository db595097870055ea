package sim

import "fmt"

// hashNil is the Redis Hash design of seed 004: field = owner token, value =
// count; acquire answers 1/0; release answers nil (not the owner), 0 (holds
// remain) or 1 (deleted), and a partial release does not renew the lease.
type hashNil struct{}

func (hashNil) info() VariantInfo {
	return VariantInfo{
		Name: "hash-nil", Source: "004_9ef5ee932af18c81.txt", LockType: TypeHash, CountsInRedis: true, BooleanReading: true,
		Scripts: []*Script{mustScript("hash-nil/acquire"), mustScript("hash-nil/release"), mustScript("resource/write")},
	}
}

func (hashNil) newOwner(r *Runner, _ *actor) string { return r.newToken() }

func (hashNil) acquire(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("hash-nil/acquire"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS)}}
}

func (hashNil) acquireOutcome(op lockOp, _ *grant, reply Reply, after KeyState) (Outcome, error) {
	return oneZeroAcquire("hash-nil", op, reply, after)
}

func (hashNil) release(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("hash-nil/release"), Keys: []string{op.key}, Args: []string{op.owner}}
}

func (hashNil) releaseOutcome(_ lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	return nilZeroOne("hash-nil", reply)
}

// nilZeroOne reads the three-way release reply of seed 004 (and Redisson):
// nil when the caller holds nothing, 0 when holds remain, 1 when deleted.
func nilZeroOne(variant string, reply Reply) (Outcome, error) {
	switch {
	case reply.Kind == ReplyNil:
		return NotOwner, nil
	case reply.IsInt(0):
		return StillHeld, nil
	case reply.IsInt(1):
		return Released, nil
	}
	return "", fmt.Errorf("sim: %s release: unexpected reply %s", variant, reply)
}

func (hashNil) holds(k KeyState) map[string]int64 { return hashCounts(k) }
