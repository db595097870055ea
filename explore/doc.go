// Package explore is Lockstep's explore mode: timelines that learners make
// themselves instead of reading them from a lesson file.
//
// A timeline is an ordinary *sim.Lesson, so everything that runs, draws or
// exports a lesson takes it as it is. This package makes them:
//
//   - Fork (fork.go) continues a lesson after any step with an action of
//     the learner's choosing and drops the steps after it, as RaftScope's
//     fork does; Undo drops the last step.
//   - Sandbox (fork.go) starts an empty timeline from a variant, a lease,
//     fencing and a number of actors.
//   - Choices (choices.go) lists the actions possible after a frame: the
//     menu of "fork here".
//   - Encode and Decode (share.go) turn a timeline into a compact,
//     versioned, checksummed share code for a URL and back.
//   - Timeline (timeline.go) is what a player runs: a lesson with its Kind
//     (course lesson, drill, fork, sandbox, import, search result, your own
//     lock), a fork's Origin, and Fork and Undo with the undo floor (a fork
//     never undoes its lesson's steps).
//   - Compare (compare.go) runs one timeline under two variants and finds
//     the first step whose outcomes differ.
//   - Narrate (narrate.go) explains the steps a learner added, which have no
//     narration of their own, from the frames before and after them.
//
// It writes no prose: narration, titles and errors are message codes
// (sim.Msg, StepError, LinkError) that package catalog renders; the rules of
// the lesson format are sim.Validate's, which every timeline passes, and the
// package adds only its own bounds (sizes, durations, a link's format).
//
// Like package sim it does no HTTP and reads no clock; Compare takes the
// stores to run on from its caller.
package explore
