package sim

import (
	"errors"
	"fmt"
	"strings"
)

// LoadError is one problem of a lesson: where it is and what it is.
type LoadError struct {
	File string
	// Pos is where the file wrote the offending value (1-based line and
	// column); zero for a lesson without positions (built in code, decoded
	// from a share link).
	Pos Pos
	// Path names the offending field: "lease", "steps[3].lock" (steps and
	// actors count from 1), "actors[2].name.fr" (a locale key); "" for the
	// lesson as a whole.
	Path string
	// Msg says what is wrong in English, for logs and Error.
	Msg string
	// Problem is the same as a message code of the catalogue ("lesson.*"),
	// which says it in the reader's language.
	Problem Msg
}

// Error formats the problem as FILE:LINE:COL: message, or, without a
// position, as PATH: message (FILE: PATH: message with a file name).
func (e LoadError) Error() string {
	if e.Pos == (Pos{}) {
		where, msg := e.Path, e.Msg
		// The path says what the message's own prefix would: "lease: ",
		// "step 3: ".
		if i := strings.LastIndexByte(where, '.'); i >= 0 {
			msg = strings.TrimPrefix(msg, where[i+1:]+": ")
		} else {
			msg = strings.TrimPrefix(msg, where+": ")
		}
		if n, ok := stepOfPath(where); ok {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("step %d: ", n))
		}
		if e.File != "" {
			where = strings.TrimSuffix(e.File+": "+where, ": ")
		}
		if where == "" {
			return msg
		}
		return where + ": " + msg
	}
	file := e.File
	if file == "" {
		file = "<lesson>"
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Msg)
}

// LoadErrors is every problem Load or Validate found in one lesson, in file
// order. Both return it (as error) whenever a lesson is invalid; use
// errors.As to get it.
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

// Options are the settings of the loader and the validator.
type Options struct {
	// Locales are the locales a text field may hold: the message
	// catalogue's (catalog.Catalog.Locales), so that a language added there
	// is one lessons may be written in. Nil means Locales, the lesson
	// format's own.
	Locales []Locale
	// AnyLocale skips the check of text fields' locales, for a lesson whose
	// texts were checked when it came in and do not change what runs: the
	// runner's check, explore's forks of a loaded lesson.
	AnyLocale bool
	// Variant resolves a `variant:` that names a variant file (see
	// IsVariantPath), as the file wrote it, to the loaded and checked
	// variant. Nil: LoadFile reads the variant file relative to the lesson
	// (LoadVariantFile), and Load, which has no directory to read from,
	// refuses such a lesson.
	Variant func(written string) (*VariantDef, error)
}

func (o Options) locales() []Locale {
	if o.Locales == nil {
		return Locales
	}
	return o.Locales
}

// stepOfPath returns the step number of a path "steps[N]...".
func stepOfPath(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "steps[")
	if !ok {
		return 0, false
	}
	n := 0
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c >= '0' && c <= '9':
			n = n*10 + int(c-'0')
		case c == ']' && i > 0:
			return n, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// ReadError is LoadFile's error for a file it cannot read at all.
type ReadError struct {
	Path string
	Err  error // the reason, from the file system
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("sim: %s: cannot read the lesson file: %v", e.Path, e.Err)
}

// Unwrap gives the file system's error (errors.Is(err, fs.ErrNotExist)).
func (e *ReadError) Unwrap() error { return e.Err }

// Message is the problem for people (Coded); the reason stays the system's.
func (e *ReadError) Message() Msg {
	return M("lesson.unreadable", "File", e.Path, "Reason", e.Err.Error())
}
