package sim

import (
	"context"
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
	// Advance tells the store that simulated time moved on by d (> 0).
	Advance(ctx context.Context, d time.Duration) error
}

// Batch is one step's work for a Store.
type Batch struct {
	Prior []KeyState
	Calls []Call
	Read  []KeyRef
}

// BatchResult is what a Store returns for a Batch.
type BatchResult struct {
	Replies []Reply
	Keys    []KeyState
}

// Call is one script invocation with logical key names.
type Call struct {
	Script *Script
	Keys   []string
	Args   []string
}

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
