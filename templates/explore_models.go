package templates

// Explore holds the strings of explore mode in one language: the player's
// fork menu, the explore page (sandbox and import) and the compare page.
// Package web fills every field from its message files, like UI (the
// message id is the field name). Fields marked "JS template" hold
// {placeholders} that the page's script fills.
type Explore struct {
	NavExplore       string
	ExploreHeading   string
	ExploreIntro     string
	ForkHeading      string
	ClockGroup       string
	AdvanceCustom    string
	AdvanceMs        string
	AdvanceApply     string
	AdvanceSubmit    string
	ClockJumpCustom  string
	NoChoices        string
	Undo             string
	UndoHelp         string
	UndoNone         string // why undo is off: no step of the timeline was added in explore mode
	CopyLink         string
	Copied           string // JS
	CopyFailed       string // JS
	ExportHeading    string
	ExportYAML       string
	ExportYAMLEmpty  string // why an empty timeline has no lesson file to export
	ExportMermaid    string
	ExportSVG        string
	CompareWith      string
	CompareRun       string
	OriginalLesson   string
	ForkCrumb        string
	SandboxCrumb     string
	UnderCrumb       string // a lesson run under another variant (explore.KindUnder)
	ImportCrumb      string
	OwnLockCrumb     string
	SandboxHeading   string
	SandboxIntro     string
	VariantField     string
	LeaseField       string
	FencingField     string
	ActorsField      string
	LockField        string
	LockFieldHelp    string
	SandboxFailed    string
	CompareEmpty     string
	ReplicaField     string
	StartSandbox     string
	ImportHeading    string
	ImportIntro      string
	ImportPaste      string
	ImportFile       string
	ImportRun        string
	ImportErrors     string
	ImportLine       string
	BadLinkTitle     string
	BadLinkBody      string
	CompareTitle     string
	CompareFirstDiff string // {step}: filled by package web
	CompareSame      string
	CompareStep      string
	CompareAction    string
	CompareFailed    string
	OpenInPlayer     string
	StatusPaused     string
	// Your lock (LockPage).
	LockHeading      string
	LockIntro        string
	LockOpenPage     string
	LockVariantName  string
	LockVariantText  string
	LockVariantFile  string
	LockScriptName   string
	LockScriptText   string
	LockScriptFiles  string
	LockCheck        string
	LockErrors       string
	LockFailed       string
	LockPassed       string // {name}: filled by package web
	LockShare        string
	LockSandbox      string
	LockSearch       string
	LockTableHeading string
	LockLesson       string
	LockOwnVariant   string
	LockVerdict      string
	LockBreaks       string
	LockBrokenOwnToo string // the mark of an invariant the lesson's own lock breaks too
	LockOpen         string
	LockCompare      string
	LockBuilder      string
	LockBuilderIntro string
	LockKeyLayout    string
	LockOwnerKind    string
	LockReentry      string
	LockScriptKeys   string
	LockScriptArgv   string
	LockReplies      string
	LockWrite        string
	// The builder's other sections (issue 33 item 8).
	LockSource         string
	LockCountKey       string
	LockOtherKeys      string
	LockSectionOn      string
	LockRenewHelp      string
	LockEvery          string
	LockFinishHelp     string
	LockArrayReply     string
	LockBooleanReading string
	// The import of a lesson that names a variant file (issue 33 item 8).
	ImportVariantHeading string
	ImportVariantHelp    string
	ImportVariantText    string
	ImportVariantFile    string
}

// ChoiceButton is one action of the fork menu. Spec is the JSON of the
// fork message's action.
type ChoiceButton struct {
	Label string
	Title string
	Spec  string
	Kind  string // the action, for styling: acquire, release, ...
}

// ChoiceGroup is one actor's actions in the fork menu.
type ChoiceGroup struct {
	Title   string
	Status  string
	Choices []ChoiceButton
}

// ExplorePanelView is the explore panel of the player: the fork menu at the
// current step, undo, share, export and compare.
type ExplorePanelView struct {
	UI UI
	X  Explore
	// Step is the step the menu continues from.
	Step   int
	Help   string // "Continue after step 3 with:", localized
	Drops  string // "Steps 4 to 9 will be dropped", localized; "" when none
	Groups []ChoiceGroup
	Clock  []ChoiceButton
	// Timeline is true for an explore timeline (fork or sandbox), false for a
	// course lesson or a drill.
	Timeline bool
	CanUndo  bool
	// Empty is true for a timeline with no step yet: a lesson file needs
	// one, so its YAML export is shown off, with the reason.
	Empty bool
	// Lesson is the course lesson's or drill's id that export links name,
	// "" for a timeline (the page's script adds its share code).
	Lesson string
	// Code is the timeline's share code ("" for a course lesson or drill).
	Code     string
	Lang     string
	Variant  string
	Variants []string
	// OriginURL links back to the lesson a fork comes from, at the fork's
	// step; OriginTitle is its title.
	OriginURL   string
	OriginTitle string
}

// ExplorePage is the explore start page: a sandbox form and the import of a
// lesson file. Errors, when an import failed, come with the text that was
// sent so nothing is lost.
type ExplorePage struct {
	Site
	X        Explore
	Variants []VariantOption
	// Lock is the "Your lock" form (LockFormCard), empty.
	Lock LockForm
	// Import: the text sent, its lines, and the loader's errors.
	ImportText   string
	ImportLines  []ImportLine
	ImportErrors []ImportError
	// ImportLock is the variant file and scripts sent beside the lesson
	// (for a lesson that names a variant file), with a slot per script.
	ImportLock LockForm
	// BadLink is the message of a share link that could not be opened, and
	// BadLinkReason its kind in the page's language.
	BadLink       string
	BadLinkReason string
	// Sandbox is the sandbox form's values (the defaults, or what was sent
	// when SandboxError says why it was refused).
	Sandbox      SandboxForm
	SandboxError string
}

// SandboxForm holds the sandbox form's fields as the learner typed them.
type SandboxForm struct {
	LeaseMS, Actors, Lock string
	Fencing, Replica      bool
}

// VariantOption is a variant in a select, with its source: an <option>
// holds only text, so Source is the text with the seeds' titles and Seeds
// the seed file names it cites, for the title attribute ("" for none).
type VariantOption struct {
	Name     string
	Source   string
	Seeds    string
	Selected bool
}

// ImportLine is one line of an imported file; Error marks the lines an error
// names.
type ImportLine struct {
	Number int
	Text   string
	Error  bool
}

// ImportError is one problem the loader found, at FILE:LINE:COL.
type ImportError struct {
	Line, Col int
	Msg       string
	Where     string // "lesson.yaml:4:7"
	// Elsewhere: the problem is in another file than the one listed (the
	// variant file a lesson names, or one of its scripts), so no line of
	// the listing is its.
	Elsewhere bool
}

// ComparePage shows one timeline under two variants.
type ComparePage struct {
	Site
	X     Explore
	Title string
	// Query holds the timeline's hidden form fields (t or lesson).
	QueryName, QueryValue string
	// LockCode is the share code of the learner's own lock (k) when the
	// page compares with it, a hidden field of the form.
	LockCode   string
	A, B       string
	Variants   []string
	Summary    string // first difference, or none
	Error      string
	Rows       []CompareRow
	AURL, BURL string // the timeline under each variant, in the player
	BackURL    string // the timeline as it was, in the player
}

// CompareRow is one step of a comparison.
type CompareRow struct {
	Step    int
	Action  string
	A, B    CompareCell
	Differs bool
	First   bool
}

// CompareCell is one variant's result of a step.
type CompareCell struct {
	Outcome    string
	Kind       string // ok, warn, bad: the outcome's colour
	Replies    string
	Violations string
}

// compareDocTitle is the Compare page's document title: what runs under
// which two variants first ("Stale owner: a vs b"), so that several
// compare tabs can be told apart.
func compareDocTitle(p ComparePage) string {
	head := p.X.CompareTitle
	if p.A != "" && p.B != "" {
		head = p.A + " vs " + p.B + " · " + head
		if p.Title != "" {
			head = p.Title + ": " + head
		}
	}
	return head + " · " + p.UI.AppName
}

// importVariantOpen reports whether the import form shows its variant
// file part open: a variant file or a script was sent, or a problem is in
// one of them.
func importVariantOpen(p ExplorePage) bool {
	if p.ImportLock.Variant != "" {
		return true
	}
	for _, sc := range p.ImportLock.Scripts {
		if sc.Name != "" || sc.Text != "" {
			return true
		}
	}
	for _, e := range p.ImportErrors {
		if e.Elsewhere {
			return true
		}
	}
	return false
}
