package sim

import "time"

// Lesson is a parsed and validated lesson file (docs/lesson-format.md,
// version 1). Build one with Load or LoadFile; a Lesson built by hand must pass
// Validate before a Runner takes it.
type Lesson struct {
	ID      string // [a-z0-9-]+; defaults to the file name without .yaml
	File    string // path the lesson was read from, for messages; may be ""
	Title   Text
	Summary Text
	// Takeaway is the one-line lesson a learner should keep (an addition to
	// the spec, optional).
	Takeaway Text
	// Note says how Lockstep runs the lesson (servers it starts, what a
	// backend cannot do), apart from the narration, which teaches: an
	// addition to the spec, optional.
	Note   Text
	Source string // a seed file name or the public report the scenario reproduces
	// Group places the lesson in the course: one of Groups (an addition to
	// the spec, optional).
	Group   string
	Variant string // one of Variants(), or the name of VariantDef
	// VariantDef is the variant file the lesson names (`variant:
	// ./my-lock.variant.yaml`, an addition to the spec), loaded and
	// checked; nil for a built-in variant.
	VariantDef *VariantDef
	// Lease is the default lease of an acquire; always > 0.
	Lease   time.Duration
	Fencing bool // outermost acquires get fencing tokens (any variant; see resource/fence.lua)
	// FencingCounterTTL, when > 0, is the TTL every fencing token's issue
	// sets on the lock's fencing counter (lesson field
	// `fencing_counter_ttl`, an addition; only with Fencing): a counter
	// given a short expiry, which restarts at 1 once it lapses. 0 gives it
	// Lockstep's cleanup TTL, longer than the run, so within a run it never
	// expires.
	FencingCounterTTL time.Duration
	// CheckThenWrite makes the protected resource check a write's fencing
	// token and write in two round trips (lesson field `check_then_write`,
	// an addition; only with Fencing): a write step sends only the check
	// (resource/check.lua; PENDING when the token is not lower than the
	// highest accepted) and a finish-write step sends the write itself
	// (resource/write_unchecked.lua), with no second comparison. false: the
	// resource compares and writes in one script (resource/write_fenced.lua).
	CheckThenWrite bool
	Lock           string // default lock name; "lock" when the file names none
	// Seed seeds the run's RNG (grant tokens, request ids). The spec leaves it
	// out; files may add `seed:` and otherwise it is derived from ID, so every
	// run of a lesson draws the same tokens.
	Seed uint64
	// Replica gives the run a primary and one replica with asynchronous
	// replication (lesson field `replica: true`, an addition to the spec):
	// steps may be Unreplicated, and a failover step promotes the replica.
	Replica bool
	// Nodes gives the run that many independent Redis primaries (lesson
	// field `nodes`, an addition to the spec; 0 for the usual single
	// server): every lock call goes to each node in turn, and the client
	// holds the lock when a majority (Nodes/2+1) granted it, as Redlock
	// does. A restart step empties one node. MinNodes to MaxNodes.
	Nodes int
	// Cluster models a Redis Cluster's key rule (lesson field `cluster:
	// true`, an addition): a request whose keys hash to different slots is
	// refused with CROSSSLOT before it runs (cluster.go).
	Cluster bool
	Actors  []ActorSpec
	Steps   []Step
}

// ActorSpec declares an actor of the lesson.
type ActorSpec struct {
	ID       string // [A-Za-z][A-Za-z0-9_-]*
	Name     Text
	Instance string // the process it runs in; defaults to "proc-<ID>"
	// RequestID fixes the id of the actor's execution context (the owner id
	// under hash-refresh), e.g. a thread id reused by several tasks; by
	// default each actor draws a fresh one. An addition to the spec.
	RequestID string
	Pos       Pos
}

// Action is the `do` of a step.
type Action string

// The actions of the lesson format.
const (
	ActAcquire Action = "acquire"
	ActRelease Action = "release"
	ActWrite   Action = "write"
	ActPause   Action = "pause"
	ActResume  Action = "resume"
	ActCrash   Action = "crash"
	ActFork    Action = "fork"
	ActAdvance Action = "advance"
	// Additions to the spec (lessons/README.md documents them):
	// ActFinishRelease sends the DEL of a two-step release (get-then-del).
	ActFinishRelease Action = "finish-release"
	// ActExit ends the actor's task without releasing; unlike crash its
	// process lives on, so a watchdog it started keeps renewing.
	ActExit Action = "exit"
	// ActClockJump moves the Redis server's clock forward by By: TTLs drop,
	// while the actors' clocks (simulated time) stay where they are.
	ActClockJump Action = "clock-jump"
	// ActFailover kills the primary of a lesson with a replica: the replica
	// is promoted and serves every later step, and whatever it never
	// received (the writes of unreplicated steps) is gone.
	ActFailover Action = "failover"
	// ActLongScript: the actor's client runs a Lua script that keeps Redis
	// busy for By. Simulated time moves on by By as in an advance, but Redis
	// serves no other call while the script runs: a watchdog renewal due
	// inside it waits, and once the script has run BusyReplyThreshold it is
	// answered with the BUSY error (outcome SCRIPT_BUSY) and its watchdog
	// stops; one still waiting when the script ends is served then. Keys
	// whose lease ran out meanwhile are gone when the script ends.
	ActLongScript Action = "long-script"
	// ActRestart restarts node Step.Node of a lesson with nodes: it comes
	// back empty, as a Redis without persistence does, and the clients
	// are not told.
	ActRestart Action = "restart"
	// ActFinishWrite sends the write whose token check an earlier write
	// step made, in a lesson with check_then_write: the second round trip,
	// which compares nothing.
	ActFinishWrite Action = "finish-write"
)

// Actions lists every action in the order the spec gives them.
var Actions = []Action{ActAcquire, ActRelease, ActWrite, ActPause, ActResume, ActCrash, ActFork, ActAdvance, ActFinishRelease, ActExit, ActClockJump, ActFailover, ActLongScript, ActRestart, ActFinishWrite}

// Step is one step of a lesson's timeline.
type Step struct {
	Actor string // the acting actor; "" for advance
	Do    Action
	// Lock is the lock the step works on; the lesson's default when the file
	// names none.
	Lock  string
	Lease time.Duration // acquire: lease of this call; 0 means the lesson's
	// ReplyLost (acquire, release): the call runs in Redis but its reply
	// never reaches the client, which sees a timeout (TIMED_OUT). A release
	// keeps its local count and its next release of the lock is the retry of
	// the same call; an acquire leaves the actor's beliefs as they were (no
	// token, no count), and its next acquire is an ordinary one, as an
	// application that calls lock again after a timeout sends it. On an
	// advance, every watchdog renewal due inside it runs in Redis but its
	// reply is lost: the renewal's outcome is TIMED_OUT and the watchdog
	// stops renewing that hold, as Redisson's RedissonBaseLock.renewExpiration
	// does on a renewal error (it logs and drops the renewal), and the
	// holder is not told. An addition to the spec.
	ReplyLost bool
	// Nested (acquire): the caller's code calls seed 001's nested_acquire,
	// a nested acquire by declaration. With a grant token for the lock in
	// the context it is a nested acquire as any other; without one it
	// answers NOT_OWNER and sends nothing ("if context.grant_token is
	// absent: return NOT_OWNER"). An addition to the spec.
	Nested bool
	// Unreplicated (acquire, release, write; lessons with a replica only,
	// before the failover): the step's writes reach the primary but not the
	// replica, as when the primary answers before replication catches up.
	// An addition to the spec.
	Unreplicated bool
	// Node (restart; lessons with nodes) is the node that restarts, 1 to
	// Lesson.Nodes; on a clock-jump (optional) the one node whose clock
	// jumps, the others' staying where they are. An addition to the spec.
	Node int
	// KeepPartial (acquire; lessons with nodes): a client that misses the
	// majority does not release the nodes that granted it, against
	// Redlock's rule, so their keys stay until the lease ends. An addition
	// to the spec.
	KeepPartial bool
	// Unreachable (acquire, release; lessons with nodes) lists the nodes the
	// step's calls never reach (a network partition): the client sends to
	// the others only. An addition to the spec.
	Unreachable []int
	Value       string // write: the value written
	Child       string // fork: the new actor's id
	// Context is the fork's context mode: "inherit" or "lost".
	Context string
	By      time.Duration // advance, clock-jump: how far the clock moves; long-script: how long the script runs (> 0)
	Say     Text
	// Why (acquire, release, finish-release, write, finish-write; an addition) is a
	// question about the reason for the step's outcome that predict mode
	// asks once the outcome is revealed; Because are the reasons it offers,
	// the right one first (the player shows them in another order). Both or
	// neither; 2 to MaxBecause reasons.
	Why     Text
	Because []Text
	// Misconception (an addition) is a callout the player shows at this
	// step: what learners commonly believe here, and what really happens.
	Misconception Text
	// Expect is the outcome the step asserts; "" asserts nothing.
	Expect Outcome
	// ExpectViolations must all be among the violations reported at this step.
	ExpectViolations []string
	Pos              Pos // position of the step's first key, for messages
	ActorPos         Pos // position of the step's actor value, for messages
}

// Pos is a position in a lesson file, 1-based.
type Pos struct {
	Line, Col int
}

// Outcome is what a step's action came to.
type Outcome string

// The outcomes of the lesson format.
const (
	Acquired  Outcome = "ACQUIRED"
	Reentered Outcome = "REENTERED"
	Busy      Outcome = "BUSY"
	Lost      Outcome = "LOST"
	NoContext Outcome = "NO_CONTEXT"
	Released  Outcome = "RELEASED"
	StillHeld Outcome = "STILL_HELD"
	// NotOwner is also the outcome of an acquire with nested: true whose
	// context holds no grant token (seed 001's nested_acquire).
	NotOwner Outcome = "NOT_OWNER"
	// TimedOut: an acquire or a release whose call ran in Redis but whose
	// reply never reached the client (step field reply_lost); an addition
	// to the spec.
	TimedOut Outcome = "TIMED_OUT"
	// Pending: the first round trip of a two-step release (get-then-del)
	// found the caller's token; the DEL comes at finish-release. Also the
	// first round trip of a check_then_write write: the token passed the
	// check; the write comes at finish-write. An addition.
	Pending  Outcome = "PENDING"
	Accepted Outcome = "ACCEPTED"
	// Renewed and Gone are the outcomes of a watchdog's renewal call, which
	// advance steps make; no step asserts them.
	Renewed  Outcome = "RENEWED"
	Gone     Outcome = "GONE"
	Rejected Outcome = "REJECTED"
	OK       Outcome = "OK"
	// ScriptBusy is the outcome of a watchdog renewal that Redis answered
	// with the BUSY error because another client's script was still
	// running (a long-script step); no step asserts it. An addition.
	ScriptBusy Outcome = "SCRIPT_BUSY"
	// CrossSlot: in a lesson with cluster: true, an acquire or a release
	// whose request names keys of different hash slots, refused by the
	// Cluster with CROSSSLOT before anything ran. An addition.
	CrossSlot Outcome = "CROSSSLOT"
)

// OutcomesFor returns the outcomes the spec allows for action a.
func OutcomesFor(a Action) []Outcome {
	switch a {
	case ActAcquire:
		return []Outcome{Acquired, Reentered, Busy, Lost, NoContext, NotOwner, TimedOut, CrossSlot}
	case ActRelease:
		return []Outcome{Released, StillHeld, NotOwner, NoContext, TimedOut, Pending, CrossSlot}
	case ActFinishRelease:
		return []Outcome{Released, NotOwner}
	case ActWrite:
		return []Outcome{Accepted, Rejected, Pending}
	case ActFinishWrite:
		return []Outcome{Accepted, Rejected}
	}
	return []Outcome{OK}
}

// The invariant names the runner checks after every step (spec "Invariants").
const (
	InvOverlappingHolders = "overlapping-holders"
	InvStaleWrite         = "stale-write"
	InvWrongOwnerRelease  = "wrong-owner-release"
	InvCountMismatch      = "count-mismatch"
	InvLeakedHold         = "leaked-hold"
	// InvSharedContextHolders (an addition) is reported when two actors of
	// one execution context, neither forked from the other, both hold the
	// lock: concurrent tasks under one request (Promise.all) each re-enter,
	// and nothing excludes them from each other.
	InvSharedContextHolders = "shared-context-holders"
	// InvUnnoticedTakeover (an addition, issue 33) is reported when a
	// Redis reply confirms an actor's hold (a watchdog's renewal answered
	// RENEWED) although, since the actor took that hold and while it
	// believed in it, another execution context's acquire created a hold
	// of its own: the actor believed it held the lock continuously across
	// an interval in which another actor held it, and never learned. A
	// renewal that re-takes an expired lock (SET NX inside the renewal
	// script) does this; one whose reply means the lock is lost (renew
	// outcome LOST) ends the belief instead.
	InvUnnoticedTakeover = "unnoticed-takeover"
)

// Groups are the parts of the course, in order (lesson field `group`).
var Groups = []string{"basics", "owner-identity", "leases-and-time", "replication"}

// Invariants lists every invariant name a lesson may expect.
var Invariants = []string{InvOverlappingHolders, InvStaleWrite, InvWrongOwnerRelease, InvCountMismatch, InvLeakedHold, InvSharedContextHolders, InvUnnoticedTakeover}

// SearchInvariants are the invariants a search may ask for (search format
// "invariants"): every invariant but shared-context-holders, which needs
// two actors of one execution context, made only by a fork, a move no
// search tries.
var SearchInvariants = []string{InvOverlappingHolders, InvStaleWrite, InvWrongOwnerRelease, InvCountMismatch, InvLeakedHold, InvUnnoticedTakeover}

// DefaultSearchInvariants are the invariants a search file that names none
// asks for: the format's five ("default all five"). unnoticed-takeover, an
// addition, is searched for when a file names it, so that the meaning of
// an existing search file does not change.
var DefaultSearchInvariants = SearchInvariants[:5:5]
