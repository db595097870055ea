package sim

import (
	"sort"
	"strconv"
)

// VariantInfo describes a lock algorithm for lesson authors and the player.
type VariantInfo struct {
	Name string
	// Source is the seed (shared/seeds) or known mistake the variant follows.
	Source string
	// LockType is the Redis type of the lock key: hash or string.
	LockType KeyType
	// CountsInRedis is true when Redis keeps the hold count (the count-mismatch
	// invariant applies), false when the client counts (local-count).
	CountsInRedis bool
	Scripts       []*Script
}

// variant is a lock algorithm: which owner id a call uses, which script calls
// an acquire or a release makes, and how their raw replies become outcomes.
type variant interface {
	info() VariantInfo
	// newOwner returns the owner id an outermost acquire (or a release with no
	// grant) puts into Redis, or "" when the context has none (NO_CONTEXT).
	newOwner(r *Runner, a *actor) string
	// acquire returns the call of an acquire, or nil for a reentry the client
	// handles alone. g is the actor's grant for the lock, nil when outermost.
	acquire(op lockOp, g *grant) *Call
	acquireOutcome(op lockOp, g *grant, reply Reply, after KeyState) (Outcome, error)
	release(op lockOp, g *grant) *Call
	releaseOutcome(op lockOp, g *grant, reply Reply, after KeyState) (Outcome, error)
	// holds returns the counts Redis keeps per owner id in the lock key.
	holds(k KeyState) map[string]int64
}

// lockOp is what a variant needs to build a call.
type lockOp struct {
	key      string // logical lock key
	fenceKey string // logical fencing counter key; "" without fencing
	owner    string
	leaseMS  int64
	keepMS   int64 // TTL for Lockstep's housekeeping keys (fencing counter)
}

var variants = map[string]variant{
	"token-count":    tokenCount{},
	"hash-refresh":   hashRefresh{name: "hash-refresh"},
	"instance-owner": hashRefresh{name: "instance-owner"},
	"hash-nil":       hashNil{},
	"local-count":    localCount{},
}

// Variants returns the names of the supported variants, sorted.
func Variants() []string {
	out := make([]string, 0, len(variants))
	for n := range variants {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Variant returns the description of the named variant and whether it exists.
func Variant(name string) (VariantInfo, bool) {
	v, ok := variants[name]
	if !ok {
		return VariantInfo{}, false
	}
	return v.info(), true
}

func ms(n int64) string { return strconv.FormatInt(n, 10) }

// hashCounts reads a Hash of owner id -> hold count.
func hashCounts(k KeyState) map[string]int64 {
	out := map[string]int64{}
	for _, f := range k.Fields {
		n, err := strconv.ParseInt(f.Value, 10, 64)
		if err == nil {
			out[f.Name] = n
		}
	}
	return out
}
