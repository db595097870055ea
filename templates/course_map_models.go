package templates

// CourseMap is the course page's closing section (issue 16 section 4): the
// kinds of failure the course shows, each with its failure lessons and
// the fix, and the difference between a lock for efficiency and a lock for
// correctness, with its source.
type CourseMap struct {
	Heading     string
	Intro       string
	FailuresLbl string // "Failure lessons"
	FixLbl      string // "The fix"
	Kinds       []CourseKind
	// Purpose is the efficiency-versus-correctness part: its heading, its
	// paragraphs, and the source it retells (text and address).
	PurposeHeading string
	Purpose        []string
	SourceText     string
	SourceURL      string
}

// CourseKind is one kind of failure: what goes wrong, the course lessons
// that show it failing, what fixes it and the lessons that show the fix.
type CourseKind struct {
	ID       string // identity, atomicity, time, replication
	Name     string
	What     string
	Failures []CourseMapLesson
	Fix      string
	Fixes    []CourseMapLesson
}

// CourseMapLesson is a lesson named in the course map: its number as the
// file names it, its title and its player address.
type CourseMapLesson struct {
	Label, Title, URL string
}
