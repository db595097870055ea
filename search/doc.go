// Package search is Lockstep's bounded exhaustive search over timelines
// (`lockstep search`, shared/spec/search-format.md): for each invariant a
// search file asks about, the shortest timeline of its shape that breaks
// it, found by running every step on the variant's real Lua scripts, as a
// model checker (TLC, FizzBee) would, but on Redis.
//
//   - Decode (decode.go) parses a search file's YAML with the lesson
//     loader's YAML walking (sim.ParseYAMLMapping) and only parses;
//     Validate (validate.go) holds every rule of the format; Parse and Load
//     do both and fill the defaults. Problems come as FILE:LINE:COL: message.
//   - Run (search.go) explores breadth-first, depth by depth, so what it
//     reports is shortest. Each state is kept once, by sim.Runner.StateKey:
//     keys with contents and PTTL, actors' status and beliefs, the hold
//     Redis keeps, the newest hold written; random tokens by identity,
//     fencing tokens and hold numbers by order; what is kept of it is a
//     16-byte digest (state.go), so the collector, busy with the Lua states
//     miniredis makes per call, has little of it to scan. The moves of a state
//     (moves.go) are the spec's rules for a well-behaved client.
//   - Branching: a node keeps the runner's saved state (sim.Branch), and
//     every transition from it restores that state and runs one step
//     (sim.Runner.Extend), rather than re-running the prefix. The stores
//     (store.go) hold whatever state they are given: a miniredis per
//     worker sets the keys through its Go API when they differ, the real
//     Redis store re-establishes them in each step's transaction anyway,
//     and the reference model (sim/refmodel) is set with Put.
//   - Workers (one runner and one store each, by default one per core)
//     expand a depth's states in parallel; their transitions are merged in
//     the order of the frontier and of the moves, so the result, states
//     and counterexamples included, is the same with any number of workers,
//     on every run and on every backend.
//   - Each counterexample (lesson.go) becomes a lesson with an expect on
//     every step, expect_violation on the breaking one and narration in
//     every locale (explore.Narrate, as drills and explore mode narrate;
//     the breaking step adds the violation's own explanation), and is loaded
//     back and replayed on the backend that found it, where it must pass.
//
// Like package sim it reads no wall clock; its I/O is reading a search file
// (Load) and what the stores send to Redis. The command line
// (cli/search.go) times a search at its edge. Its texts are in messages.<locale>.toml (go-i18n).
package search
