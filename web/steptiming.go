package web

import "time"

// StepTiming is where the server's share of one move went: a step, back or
// seek message, or a play message that starts again from step 0, from the
// moment the connection's reader had the message whole to the moment its
// frame message was queued for the connection's writer. Durations are
// wall-clock time measured by the session. What follows the queueing (the
// writer, the network, the page decoding the message) is not in it: a
// client that times the whole round trip gets that part as the difference
// (the bench's "where its time goes" row does). The writer may start
// sending before Draw's end is taken, so for one step that difference can
// come out a few µs short, even below zero. Config.OnStep gets one per such
// message.
type StepTiming struct {
	// Step is the step the frame shows (the target clamped to the lesson).
	Step int
	// Ran is true when the move ran a step on Redis; false when it was
	// served from the run's computed frames (back, or a seek to a step
	// already reached), so that Redis is about zero.
	Ran bool
	// Wait is from the reader having the message to the session taking it:
	// the session goroutine was busy (with an earlier message or a play
	// tick) or not yet scheduled.
	Wait time.Duration
	// Redis is running the steps up to the target: sim.Runner.Step, its
	// script calls and the snapshots of the lock's keys (and, when a step
	// fails, queueing the error message).
	Redis time.Duration
	// Draw is the frame message: comparing the run's new frames with the
	// lesson's canonical ones (stepcache.go), drawing the panels that
	// changed or taking them from the memo, the timeline's patch, encoding
	// the message as JSON and queueing it.
	Draw time.Duration
}
