package sim

import (
	"errors"
	"fmt"
	"strings"
)

// LoadError is one problem in a lesson file, at a 1-based line and column.
type LoadError struct {
	File string
	Pos  Pos
	Msg  string
}

// Error formats the problem as FILE:LINE:COL: message.
func (e LoadError) Error() string {
	file := e.File
	if file == "" {
		file = "<lesson>"
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Msg)
}

// LoadErrors is every problem Load found in one file, in file order. Load
// returns it (as error) whenever a file is invalid; use errors.As to get it.
type LoadErrors []LoadError

// Error joins the problems, one per line.
func (es LoadErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// ErrInvalidLesson is wrapped by every error Load returns for a file that
// breaks the lesson format; test with errors.Is.
var ErrInvalidLesson = errors.New("sim: invalid lesson")

// Is makes errors.Is(LoadErrors, ErrInvalidLesson) hold.
func (es LoadErrors) Is(target error) bool { return target == ErrInvalidLesson }
