package templates

import "slices"

// LockPage is the "Your lock" page (/explore/lock): the form for a
// learner's own variant file and scripts, the checks' problems beside
// their lines, and the course run on the lock as a table.
type LockPage struct {
	Site
	X    Explore
	Form LockForm
	// Failed is why the files could not be read (a bound, not UTF-8, a bad
	// link), "" when they were.
	Failed string
	// OpenFailed is why a lesson of the lock's course table could not be
	// opened (GET /explore/lock/open): the link's k or lesson, named, or
	// the lesson's run under the lock; "" otherwise.
	OpenFailed string
	// Files are the files with problems, each with its lines.
	Files []LockFile
	// Name is the lock's name once it passed the checks; ShareURL its page's
	// link, SandboxURL an empty sandbox under it, SearchURL the Search page
	// on it.
	Name, ShareURL, SandboxURL, SearchURL string
	// Warnings are the passed lock's warnings (sim.VariantDef.Warnings: a
	// design that runs here and fails elsewhere, such as the owner id in
	// KEYS), each at its FILE:LINE:COL, as the command line prints them.
	Warnings []ImportError
	// Table is set when the course table was run; Rows are its lessons,
	// TableNote says when the table is cut short or was refused.
	Table     bool
	Rows      []LockRow
	TableNote string
	// Examples are the locks the form can load (view.LockExamples).
	Examples []LockExample
}

// LockExample is a lock the form loads in one click: its id (the variant's
// name), its label in the reader's language, its variant file and scripts.
type LockExample struct {
	ID, Label            string
	VariantName, Variant string
	Scripts              []LockScript
}

// LockForm holds the files as sent (or as a lock's link carries them).
type LockForm struct {
	VariantName, Variant string
	Scripts              []LockScript
}

// LockScript is one script file of the form: its name as the variant file
// names it ("acquire.lua") and its text.
type LockScript struct{ Name, Text string }

// LockFile is one file with problems: its lines, each with the problems
// found on it, and the problems as a list.
type LockFile struct {
	Name   string
	Lines  []LockLine
	Errors []ImportError
}

// LockLine is one line of a file; Errors are the problems at this line
// ("file:line:col message").
type LockLine struct {
	Number int
	Text   string
	Errors []string
}

// LockRow is one course lesson run under the lock.
type LockRow struct {
	ID, Label, Title string
	Variant          string // the lesson's own variant
	// Kind is same, differs, error or skipped (for styling and tests).
	Kind    string
	Same    bool
	Step    int // the first step whose outcome differs, 0 when none
	Verdict string
	// Broken are the invariants the lock breaks on the lesson
	// (explore.BrokenUnder), BrokenOwn those of them the lesson's own
	// lock breaks too (marked).
	Broken, BrokenOwn []string
	// BrokenNames are the invariants' titles in the page's language, by
	// id (the id goes in a tooltip: issue 38, item 10).
	BrokenNames         map[string]string
	PlayURL, CompareURL string
}

// lockBuilderSection is one script section of the variant file builder
// (LockFormCard): its role as the file names it, whether it is written
// only when the learner turns it on, and the fields' first values.
type lockBuilderSection struct {
	Role          string
	Optional      bool
	Argv, Replies string
}

// lockBuilderSections are the builder's script sections, in the order a
// variant file lists them (docs/variant-format.md): renew and
// finish_release (a two-step release's second round trip) are optional.
func lockBuilderSections() []lockBuilderSection {
	return []lockBuilderSection{
		{Role: "acquire", Argv: "owner, lease_ms", Replies: "1: held, 0: BUSY"},
		{Role: "renew", Optional: true, Argv: "owner, lease_ms", Replies: "1: RENEWED, 0: GONE"},
		{Role: "release", Argv: "owner, lease_ms", Replies: "1: RELEASED, 0: STILL_HELD, nil: NOT_OWNER"},
		{Role: "finish_release", Optional: true, Argv: "owner", Replies: "1: RELEASED, 0: NOT_OWNER"},
	}
}

// docsVariantFormat is where the server serves the variant file format
// (docs.VariantFormatURL; package templates does not import the server's
// packages).
const docsVariantFormat = "/docs/variant-format"

// MarkPiece is a piece of a listed line: its text, and the 1-based column
// a problem is at when the piece is that column's mark (0 otherwise).
type MarkPiece struct {
	Text string
	Col  int
}

// lineCols are the columns of file f's problems on line n, each once, in
// order.
func lineCols(f LockFile, n int) []int {
	var cols []int
	for _, e := range f.Errors {
		if e.Line == n && e.Col > 0 && !slices.Contains(cols, e.Col) {
			cols = append(cols, e.Col)
		}
	}
	slices.Sort(cols)
	return cols
}

// markPieces splits a line's text at cols (1-based, in characters): the
// character at each column becomes a marked piece of its own, and a column
// past the line's end marks a space there.
func markPieces(text string, cols []int) []MarkPiece {
	rs := []rune(text)
	var out []MarkPiece
	at := 0
	for _, c := range cols {
		i := c - 1
		if i < at {
			continue
		}
		if i > len(rs) {
			i = len(rs)
		}
		if i > at {
			out = append(out, MarkPiece{Text: string(rs[at:i])})
		}
		if i < len(rs) {
			out = append(out, MarkPiece{Text: string(rs[i]), Col: c})
			at = i + 1
		} else {
			out = append(out, MarkPiece{Text: " ", Col: c})
			at = len(rs)
		}
	}
	if at < len(rs) || len(out) == 0 {
		out = append(out, MarkPiece{Text: string(rs[at:])})
	}
	return out
}
