// Package sim is Lockstep's simulation core: it loads lesson files, runs their
// steps one at a time against a Store (an embedded or a real Redis, see package
// backend), and records a Frame after every step.
//
// The core is synchronous and deterministic, in the manner of etcd-io/raft: it
// does no HTTP, reads no wall clock and draws every random value (grant tokens,
// request ids) from one RNG seeded per run. Simulated time is a plain int64 of
// milliseconds that only the lesson's `advance` steps move; the Store is told
// about it and keeps Redis's TTLs in step with it.
//
// The lock semantics come from the three seed documents in shared/seeds:
//   - 001 (interview card): grant tokens, ACQUIRED/REENTERED/BUSY/LOST and
//     RELEASED/STILL_HELD/NOT_OWNER, the Idle / Held once / Held many diagram,
//     fencing tokens; variant token-count.
//   - 000 (Node.js AsyncLocalStorage): owner = the execution context's request
//     id, Hash field = owner, value = hold count; variant hash-refresh.
//   - 004 (Java): a ThreadLocal count in front of SET NX (variant local-count),
//     and a Hash whose release replies nil / 0 / 1 (variant hash-nil).
//
// A lesson with `replica: true` runs on a primary and one asynchronous
// replica. The runner keeps the replica's state in simulated time beside the
// primary's, tells the store what each batch does to the replica
// (Batch.Replica: replicated, unreplicated, failover), and at the failover
// installs the replica's state: what it never received is gone, while the
// actors still believe what they believed.
//
// A lesson with `nodes: N` runs on N independent primaries, Redlock's
// (nodes.go): every acquire and release goes to each node as a batch of its
// own (Batch.Node), the client counts a majority, a `restart` step empties
// one node (Batch.Restart), and the frame shows each node's keys beside
// what a majority of them holds.
//
// A variant is data: a variant file (docs/variant-format.md) names the
// scripts of an acquire, a release and optionally a renewal or a two-step
// release, their KEYS and ARGV, and how each reply reads as an outcome.
// The built-in variants are such files (sim/variants), and a lesson may name
// a user's file (`variant: ./my-lock.variant.yaml`); LoadVariant parses one,
// ValidateVariant holds every rule of the format.
//
// The lesson format is fixed by docs/lesson-format.md. Every rule of it is
// checked in one place, the validator (validate.go): Load only parses YAML
// and notes where each value was written, and Validate checks lessons built
// in code (drills, explore's timelines, decoded share links); a problem is a
// LoadError at FILE:LINE:COL or at a field path ("steps[3].lock").
//
// The package writes no prose: a violation's explanation, the diagram's
// labels and every problem are message codes with parameters (Msg), which
// package catalog renders in a locale; Go error strings stay English, for
// logs.
package sim
