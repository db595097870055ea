package backend_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// workBoundTimeLimit is the step's time bound of a test of bounds that
// count work (turns, pattern work, bytes made): far over what a benign
// script takes, so that on a loaded machine (load 27 on 2 cores, -race:
// "upper in a loop" took over 2 s in the sandbox) the time stop never
// comes before the bound under test, which stops its attack after a
// count, not a time.
const workBoundTimeLimit = 60 * time.Second

// loadFactor is the machine's load over its cores (the 1-minute load
// average of /proc/loadavg over runtime.NumCPU), at least 1: a test that
// checks a stop happens "within the bound and the time it may take to
// stop" allows for scheduling by that factor on a loaded machine, and
// checks the figure as it is on an idle one. 1 where /proc/loadavg cannot
// be read.
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return max(1, l/float64(runtime.NumCPU()))
}

// scaled is d times loadFactor.
func scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * loadFactor())
}
