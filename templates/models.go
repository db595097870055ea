// Package templates holds Lockstep's HTML: the course page, the player page
// and the player's panels, written as templ components (the *.templ files;
// the *_templ.go files beside them are generated with
// `go run github.com/a-h/templ/cmd/templ@v0.3.1100 generate` and committed).
//
// Components take the flat view models of this file and nothing else: every
// string is already in the reader's language and every coordinate of the
// SVG drawings is already computed. Package web builds the view models from
// the simulation's frames; this package only lays them out, so the same
// component renders the first page and every fragment the websocket sends.
// templ escapes every value, so lesson text can never become markup.
package templates

// UI holds the fixed strings of the interface in one language. Package web
// fills every field from its message files (the message id is the field
// name), and its tests check that each field has a translation.
type UI struct {
	AppName            string
	Tagline            string
	CourseHeading      string
	CourseIntro        string
	StartLesson        string
	ContinueLesson     string
	ReviewLesson       string
	ProgressNotStarted string
	ProgressDone       string
	ProgressStep       string // JS template: {step}, {total}
	StepsLabel         string
	VariantLabel       string
	DesignsLink        string // the link to the lock designs page (catalog/designs.*.toml)
	SourceLabel        string
	FencingLabel       string
	BackendLabel       string
	LanguageLabel      string
	AllLessons         string
	PresenterMode      string
	ControlsLabel      string
	ToStart            string
	StepBack           string
	Play               string
	Pause              string
	StepForward        string
	ToEnd              string
	ScrubberLabel      string
	SpeedLabel         string
	KeysHelp           string
	StepCounter        string // JS template: {step}, {total}
	NarrationHeading   string
	Misconception      string // heading of a step's misconception callout
	TimelineHeading    string
	TimelineHelp       string
	RedisHeading       string
	DiagramHeading     string
	DownloadMermaid    string
	CommandHeading     string
	LuaSource          string
	KeysLabel          string
	ArgvLabel          string
	ReplyLabel         string
	OutcomeLabel       string
	BranchMark         string
	NoCall             string
	KeyAbsent          string
	KeyNew             string
	KeyDeleted         string
	KeyChanged         string
	PTTLRenewed        string
	PTTLLabel          string
	TypeLabel          string
	FieldLabel         string
	ValueLabel         string
	Housekeeping       string
	Connecting         string
	Connected          string
	Reconnecting       string
	IdleClosed         string
	ServerBusy         string
	ViolationHeading   string
	StaleOwner         string
	StaleOwnerShort    string // the stale window's label where the full one does not fit its column (a phone)
	Believes           string
	RedisSays          string
	StartColumn        string
	Paused             string
	Crashed            string
	Exited             string
	ExitedKey          string
	AsBoolean          string
	Takeaway           string
	LessonNote         string
	NarrationGenerated string // the mark of narration generated from the run
	Expected           string
	NoScript           string
	CurrentState       string
	JustTaken          string
	RedisLane          string
	StaleKey           string
	PausedKey          string
	CrashedKey         string
	TokenOnlyKey       string
	LeaseKey           string
	SkipToPlayer       string
	Loading            string
	RedisDownConn      string // the connection indicator while Redis does not answer
	RedisDownTitle     string
	RedisDownBody      string // JS template: {step}, {backend}
	RedisDownDetails   string
	TryAgain           string
	NotFoundTitle      string
	NotFoundBody       string
	BackToCourse       string
	LockTypeHelp       string
	// Play's stops, the end card, the phone's header and bar (issue 38,
	// items 5, 11 and 14; static/play.js, endcard.templ).
	PlayStopInvariant string
	PlayStopPredict   string
	PlayStopEnd       string
	EndDone           string
	EndDoneBody       string
	// EndSkipped and EndSkippedBody head the end card when the learner
	// came to the last step by a link, End or the scrubber rather than
	// stepping: the lesson is not recorded complete then (static/course.js).
	EndSkipped     string
	EndSkippedBody string
	EndNext        string
	EndLastLesson  string
	EndReplay      string
	EndReplayHelp  string
	EndFork        string
	EndForkHelp    string
	LessonAbout    string
	// The course page's index and overall progress, a lesson's info mark,
	// the author view and the lock page's examples (issue 38; messages in
	// catalog/ui.*.toml).
	CourseIndexLabel      string
	GroupCount            string // {n}
	CourseProgressHeading string
	CourseDoneCount       string // JS template: {done}, {total}
	CourseStartHere       string // {title}
	CourseContinue        string // JS template: {title}
	CourseAllDone         string
	LessonInfo            string
	AuthorView            string
	LockExamples          string
	LockExamplesHelp      string
	LockExampleSound      string
	LockExampleBroken     string
	LockFormatGuide       string
	LockErrorsJump        string
}

// Assets are the URLs of the static files, with their content hashes.
type Assets struct {
	CSS, JS, Icon string
	Presenter     string // presenter mode's stylesheet (body.presenter), after CSS: linked by a page that opens in presenter mode, else by the player's script when the mode is switched on
	NoScript      string // the stylesheet of a browser with JavaScript off
	Page          string // a page's own stylesheet (the live page's), after CSS
}

// LangOption is one entry of the language picker.
type LangOption struct {
	Code    string // en, zh-CN, zh-TW
	Label   string // the language's own name
	URL     string // this page in that language
	Current bool
}

// BackendBadge says which Redis the player runs on.
type BackendBadge struct {
	Embedded bool
	// Pair: the lesson runs on a primary + replica pair of its own, not on
	// the Redis the server was given.
	Pair  bool
	Label string // "embedded Redis" or "Redis 7.0.15 at 127.0.0.1:6379"
}

// Site is what every page under the site header carries: the UI strings,
// interview mode's strings (the header's), the page's language, its assets,
// the language picker, the backend badge and the site navigation.
type Site struct {
	UI      UI
	I       Interview
	Lang    string // BCP 47 tag of the page
	Assets  Assets
	Langs   []LangOption
	Backend BackendBadge
	Nav     []NavLink
}

// CoursePage is the list of lessons.
type CoursePage struct {
	Site
	Groups []CourseGroup
	Map    CourseMap // the closing section
}

// CourseGroup is a part of the course: consecutive lessons of one group.
type CourseGroup struct {
	Title   string // "" for lessons without a group
	Lessons []CourseLesson
}

// CourseLesson is one lesson on the course page.
type CourseLesson struct {
	Number int // place in the course, 1-based
	// Label is the lesson's number as its file names it ("12a"), which
	// narration cites ("lesson 12"); adding a lesson renumbers none.
	Label    string
	ID       string
	Title    string
	Summary  string
	Variant  string
	Source   []SourcePart
	Fencing  bool
	Steps    int
	URL      string
	Progress string // the id the page's script fills with the learner's progress
}

// SourcePart is a piece of where a lesson or a variant comes from, as the
// page shows it. A part that cites a seed document has its Title in the
// reader's language and its file name in Seed (kept for maintainers, in a
// title attribute); Rest is the text that follows it as written, or, with
// no Seed, a piece that cites no seed (a URL, "Redisson RLock").
type SourcePart struct {
	Title string
	Seed  string
	Rest  string
}

// PlayerPage is the page of one lesson. Its panels start empty (a
// "loading" placeholder) and the websocket fills them.
type PlayerPage struct {
	UI       UI
	Lang     string
	Assets   Assets
	LessonID string
	// Timeline is the share code of an explore timeline (a fork or a
	// sandbox), "" for a course lesson or a drill; the page loads it
	// instead of LessonID.
	Timeline  string
	Step      int
	Total     int
	Presenter bool
	Title     string // <title>
	Header    Header
	Controls  Controls
	// Steps is the lesson's steps for predict mode (PredictData.Steps).
	Steps string
	// Panels are the requested step's panels (HTML by data-panel name),
	// when the server could render them before the websocket connects;
	// a panel without one shows Loading.
	Panels map[string]string
}

// Header is the top of the player: the lesson and the page's settings. It is
// re-rendered when the language changes.
type Header struct {
	UI        UI
	CourseURL string
	Number    int
	Label     string // the lesson's number as its file names it (CourseLesson.Label)
	Title     string
	Summary   string
	Variant   string
	LockType  string // "lock key: Hash", localized
	Fencing   bool
	Source    []SourcePart
	Langs     []LangOption
	Backend   BackendBadge
	// Crumb, when set, replaces "All lessons" and the lesson's number in
	// the breadcrumbs (a drill: the drills page, CourseURL its URL).
	Crumb string
	// HomeURL, when set, is the logo's link instead of CourseURL (an
	// explore timeline: the crumb goes to /explore, the logo to the course).
	HomeURL string
	// FindIt is a course lesson's "find it yourself" link: the Search page
	// with the lesson's shape filled in (FindItURL), for a lesson whose
	// failure the search finds; "" for the others.
	FindIt    string
	FindItURL string
	// CT are the classroom's strings; ClassStart shows the button that
	// starts a class (a player of the presenter's), Class the class bar of
	// a student's page.
	CT         ClassTexts
	ClassStart bool
	Class      *ClassBar
	// End is a course lesson's end card, shown at its last step; nil for
	// a drill or an explore timeline.
	End *EndCard
	// Nav is the site's navigation (the course, drills, interview, explore,
	// search, join), NavLabel its name: the way out of a lesson.
	Nav      []NavLink
	NavLabel string
}

// Controls is the player's control bar. It is re-rendered when the language
// changes.
type Controls struct {
	UI     UI
	Step   int
	Total  int
	Speeds []SpeedOption
	// I holds predict mode's strings and Glosses its outcome glosses
	// (PredictData.Glosses), re-rendered with the bar.
	I       Interview
	Glosses string
	// Backend names the Redis the lesson runs on (the header badge's
	// label), for the alert shown when it does not answer.
	Backend string
}

// SpeedOption is one entry of the speed picker.
type SpeedOption struct {
	Value    string // sent as the play message's speed
	Label    string
	Selected bool
}

// NarrationView says what the step did, in the reader's language.
type NarrationView struct {
	UI           UI
	Step         int
	Total        int
	StepLabel    string // "Step 3 of 9" / "Before the first step"
	Time         string // "t = 2 s"
	Headline     string // "A1 acquires order:42"
	Detail       string // "lease 30 s", "2 s pass", ...
	Outcome      string // ACQUIRED, ..., "" for step 0
	OutcomeGloss string
	OutcomeKind  string // good, warn, bad, neutral: a CSS class
	CheckOK      bool
	CheckText    string // "" when the step asserts nothing
	Say          string
	// Generated is set when Say was generated from the run (explore.Narrate:
	// a step the lesson does not narrate, or whose narration does not fit
	// the variant that runs): the page marks it so.
	Generated bool
	Takeaway  string // set on the last step
	// Note is how Lockstep runs the lesson (lesson field note), set before
	// the first step.
	Note string
	// Misconception is the step's misconception callout (lesson field
	// misconception), "" for a step without one.
	Misconception string
}

// AlertsView holds the violation banner and the stale-owner notices.
type AlertsView struct {
	UI         UI
	Violations []AlertItem
	Stale      []string
}

// AlertItem is one invariant violation.
type AlertItem struct {
	Name   string // invariant id, e.g. overlapping-holders
	Title  string
	Detail string
	Lock   string
	Actors string
}

// RedisView lists every key of the run.
type RedisView struct {
	UI     UI
	Keys   []KeyView
	Prefix string // the run's key prefix on a real Redis, "" when embedded
	Time   string
	// Replica holds the replica's keys in a lesson with one, up to its
	// failover; the titles are then set.
	Replica      []KeyView
	PrimaryTitle string
	ReplicaTitle string
	// Nodes holds each node's keys in a lesson with nodes (Redlock's
	// independent primaries), node 1 first; PrimaryTitle then heads Keys,
	// what a majority of the nodes holds.
	Nodes []NodeKeysView
	// KeysMore and ReplicaMore say how many keys of Keys and Replica the
	// panel does not show (view.MaxShownKeys), "" when it shows all.
	KeysMore, ReplicaMore string
}

// NodeKeysView is one node's keys in the Redis panel.
type NodeKeysView struct {
	Node  int    // 1-based
	Title string // "Node 2"
	Keys  []KeyView
	More  string // how many keys the panel does not show, "" when none
}

// KeyView is one key in the Redis panel.
type KeyView struct {
	Name     string
	Type     string // hash, string, none
	Exists   bool
	Change   string // "", new, deleted, changed
	ChangeTx string // the change in words
	Fields   []FieldView
	// FieldsMore says how many fields the panel does not show
	// (view.MaxShownFields), "" when it shows all.
	FieldsMore string
	Value      string
	ValueOld   string
	ValueChg   bool
	Owner      string // actors whose token the string value is, if any
	PTTL       string // "28000 ms"
	PTTLSec    string // "28 s"
	PTTLNote   string // renewed / ticked / housekeeping
	Bar        bool   // draw a lease bar
	BarFrom    int    // bar width before the step, per mille
	BarTo      int    // bar width after the step, per mille
	Renewed    bool
}

// FieldView is one field of a Hash.
type FieldView struct {
	Name    string
	Value   string
	Old     string // previous value when changed
	Changed bool
	New     bool
	Gone    bool   // the field was removed by this step
	Who     string // the actors a token belongs to, e.g. "A, A1"
}

// CommandView shows the Redis calls of the step.
type CommandView struct {
	UI     UI
	Calls  []CallView
	NoCall string
}

// CallView is one script call, or Repeat consecutive calls alike (the
// same script, node, KEYS, ARGV and reply).
type CallView struct {
	Index      int // 1-based, of the first call
	Repeat     int // how many calls the row stands for, at least 1
	Script     string
	SourceID   string // element id of the <details> with the source
	Keys       []ArgView
	Args       []ArgView
	Reply      string
	AsBoolean  string // what a client reading the reply as a Boolean sees
	Outcome    string
	OutcomeKnd string
	Lines      []SourceLine
	// Node is the node the call went to in a lesson with nodes (1-based),
	// NodeLabel its name ("node 2"); 0 and "" otherwise.
	Node      int
	NodeLabel string
}

// ArgView is one KEYS or ARGV entry with the script's own description.
type ArgView struct {
	N     int
	Value string
	Doc   string
}

// SourceLine is one line of Lua source.
type SourceLine struct {
	N      int
	Text   string
	Branch bool // the return statement that produced this reply
}

// DiagramView is seed 001's state diagram, laid out.
type DiagramView struct {
	UI UI
	DiagramDrawing
	Projector   DiagramDrawing // the same, laid out for presenter mode
	Lock        string
	MermaidURL  string
	OffDiagram  string // a note when the step left the diagram
	OtherLocks  []string
	StateLabel  string // "order:42 is Held many (count 2)"
	CurrentName string
}

// DiagramDrawing is one layout of the diagram, in SVG user units.
type DiagramDrawing struct {
	ID     string // prefix of the drawing's element ids
	Width  int
	Height int
	Nodes  []DiagramNode
	Edges  []DiagramEdge
	Start  DiagramStart
}

// DiagramNode is a state.
type DiagramNode struct {
	State   string
	Label   string
	X, Y    int // top left
	W, H    int
	TX, TY  int // label position
	Current bool
	Entered bool // the step moved into this state
}

// DiagramEdge is a transition.
type DiagramEdge struct {
	ID    string
	Path  string
	Label []DiagramText
	Taken bool
	// Wrong marks the drawn transition of a release by the wrong owner
	// (sim.WrongOwner): not an edge of seed 001's diagram.
	Wrong  bool
	Title  string // the full label, for the tooltip
	FromTo string
}

// DiagramText is one line of a label.
type DiagramText struct {
	X, Y int
	Text string
}

// DiagramStart is the initial-state marker.
type DiagramStart struct {
	CX, CY int
	Path   string
}

// TimelineView is the lesson drawn as lanes: a fixed label column and a
// scrolling body of one column per step. Each column carries its own
// shapes, so that a step can send only the columns it changed
// (TimelineColumnBack, Mid and Front render the three layers of one).
type TimelineView struct {
	UI         UI
	LabelWidth int
	Width      int
	Height     int
	HeaderH    int
	CurrentX   int
	ColW       int
	Columns    []TLColumn
	Lanes      []TLLane
	Legend     []TLLegend
}

// AllRects returns the rectangles of every column, in drawing order.
func (t TimelineView) AllRects() []TLRect {
	var out []TLRect
	for _, c := range t.Columns {
		out = append(out, c.Rects...)
	}
	return out
}

// AllPaths returns the lines of every column, in drawing order.
func (t TimelineView) AllPaths() []TLPath {
	var out []TLPath
	for _, c := range t.Columns {
		out = append(out, c.Paths...)
	}
	return out
}

// AllTexts returns the texts of every column, in drawing order.
func (t TimelineView) AllTexts() []TLText {
	var out []TLText
	for _, c := range t.Columns {
		out = append(out, c.Texts...)
	}
	return out
}

// TLColumn is one step of the timeline (column 0 is the start): its header
// and the shapes drawn in it. The shapes of a past column depend only on
// its step's frame and the one before; a future column shows the step's
// ghost chip.
type TLColumn struct {
	X       int
	W, H    int // the column's width and the body's height, in CSS pixels
	Step    int
	Label   string // "#3"
	Time    string // "t=2 s"
	Current bool
	Future  bool
	Title   string
	Rects   []TLRect // zones (paused, crashed, stale) first, then bars and chips
	Paths   []TLPath
	Texts   []TLText
}

// TLLane is one lane: an actor or Redis.
type TLLane struct {
	Y, H int
	Kind string // actor, redis
	ID   string
	Name string
	// Short is the lane's short name (the actor's id, or the Redis lane's
	// name): a phone's narrow label column shows it instead of Name, Sub
	// and Rows, so that its lanes keep the width of four steps' columns.
	Short string
	Sub   string
	Rows  []TLRowLabel
	Faint bool // an actor not forked yet
}

// TLRowLabel names a track inside a lane.
type TLRowLabel struct {
	Y    int
	Text string
}

// TLRect is a rectangle of the timeline body.
type TLRect struct {
	X, Y, W, H int
	Class      string
	Title      string
}

// TLText is a text of the timeline body.
type TLText struct {
	X, Y   int
	Text   string
	Class  string
	Anchor string // start, middle, end
	Title  string
}

// TLPath is a line of the timeline body.
type TLPath struct {
	D     string
	Class string
}

// TLLegend is one entry of the timeline's legend.
type TLLegend struct {
	Class string
	Text  string
}

// NotFoundPage is the page of a lesson id that is not in the course.
type NotFoundPage struct {
	UI        UI
	Lang      string
	Assets    Assets
	ID        string // the id asked for
	CourseURL string
	Langs     []LangOption
	// AgainURL and AgainLabel, when set, lead to a place to try again (a
	// class page with no such class: /join).
	AgainURL, AgainLabel string
}
