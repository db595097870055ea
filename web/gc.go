package web

import (
	"errors"
	"flag"
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

// GCFlags are the -gc-percent and -memory-limit flags of a command that
// serves the player (cli.Serve, bench). Register them with AddGCFlags, parse
// the flag set, then Apply.
type GCFlags struct {
	fs      *flag.FlagSet
	percent int
	limit   int64
}

// AddGCFlags registers -gc-percent (default DefaultGCPercent) and
// -memory-limit (bytes, default DefaultMemoryLimit) on fs.
func AddGCFlags(fs *flag.FlagSet) *GCFlags {
	g := &GCFlags{fs: fs}
	fs.IntVar(&g.percent, "gc-percent", DefaultGCPercent, "collect garbage when the heap has grown by this percentage; without the flag, GOGC from the environment stands when set (see web.TuneGC)")
	fs.Int64Var(&g.limit, "memory-limit", DefaultMemoryLimit, "soft memory limit in bytes, past which garbage is collected sooner, 0 for none; without the flag, GOMEMLIMIT from the environment stands when set")
	return g
}

// Apply checks the parsed flags and sets the collector with TuneGC. A
// setting whose flag was not given yields to the environment's GOGC or
// GOMEMLIMIT when that is set, so an operator's environment is not
// overridden by a default. It returns TuneGC's restore, or an error that
// names the flag.
func (g *GCFlags) Apply() (restore func(), err error) {
	if g.percent <= 0 {
		return nil, errors.New("flag -gc-percent: must be at least 1")
	}
	if g.limit < 0 {
		return nil, errors.New("flag -memory-limit: must be 0 (none) or a number of bytes")
	}
	given := map[string]bool{}
	g.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	percent, limit := g.percent, g.limit
	if !given["gc-percent"] && os.Getenv("GOGC") != "" {
		percent = 0
	}
	if !given["memory-limit"] && os.Getenv("GOMEMLIMIT") != "" {
		limit = -1
	}
	return TuneGC(percent, limit), nil
}
