package sim

import (
	"fmt"
	"strconv"
)

// LockCalls returns the script calls that reach Redis when one actor of
// variant takes lock depth times, nested, then releases it depth times: the
// calls the variant's adapter builds for a run, in order, with logical key
// names (store-mapped like any Call) and a lease of leaseMS milliseconds. A
// reentry or inner release that the client counts alone (local-count)
// contributes no call, so len(result) is the number of round trips a client
// spends on the nest. owner is the owner id or token the calls carry.
// Benchmarks use it to time the lock calls of every variant; a two-step
// release (get-then-del) returns its GET only.
func LockCalls(variant, lock, owner string, leaseMS int64, depth int) ([]Call, error) {
	v, ok := variants[variant]
	if !ok {
		return nil, fmt.Errorf("sim: unknown variant %q", variant)
	}
	if depth < 1 {
		return nil, fmt.Errorf("sim: lock depth %d, want at least 1", depth)
	}
	op := lockOp{key: lockKeyPrefix + lock, lock: lock, owner: owner, leaseMS: leaseMS, keepMS: leaseMS}
	var out []Call
	var g *grant
	for i := 0; i < depth; i++ {
		if c := v.acquire(op, g); c != nil {
			out = append(out, *c)
		}
		if g == nil {
			g = &grant{token: owner, leaseMS: leaseMS}
		}
		g.count++
	}
	for i := 0; i < depth; i++ {
		op.unlockID = "u-" + strconv.Itoa(i)
		if c := v.release(op, g); c != nil {
			out = append(out, *c)
		}
		g.count--
	}
	return out, nil
}
