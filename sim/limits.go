package sim

import (
	"errors"
	"fmt"
)

// MaxRenewalsPerStep bounds the watchdog renewals one advance step may run.
// Each renewal is a Redis transaction and a call in the step's frame: a
// watchdog lease of 3 ms and an advance of 7 days once made one step run
// 200 million of them (hardening finding 2: 40 s of a core per export, 1.2 M
// commands in 10 s on a real Redis). 1,000 renewals let a 30 s lease advance
// by more than two hours in one step, and cost a real Redis well under a
// second; a longer advance can be split into several steps.
const MaxRenewalsPerStep = 1000

// ErrStepTooLarge is wrapped by the error of a step refused because it
// would do more work than a bound allows; errors.As gives the *LimitError.
var ErrStepTooLarge = errors.New("sim: step exceeds a limit")

// LimitCode names a bound a step may exceed, for the message catalogue.
type LimitCode string

// The bounds a step may exceed.
const (
	// LimitRenewals: more watchdog renewals than MaxRenewalsPerStep.
	LimitRenewals LimitCode = "renewals-per-step"
)

// LimitError is a step refused before it sent anything to Redis, because it
// would exceed a bound: Code names the bound, Max is the bound and Want is at
// least what the step would need, counted until it passed Max (renewals are
// counted as if every one succeeded; one that finds the hold gone would stop
// that hold's watchdog). Runner.Step returns it wrapped, with the run's
// state unchanged.
type LimitError struct {
	Code LimitCode
	Max  int64
	Want int64
}

// Error says, in English, which bound the step exceeds. It has no package
// prefix: Runner.Step wraps it in a *StepRunError, which has one.
func (e *LimitError) Error() string {
	return fmt.Sprintf("the step would run at least %d watchdog renewals, more than the %d one step may run: advance by less per step", e.Want, e.Max)
}

// Message makes LimitError a Coded error: message limit.<Code> with Max and
// Want.
func (e *LimitError) Message() Msg { return M("limit."+string(e.Code), "Max", e.Max, "Want", e.Want) }

// Is makes errors.Is(err, ErrStepTooLarge) hold.
func (e *LimitError) Is(target error) bool { return target == ErrStepTooLarge }

// checkRenewals refuses an advance from cur to end (simulated ms) whose
// watchdog renewals would exceed MaxRenewalsPerStep. It counts, per hold
// whose watchdog runs (see nextRenewal), the renewals due in the interval:
// every lease/3 from the next one due. It does no I/O.
func (r *Runner) checkRenewals(cur, end int64) error {
	var want int64
	r.eachRenewing(end, func(_ string, g *grant) bool {
		want += (end-max(g.renewAt, cur))/r.renewPeriod(g.leaseMS) + 1
		// Stop counting past the bound: the sum could overflow for
		// absurd advances.
		return want <= MaxRenewalsPerStep
	})
	if want > MaxRenewalsPerStep {
		return &LimitError{Code: LimitRenewals, Max: MaxRenewalsPerStep, Want: want}
	}
	return nil
}

// eachRenewing calls fn, in actor and lock order, for every hold whose
// watchdog renews at or before end (simulated ms): the holder's process
// runs or has exited (a paused or crashed process runs no timer), and the
// hold is counted. It stops when fn returns false.
func (r *Runner) eachRenewing(end int64, fn func(lock string, g *grant) bool) {
	if !r.info.Watchdog {
		return
	}
	for _, a := range r.actors {
		if a.status != StatusRunning && a.status != StatusExited {
			continue
		}
		for _, lock := range r.locks {
			g := a.grants[lock]
			if g == nil || g.renewAt <= 0 || g.count <= 0 || g.renewAt > end {
				continue
			}
			if !fn(lock, g) {
				return
			}
		}
	}
}
