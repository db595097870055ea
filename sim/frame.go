package sim

// Frame is the state of a run after one step. Frames are what the CLI
// prints, the player draws and golden files pin; they hold only logical key
// names and simulated time, so the same lesson gives the same frames on every
// store and every run. Field names in JSON are part of the websocket
// protocol (package web).
type Frame struct {
	// Index is the number of steps taken: 0 is the state before the first
	// step, i is the state after step i (1-based, as in messages).
	Index int `json:"index"`
	// TimeMS is simulated time in milliseconds since the run began.
	TimeMS int64     `json:"time_ms"`
	Step   *StepInfo `json:"step,omitempty"`
	// Outcome is what the step's action came to (OK for actions that make no
	// lock call).
	Outcome Outcome      `json:"outcome,omitempty"`
	Calls   []CallRecord `json:"calls"`
	Keys    []KeyState   `json:"keys"`
	// Replica is what the replica holds, in the order of Keys, in a lesson
	// with a replica (`replica: true`) up to its failover; nil otherwise.
	// From the failover step on the promoted replica's keys are Keys.
	Replica []KeyState `json:"replica,omitempty"`
	// Nodes is what each node holds (Nodes[0] is node 1), in the order of
	// Keys, in a lesson with nodes (`nodes: N`); nil otherwise. Keys is
	// then what a majority of the nodes holds: a lock's key holds each
	// owner id that has a count on a majority, at the count and PTTL a
	// majority keeps (the nodes agree by owner, not by the whole key), and
	// is absent when no owner id is on a majority; any other key is the
	// state a majority agrees on (contents), with the PTTL until fewer
	// than a majority keep it, or absent when no majority agrees on one.
	Nodes      [][]KeyState `json:"nodes,omitempty"`
	Actors     []ActorView  `json:"actors"`
	Locks      []LockView   `json:"locks"`
	Violations []Violation  `json:"violations"`
	// Lost are the beliefs this step ended because a renewal answered that
	// the lock is lost (a variant file's renew outcome LOST): the client
	// told the application, which holds nothing from then on. Empty in
	// most frames.
	Lost []LostBelief `json:"lost,omitempty"`
	// Check is the step's expect / expect_violation, nil when it has none.
	Check *Check `json:"check,omitempty"`
	Say   Text   `json:"say,omitempty"`
}

// StepInfo is the step a frame follows, as the lesson gave it.
type StepInfo struct {
	Actor   string `json:"actor,omitempty"`
	Do      Action `json:"do"`
	Lock    string `json:"lock,omitempty"`
	LeaseMS int64  `json:"lease_ms,omitempty"` // acquire: lease of this call
	ByMS    int64  `json:"by_ms,omitempty"`    // advance: milliseconds
	Value   string `json:"value,omitempty"`
	Child   string `json:"child,omitempty"`
	Context string `json:"context,omitempty"`
	// ReplyLost marks an acquire or a release whose reply never reached the
	// client, or an advance whose watchdog renewals lost their replies.
	ReplyLost bool `json:"reply_lost,omitempty"`
	// Nested marks an acquire the code declares nested (seed 001's
	// nested_acquire).
	Nested bool `json:"nested,omitempty"`
	// Unreplicated marks a step whose writes never reached the replica.
	Unreplicated bool `json:"unreplicated,omitempty"`
	// Node is the node a restart step restarts; Unreachable the nodes an
	// acquire's or a release's calls never reach (lessons with nodes).
	Node        int   `json:"node,omitempty"`
	Unreachable []int `json:"unreachable,omitempty"`
	// KeepPartial marks an acquire whose client, missing the majority,
	// leaves the nodes that granted it as they are (lessons with nodes).
	KeepPartial bool `json:"keep_partial,omitempty"`
	// CheckOnly marks a write step of a lesson with check_then_write: it
	// sends only the token check; the write comes at finish-write.
	CheckOnly bool `json:"check_only,omitempty"`
	Line      int  `json:"line,omitempty"` // line of the step in the lesson file
}

// CallRecord is one Redis call a step made.
type CallRecord struct {
	Script  string   `json:"script"` // Script.Name
	Keys    []string `json:"keys"`   // logical key names
	Args    []string `json:"args"`
	Reply   Reply    `json:"reply"`
	Outcome Outcome  `json:"outcome"`
	// AsBoolean is what a client reading the reply as a Boolean sees ("true"
	// or "false"), for variants where that reading loses information
	// (hash-nil, seed 004); "" otherwise.
	AsBoolean string `json:"as_boolean,omitempty"`
	// Node is the node the call went to in a lesson with nodes (1 to
	// Lesson.Nodes); 0 otherwise.
	Node int `json:"node,omitempty"`
}

// Actor statuses.
const (
	StatusRunning = "running"
	StatusPaused  = "paused"
	StatusCrashed = "crashed"
	StatusExited  = "exited" // its task ended without releasing; the process lives
)

// ActorView is an actor as a frame shows it.
type ActorView struct {
	ID       string `json:"id"`
	Name     Text   `json:"name,omitempty"`
	Instance string `json:"instance"`
	Status   string `json:"status"` // running, paused, crashed or exited
	// Context is the id of the execution context the actor runs in: its own
	// id, or the context of the parent it forked from with context: inherit.
	Context string `json:"context"`
	Parent  string `json:"parent,omitempty"`
	// ForkMode is "inherit" or "lost" for a forked actor.
	ForkMode string `json:"fork_mode,omitempty"`
	// RequestID is the context's request id (the owner id under
	// hash-refresh); "" when the context was lost.
	RequestID string     `json:"request_id,omitempty"`
	Holds     []HoldView `json:"holds"`
	// PendingWrites are the locks whose resource this actor has checked its
	// token with and not yet written to (check_then_write: between a write
	// step and its finish-write), in the run's lock order.
	PendingWrites []string `json:"pending_writes,omitempty"`
}

// HoldView is what an actor believes it holds on one lock.
type HoldView struct {
	Lock  string `json:"lock"`
	Token string `json:"token"` // the owner id it uses in Redis
	Count int    `json:"count"` // local hold count (its call stack's depth)
	Fence int64  `json:"fence,omitempty"`
	// RenewAtMS is when the hold's watchdog renews its lease next (simulated
	// ms); 0 when none runs.
	RenewAtMS int64 `json:"renew_at_ms,omitempty"`
	// Pending is true between the two round trips of a get-then-del release.
	Pending bool `json:"pending,omitempty"`
	// Hold is the grant number: the outermost acquires of the lock numbered
	// in order (1, 2, ...), shown to learners as "grant #N" (its zh-CN and zh-TW names are in
	// the glossary, catalog/ui.*.toml), never as a hold count; fencing and the stale-write
	// invariant compare these.
	Hold int `json:"hold"`
	// InRedis is true while Redis still keeps a count for Token. Count > 0
	// with InRedis false is a stale owner: it believes what Redis no longer says.
	InRedis bool `json:"in_redis"`
}

// LockView is one lock on seed 001's diagram.
type LockView struct {
	Name  string    `json:"name"`
	Key   string    `json:"key"`
	State LockState `json:"state"`
	Count int64     `json:"count"`
	Owner string    `json:"owner,omitempty"` // owner id Redis holds
	// Holders are the actors whose token Redis holds, in actor order.
	Holders    []string    `json:"holders"`
	PTTL       int64       `json:"pttl_ms"`
	Transition *Transition `json:"transition,omitempty"`
}

// LostBelief is an actor's belief of a hold that ended when a renewal of
// the hold answered that the lock is lost.
type LostBelief struct {
	Actor string `json:"actor"`
	Lock  string `json:"lock"`
	Token string `json:"token"` // the owner id the renewal sent
	Hold  int    `json:"hold"`  // the grant number of the hold it believed in
}

// Violation is an invariant the state breaks after a step.
type Violation struct {
	Name   string   `json:"name"` // one of Invariants
	Lock   string   `json:"lock"`
	Actors []string `json:"actors"`
	// Detail says what went wrong: a message code of the catalogue
	// ("violation.<name>...") with its arguments; the CLI's --json fills
	// its text in the chosen language.
	Detail Msg `json:"detail"`
}

// Check is the result of a step's expectations.
type Check struct {
	Expect Outcome `json:"expect,omitempty"`
	Got    Outcome `json:"got,omitempty"`
	// ExpectViolations are the step's expect_violation names; Missing those
	// not reported.
	ExpectViolations []string `json:"expect_violations,omitempty"`
	Missing          []string `json:"missing,omitempty"`
	OK               bool     `json:"ok"`
}
