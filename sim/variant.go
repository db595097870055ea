package sim

import (
	"embed"
	"fmt"
	"io/fs"
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
	// IssuesFences is true when the variant's acquire script issues fencing
	// tokens itself; for the others the runner sends resource/fence right
	// after the acquire, in the same transaction.
	IssuesFences bool
	// UnlockIDs is true when every release carries an unlock-call id that a
	// retry repeats (idempotent-unlock).
	UnlockIDs bool
	// BooleanReading is true when the player should show, beside each raw
	// release reply, what a client reading it as a Boolean sees (seed 004:
	// nil and 0 both become false).
	BooleanReading bool
	// Watchdog is true when the holder's client renews the lease every lease/3
	// while its process runs.
	Watchdog bool
	// TwoStepRelease is true when a release is a GET, then a DEL in a later
	// step (finish-release).
	TwoStepRelease bool
	// Custom is true for a variant a user's variant file defines (not one
	// of Variants()): its scripts reach a real Redis only where the
	// operator allows custom scripts.
	Custom  bool
	Scripts []*Script
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

// extraKeys is implemented by variants that keep keys beside the lock key.
type extraKeys interface {
	keys(lock string) []KeyRef
}

// renewer is implemented by variants whose client renews its lease.
type renewer interface {
	renew(op lockOp) *Call
}

// renewReader is implemented by variants that read a renewal's reply
// through a reply map; the others read 1 as RENEWED, anything else GONE.
type renewReader interface {
	renewOutcome(reply Reply) (Outcome, error)
	renewPeriod(leaseMS int64) int64
}

// renewPeriod is how long after a renewal (or the acquire) the watchdog
// renews next: the variant's period, lease/3 by default.
func (r *Runner) renewPeriod(leaseMS int64) int64 {
	if rr, ok := r.v.(renewReader); ok {
		return rr.renewPeriod(leaseMS)
	}
	return max(leaseMS/3, 1)
}

// fenceIn returns the fencing token in an acquire reply, 0 when it has none.
func (r *Runner) fenceIn(reply Reply) int64 {
	if d, ok := r.v.(*defVariant); ok {
		return d.fenceIn(reply)
	}
	return 0
}

// variantOf returns the variant lesson l runs: its variant file's, or the
// built-in one it names.
func variantOf(l *Lesson) variant {
	if l.VariantDef != nil {
		return newDefVariant(l.VariantDef)
	}
	return variants[l.Variant]
}

// twoStepReleaser is implemented by variants whose release takes two round
// trips, the second in a later step (finish-release).
type twoStepReleaser interface {
	finishRelease(op lockOp) *Call
	finishOutcome(reply Reply) (Outcome, error)
}

// lockOp is what a variant needs to build a call.
type lockOp struct {
	key      string // logical lock key
	fenceKey string // logical fencing counter key; "" without fencing
	owner    string
	leaseMS  int64
	keepMS   int64 // TTL of the fencing counter: Lockstep's cleanup TTL, or the lesson's fencing_counter_ttl
	lock     string
	unlockID string // idempotent-unlock: this release call's id
}

// variantFiles holds the built-in variants' variant files: the format
// proven on every built-in variant (their Lua stays in sim/lua).
//
//go:embed variants/*.variant.yaml
var variantFiles embed.FS

// variants are the built-in variants, by name, each from its file of
// sim/variants. A variant that needs behaviour the format cannot state
// would keep a Go adapter here (none does today).
var variants map[string]variant

func init() { variants = loadBuiltinVariants() }

func loadBuiltinVariants() map[string]variant {
	names, err := fs.Glob(variantFiles, "variants/*"+VariantFileSuffix)
	if err != nil {
		panic(fmt.Sprintf("sim: embedded variants: %v", err))
	}
	out := map[string]variant{}
	for _, n := range names {
		src, err := variantFiles.ReadFile(n)
		if err != nil {
			panic(fmt.Sprintf("sim: embedded variants: %v", err))
		}
		d, err := loadVariant(n, src, nil, true)
		if err != nil {
			panic(fmt.Sprintf("sim: embedded variant %s: %v", n, err))
		}
		out[d.Name] = newDefVariant(d)
	}
	return out
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

// LessonVariant describes the variant lesson l runs: its variant file's
// (l.VariantDef) or the built-in one it names; false when neither.
func LessonVariant(l *Lesson) (VariantInfo, bool) {
	if l.VariantDef != nil {
		return l.VariantDef.Info(), true
	}
	return Variant(l.Variant)
}

// BuiltinVariantDef returns the definition of the built-in variant named
// name (its file under sim/variants, as loaded) and whether it exists. The
// definition is shared: callers read it and must not change it (the
// designs page derives its table from it).
func BuiltinVariantDef(name string) (*VariantDef, bool) {
	v, ok := variants[name].(*defVariant)
	if !ok {
		return nil, false
	}
	return v.d, true
}
