package sim

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Store is what the runner needs from Redis: run a batch of script calls
// atomically and read keys back, and move the clock. Package backend provides
// the embedded (miniredis) and real (redis-server) stores; sim/refmodel a
// pure-Go reference model for tests.
//
// All key names are logical ("lock:order:42"); a store maps them to its own
// namespaced keys.
type Store interface {
	// Exec runs one step as one atomic unit. A store whose TTLs run on a wall
	// clock first re-establishes Prior, the simulated state of every run key
	// (contents and PTTL) just before the step; a store on virtual time may
	// skip that. Then it runs Calls in order and reads Read. The result holds
	// one Reply per call and one KeyState per key read, in order. A Redis error
	// reply to a call is a Reply of kind error, not an error; error means the
	// batch could not run (connection lost, context done).
	Exec(ctx context.Context, b *Batch) (*BatchResult, error)
	// Advance tells the store that simulated time moved on by d (> 0), on
	// every server of the run (the replica's clock and every node's too).
	Advance(ctx context.Context, d time.Duration) error
}

// Batch is one step's work for a Store.
type Batch struct {
	Prior []KeyState
	Calls []Call
	Read  []KeyRef
	// Replica is the batch's part in a run with a primary and a replica
	// (lesson field `replica: true`); NoReplica, the zero value, in every
	// other run. Every batch of a run with a replica says so, from the
	// first on, so a store learns from the first batch what the run needs.
	Replica Replication
	// Nodes is the number of independent primaries of a run with nodes
	// (lesson field `nodes`, Redlock's servers; no replication between
	// them), 0 in every other run; Node is the one this batch goes to, 1
	// to Nodes. Every batch of such a run names both, from the first on,
	// so a store learns from the first batch what the run needs.
	Nodes, Node int
	// Derived is set on every batch of a single-server run under a user's
	// variant file, whose scripts may write keys they build themselves
	// (KEYS[1] .. ":count") that Read does not name. The store then also
	// finds every key of the run's own namespace that Read does not name
	// once the calls have run (BatchResult.Found), and it makes sure no key
	// of that namespace outside Prior is there before the calls: a store
	// that re-establishes Prior deletes them, and a batch it sends again
	// (a retry) starts from Prior with them gone, so that a retried step
	// restores the keys a script built as it does the others (issue 33).
	Derived bool
	// Restart (with Node): the node restarts before the batch and comes back
	// empty, as a Redis without persistence does (step `restart`). Calls is
	// empty, Prior holds every key absent; the result's Keys are read from
	// the restarted node.
	Restart bool
	// Jump (with Node, > 0): the node's clock alone jumps forward by Jump
	// before the batch (a clock-jump step with node), so every TTL on it
	// drops by Jump while the other nodes' stay; Calls is empty and Prior is
	// the node's state after the jump, which a store on a wall clock
	// re-establishes as usual and one on a virtual clock reaches by moving
	// that node's clock alone.
	Jump time.Duration
}

// Replication says what a Batch does to the replica of a run that has one.
// Replication is asynchronous: the primary answers first, the replica gets
// the writes after, and a write the replica never got is lost at failover.
type Replication int

const (
	// NoReplica: the run has a single server (the zero value).
	NoReplica Replication = iota
	// Replicated: the batch runs on the primary and its writes reach the
	// replica before Exec returns, so afterwards the replica holds what the
	// primary holds (writes it had missed included: replication caught up).
	// After a Failover the promoted replica is the only server, and a
	// Replicated batch simply runs on it.
	Replicated
	// Unreplicated: the batch runs on the primary and none of its Calls
	// reaches the replica, which keeps what it held (replication lag; the
	// step field `unreplicated: true`). The batches of advance and
	// clock-jump steps, which make no call, are Unreplicated too.
	Unreplicated
	// Failover: the primary dies and the replica is promoted; it serves
	// this batch and every later one. Prior is the state the replica holds
	// in simulated time; a store on a wall clock re-establishes it on the
	// promoted replica as usual. Calls is empty; the result's Keys are read
	// from the promoted replica.
	Failover
)

// String returns the constant's name in the lesson format's words.
func (r Replication) String() string {
	switch r {
	case NoReplica:
		return "no-replica"
	case Replicated:
		return "replicated"
	case Unreplicated:
		return "unreplicated"
	case Failover:
		return "failover"
	}
	return fmt.Sprintf("Replication(%d)", int(r))
}

// BatchResult is what a Store returns for a Batch.
type BatchResult struct {
	Replies []Reply
	Keys    []KeyState
	// Found are the keys of the run that Read does not name and that exist
	// after the calls (only for a Derived batch), with their logical
	// names, sorted by name; each a Hash or a String.
	Found []KeyState
}

// Call is one script invocation with logical key names.
type Call struct {
	Script *Script
	Keys   []string
	Args   []string
	// KeyValues[i], when true, says that Keys[i] is a value a variant file
	// puts in KEYS (its owner id), not a key: a store passes it as it is,
	// outside its key namespace, and never reads, restores or deletes it.
	// nil when every entry is a key.
	KeyValues []bool
	// mapsErrors: the variant file reads an error reply as an outcome.
	mapsErrors bool
}

// IsKey reports whether Keys[i] names a key of the run (not a value, see
// KeyValues).
func (c *Call) IsKey(i int) bool { return i >= len(c.KeyValues) || !c.KeyValues[i] }

// KeyType is the Redis type of a key, or "none" when it does not exist.
type KeyType string

// The key types Lockstep uses.
const (
	TypeNone   KeyType = "none"
	TypeHash   KeyType = "hash"
	TypeString KeyType = "string"
)

// KeyRef names a key to read and the type its role gives it.
type KeyRef struct {
	Name string
	Type KeyType
}

// KeyState is a key as Redis holds it at one moment.
type KeyState struct {
	Name   string  `json:"name"`             // logical name, e.g. "lock:order:42"
	Type   KeyType `json:"type"`             // "none" when absent
	Fields []Field `json:"fields,omitempty"` // hash fields, sorted by name
	Value  string  `json:"value,omitempty"`  // string value
	// PTTL is the remaining time to live in milliseconds: -2 when the key is
	// absent, -1 when it has none (never the case for Lockstep's keys).
	PTTL int64 `json:"pttl_ms"`
}

// Field is one field of a Hash.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Exists reports whether the key exists.
func (k KeyState) Exists() bool { return k.Type != TypeNone }

// SameContents reports whether k and o have the same type and contents
// (value, or fields in order), whatever their names and TTLs: how a
// replica or another node is compared with a key it should hold.
func (k KeyState) SameContents(o KeyState) bool {
	return k.Type == o.Type && k.Value == o.Value && slices.Equal(k.Fields, o.Fields)
}

// Field returns the value of hash field name and whether it is there.
func (k KeyState) Field(name string) (string, bool) {
	for _, f := range k.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// Absent returns the state of a missing key.
func Absent(name string) KeyState { return KeyState{Name: name, Type: TypeNone, PTTL: -2} }
