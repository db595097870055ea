package web

import (
	"math"
	"os"
	"runtime/debug"
)

// Garbage collection of a player server. A step's frame is built from
// short-lived strings (panels rendered, a message encoded, on the embedded
// backend a fresh Lua state per script call), about 0.3 MB of garbage a
// step, while what lives on between steps is a few MB. Go's default
// (GOGC=100: collect when the heap has doubled) then collects every few
// dozen steps, and a step that meets a collection waits for it: the step
// round trip's p99 was 3-4x its p50 in `make bench`, and GOGC=400 took a
// third off the p99 (docs/performance.md).
// A player server collects when the heap has grown by DefaultGCPercent
// instead, under a soft limit of DefaultMemoryLimit bytes past which the
// collector works harder again, as the Go GC guide
// (https://go.dev/doc/gc-guide) suggests for a small live heap and a
// latency target. cli.Serve applies them, with the flags -gc-percent and
// -memory-limit (GOGC and GOMEMLIMIT in the environment stand when the
// flags are not given); bench applies the same, as it serves the player in
// its own process.
const (
	DefaultGCPercent   = 400
	DefaultMemoryLimit = 1 << 30 // bytes
)

// TuneGC sets the garbage collector's target percentage (the GOGC value;
// 0 or less keeps the current one) and its soft memory limit in bytes (0:
// no limit; less than 0 keeps the current one) for the whole process, and
// returns a function that puts back the settings it found.
func TuneGC(percent int, memoryLimit int64) (restore func()) {
	var oldPercent int
	var oldLimit int64
	setPercent, setLimit := percent > 0, memoryLimit >= 0
	if setPercent {
		oldPercent = debug.SetGCPercent(percent)
	}
	if memoryLimit == 0 {
		memoryLimit = math.MaxInt64
	}
	if setLimit {
		oldLimit = debug.SetMemoryLimit(memoryLimit)
	}
	return func() {
		if setPercent {
			debug.SetGCPercent(oldPercent)
		}
		if setLimit {
			debug.SetMemoryLimit(oldLimit)
		}
	}
}

// TuneGCFromFlags is TuneGC for a command with -gc-percent and
// -memory-limit flags: a setting whose flag was not given (percentGiven,
// limitGiven false) yields to the environment's GOGC or GOMEMLIMIT when that
// is set, so an operator's environment is not overridden by a default.
func TuneGCFromFlags(percent int, percentGiven bool, memoryLimit int64, limitGiven bool) (restore func()) {
	if !percentGiven && os.Getenv("GOGC") != "" {
		percent = 0
	}
	if !limitGiven && os.Getenv("GOMEMLIMIT") != "" {
		memoryLimit = -1
	}
	return TuneGC(percent, memoryLimit)
}
