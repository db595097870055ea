package templates

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
	// Files are the files with problems, each with its lines.
	Files []LockFile
	// Name is the lock's name once it passed the checks; ShareURL its page's
	// link, SandboxURL an empty sandbox under it, SearchURL the Search page
	// on it.
	Name, ShareURL, SandboxURL, SearchURL string
	// Table is set when the course table was run; Rows are its lessons,
	// TableNote says when the table is cut short or was refused.
	Table     bool
	Rows      []LockRow
	TableNote string
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
	Broken, BrokenOwn   []string
	PlayURL, CompareURL string
}
