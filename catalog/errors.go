package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lockstep/sim"
)

// Error returns err in locale l, in plain words: the message of the first
// error in its chain that carries one (sim.Coded: explore's StepError and
// LinkError, a web page's own), followed by the lesson problems it holds
// (sim.LoadErrors), each placed by Where. An error with neither comes back
// as its Go error string.
func (c *Catalog) Error(l sim.Locale, err error) string {
	if err == nil {
		return ""
	}
	var parts []string
	if m, ok := firstMessage(err); ok {
		parts = append(parts, c.Render(l, m))
	}
	var les sim.LoadErrors
	if errors.As(err, &les) && len(les) > 0 {
		lines := make([]string, len(les))
		for i, e := range les {
			lines[i] = c.Problem(l, e)
		}
		parts = append(parts, strings.Join(lines, c.T(l, "error.join")))
	}
	if len(parts) == 0 {
		return err.Error()
	}
	return strings.Join(parts, c.T(l, "error.sep"))
}

// firstMessage is the message of the first error in err's chain (depth
// first, as errors.As walks it) that is sim.Coded with a message: a wrapper
// that is Coded without one (a web protocol error wrapping its cause) does
// not hide its cause's.
func firstMessage(err error) (sim.Msg, bool) {
	if err == nil {
		return sim.Msg{}, false
	}
	if coded, ok := err.(sim.Coded); ok && coded.Message().ID != "" {
		return coded.Message(), true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return firstMessage(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if m, ok := firstMessage(e); ok {
				return m, true
			}
		}
	}
	return sim.Msg{}, false
}

// Problem returns one lesson problem in locale l: "FILE:LINE:COL: message"
// for a file, "step 3: message" for a step of a lesson without positions,
// or the message alone.
func (c *Catalog) Problem(l sim.Locale, e sim.LoadError) string {
	msg := c.Message(l, e)
	w := c.Where(l, e)
	switch {
	case w == "":
		return msg
	case e.Pos != (sim.Pos{}):
		return w + ": " + msg // FILE:LINE:COL: message, as editors and tools read it
	}
	return w + c.T(l, "error.sep") + msg
}

// Message returns what a lesson problem is, in locale l, without its place
// (the English Msg when it carries no code).
func (c *Catalog) Message(l sim.Locale, e sim.LoadError) string {
	if e.Problem.ID == "" {
		return e.Msg
	}
	return c.Render(l, e.Problem)
}

// Where places a lesson problem for people in locale l: FILE:LINE:COL when
// it has a position, the step or actor its path names ("step 3", "actor 2"),
// or "" (a top-level field names itself in the message).
func (c *Catalog) Where(l sim.Locale, e sim.LoadError) string {
	if e.Pos != (sim.Pos{}) {
		file := e.File
		if file == "" {
			file = "<lesson>"
		}
		return fmt.Sprintf("%s:%d:%d", file, e.Pos.Line, e.Pos.Col)
	}
	for _, w := range []struct{ prefix, id string }{{"steps[", "where.step"}, {"actors[", "where.actor"}} {
		rest, ok := strings.CutPrefix(e.Path, w.prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, ']'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return c.T(l, w.id, "N", n)
			}
		}
	}
	return ""
}
