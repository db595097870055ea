package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"lockstep/sim"
)

// AdvanceError is a transition of a search that could not run because its
// clock advance is over one of the runner's bounds (a *sim.LimitError: the
// watchdog renewals one step may run): it names the search file's
// `advance:` entry that asked for that advance, FILE:LINE:COL, so that the
// reader knows which amount to make smaller.
type AdvanceError struct {
	File string
	Pos  sim.Pos // the entry of `advance:`; zero when not known
	By   time.Duration
	Err  error // the runner's error (wraps the *sim.LimitError)
}

// Where is the `advance:` entry's place, FILE:LINE:COL ("FILE" alone
// when its position is not known).
func (e *AdvanceError) Where() string {
	if e.Pos.Line == 0 {
		return e.File
	}
	return fmt.Sprintf("%s:%d:%d", e.File, e.Pos.Line, e.Pos.Col)
}

func (e *AdvanceError) Error() string {
	return fmt.Sprintf("search: %s: advance %s: %v", e.Where(), e.By, e.Err)
}

// Unwrap returns the runner's error.
func (e *AdvanceError) Unwrap() error { return e.Err }

// Message makes AdvanceError a Coded error: search.advance-step with Where,
// By (sim.Millis) and Reason (the limit's own message).
func (e *AdvanceError) Message() sim.Msg {
	var reason any = e.Err.Error()
	var le *sim.LimitError
	if errors.As(e.Err, &le) {
		reason = le.Message()
	}
	return sim.M("search.advance-step", "Where", e.Where(), "By", sim.Millis(e.By.Milliseconds()), "Reason", reason)
}

// advanceError wraps err, the error of transition st, as an AdvanceError
// when st is an advance over a runner's bound; otherwise it returns nil.
func advanceError(f *File, st sim.Step, err error) error {
	var le *sim.LimitError
	if st.Do != sim.ActAdvance || !errors.As(err, &le) {
		return nil
	}
	e := &AdvanceError{File: f.Path, By: st.By, Err: err}
	if i := slices.Index(f.Advance, st.By); i >= 0 {
		e.Pos = posAt(f.at.advanceAt, i)
	}
	return e
}

// firstCause picks the error to report among the workers' errors of one
// depth: the first that is not the cancellation the first failure caused
// (the other workers then stop with context.Canceled, and which worker
// fails first depends on scheduling, so reporting by worker order said
// "context canceled" in most runs); the first error when all are
// cancellations; nil when none.
func firstCause(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}
