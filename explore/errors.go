package explore

import (
	"errors"
	"fmt"
	"strings"

	"lockstep/sim"
)

// ErrBadStep is wrapped by every error of Fork, Undo, Sandbox, StepSpec.Step
// and Compare about what the learner asked for: an action the timeline
// cannot take at that point, or a setting out of range. Test with
// errors.Is; errors.As finds the *StepError, whose Message says it for
// people.
var ErrBadStep = errors.New("explore: bad step")

// StepError is what is wrong with a step or a setting the learner chose.
type StepError struct {
	// Msg says what is wrong as a message code of the catalogue
	// ("explore.step.*"); empty when Problems says it all.
	Msg sim.Msg
	// Detail is the same in English.
	Detail string
	// Problems are the lesson rules the timeline would break with the step
	// (sim.Validate's findings, with field paths), if any.
	Problems sim.LoadErrors
}

func (e *StepError) Error() string {
	parts := []string{ErrBadStep.Error()}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	if len(e.Problems) > 0 {
		lines := make([]string, len(e.Problems))
		for i, p := range e.Problems {
			lines[i] = p.Error()
		}
		parts = append(parts, strings.Join(lines, "; "))
	}
	return strings.Join(parts, ": ")
}

// Message is the problem for people (sim.Coded).
func (e *StepError) Message() sim.Msg { return e.Msg }

// Unwrap makes errors.Is(err, ErrBadStep) hold, and errors.As find the
// validator's sim.LoadErrors.
func (e *StepError) Unwrap() []error {
	if len(e.Problems) > 0 {
		return []error{ErrBadStep, e.Problems}
	}
	return []error{ErrBadStep}
}

// badStep is a StepError: m for people, format and args in English.
func badStep(m sim.Msg, format string, args ...any) error {
	return &StepError{Msg: m, Detail: fmt.Sprintf(format, args...)}
}

// rulesBroken is the StepError of a timeline that sim.Validate refused with
// err; m, if not empty, says what was being done ("under hash-nil").
func rulesBroken(err error, m sim.Msg, detail string) error {
	var les sim.LoadErrors
	if !errors.As(err, &les) {
		return fmt.Errorf("%w: %w", ErrBadStep, err)
	}
	return &StepError{Msg: m, Detail: detail, Problems: les}
}
