package web

import "time"

// StepTiming is where the server's share of one move went: a step, back or
// seek message, from the moment the connection's reader had the message
// whole to the moment its frame message was queued for the connection's
// writer. Durations are wall-clock time measured by the session. What
// follows the queueing (the writer, the network, the page decoding the
// message) is not in it: a client that times the whole round trip gets that
// part as the difference (the bench's "where a step's time goes" row does).
// Config.OnStep gets one per such message.
type StepTiming struct {
	// Step is the step the frame shows.
	Step int
	// Ran is true when the move ran a step on Redis; false when it was
	// served from the run's computed frames (back, or a seek to a step
	// already reached), so that Redis is about zero.
	Ran bool
	// Wait is from the reader having the message to the session taking it:
	// the session goroutine was busy or not yet scheduled.
	Wait time.Duration
	// Redis is running the step: sim.Runner.Step, its script calls and the
	// snapshots of the lock's keys.
	Redis time.Duration
	// Draw is the frame message: drawing the panels that changed (or taking
	// them from the memo, stepcache.go), the timeline's patch, and encoding
	// the message as JSON.
	Draw time.Duration
}
