package web

import (
	"math"
	"runtime/debug"
)

// Garbage collection of a player server. A step's frame is built from
// short-lived strings (panels rendered, a message encoded, on the embedded
// backend a fresh Lua state per script call), about 0.3 MB of garbage a
// step, while what lives on between steps is a few MB. Go's default
// (GOGC=100: collect when the heap has doubled) then collects every few
// dozen steps, and a step that meets a collection waits for it: the
// step round trip's p99 was 4-5x its p50 in `make bench` (docs/performance.md).
// A player server collects when the heap has grown by DefaultGCPercent
// instead, under a soft limit of DefaultMemoryLimit bytes past which the
// collector works harder again, as the Go GC guide
// (https://go.dev/doc/gc-guide) suggests for a small live heap and a
// latency target. cli.Serve applies them, with the flags -gc-percent and
// -memory-limit; bench applies the same, as it serves the player in its own
// process.
const (
	DefaultGCPercent   = 400
	DefaultMemoryLimit = 1 << 30 // bytes
)

// TuneGC sets the garbage collector's target percentage (the GOGC value;
// negative turns collection off, which the memory limit then bounds) and
// its soft memory limit in bytes (0: no limit) for the whole process, and
// returns a function that puts back the settings it found.
func TuneGC(percent int, memoryLimit int64) (restore func()) {
	if memoryLimit <= 0 {
		memoryLimit = math.MaxInt64
	}
	oldPercent := debug.SetGCPercent(percent)
	oldLimit := debug.SetMemoryLimit(memoryLimit)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
