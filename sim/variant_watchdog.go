package sim

import "fmt"

// watchdog is a Redisson-style reentrant lock: Hash field
// <client id>:<thread id> = count, acquire replies nil on success or the
// remaining PTTL when busy, the holder's client renews the lease every lease/3
// while its process runs, and the last release publishes on a channel that
// waiters listen to.
type watchdog struct{}

func (watchdog) info() VariantInfo {
	return VariantInfo{
		Name: "watchdog", Source: "Redisson RLock (lock watchdog)", LockType: TypeHash, CountsInRedis: true, Watchdog: true,
		Scripts: []*Script{mustScript("watchdog/acquire"), mustScript("watchdog/renew"), mustScript("watchdog/release"), mustScript("resource/write")},
	}
}

// newOwner: the client id is the process (instance), the thread id the
// execution context.
func (watchdog) newOwner(_ *Runner, a *actor) string { return a.instance + ":" + a.context }

func (watchdog) acquire(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("watchdog/acquire"), Keys: []string{op.key}, Args: []string{ms(op.leaseMS), op.owner}}
}

func (watchdog) acquireOutcome(op lockOp, _ *grant, reply Reply, after KeyState) (Outcome, error) {
	switch reply.Kind {
	case ReplyNil:
		if hashCounts(after)[op.owner] == 1 {
			return Acquired, nil
		}
		return Reentered, nil
	case ReplyInt:
		return Busy, nil // the reply is the current holder's PTTL
	}
	return "", fmt.Errorf("sim: watchdog acquire: unexpected reply %s", reply)
}

func (watchdog) renew(op lockOp) *Call {
	return &Call{Script: mustScript("watchdog/renew"), Keys: []string{op.key}, Args: []string{ms(op.leaseMS), op.owner}}
}

func (watchdog) release(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("watchdog/release"), Keys: []string{op.key, "channel:" + op.lock}, Args: []string{ms(op.leaseMS), op.owner}}
}

func (watchdog) releaseOutcome(_ lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	return nilZeroOne("watchdog", reply)
}

func (watchdog) holds(k KeyState) map[string]int64 { return hashCounts(k) }
