package templates

// SearchTexts are the Search page's strings (catalog/searchpage.*.toml),
// every field from the message of the same id.
type SearchTexts struct {
	NavSearch          string
	SearchHeading      string
	SearchIntro        string
	SearchShapeHeading string
	SearchVariant      string
	SearchActors       string
	SearchDepth        string
	SearchLease        string
	SearchFencing      string
	SearchMoves        string
	SearchExpiry       string
	SearchInvariants   string
	SearchStart        string
	SearchStop         string
	SearchFileHeading  string
	SearchFileHelp     string
	SearchFilePick     string
	SearchFileText     string
	SearchFileStart    string
	SearchProgress     string
	SearchDepthReached string
	SearchStates       string
	SearchRate         string
	SearchTransitions  string
	SearchResults      string
	SearchColInvariant string
	SearchColResult    string
	SearchColTimeline  string
	SearchOpen         string
	SearchIdle         string
	SearchRunning      string
	SearchStopping     string
	SearchConnLost     string
	SearchFromLesson   string
	SearchFindIt       string
	SearchCrumb        string
	// SearchBadNumber says a number field holds no whole number; the
	// page's script puts the field's label for "{field}".
	SearchBadNumber string
}

// SearchPage is the Search page (/search): pick a variant and a shape, or
// a search file, run it over the websocket, and open each breaking
// timeline in the player.
type SearchPage struct {
	Site
	S SearchTexts
	// The shape's form, filled with the chosen variant's course search
	// file, or with the address's query parameters (a lesson's "find it
	// yourself" link: FromLesson is then that lesson's title).
	Variants   []SearchVariant
	Actors     int
	MaxActors  int
	Depth      int
	MaxDepth   int
	LeaseMS    int64
	Fencing    bool
	Expiry     bool
	Moves      []SearchChoice
	Invariants []SearchChoice
	FromLesson string
	// LockCode is the share code of the learner's own lock when the page
	// searches it (/search?lock=): the picker's selected entry, sent with
	// the search message.
	LockCode string
	// Problems are the address's parameters that do not read (each left
	// at the variant's value), in the page's language.
	Problems []SearchProblem
}

// SearchProblem is a query parameter of the page's address that does not
// read: Field names it (actors, depth, lease_ms, fencing, expiry, moves,
// invariants, variant), Text says what is wrong.
type SearchProblem struct {
	Field string
	Text  string
}

// SearchVariant is a variant of the form's picker; Defaults is the JSON of
// its course search file's shape ({"lease_ms", "fencing", "actors",
// "depth", "moves", "advance_ms", "invariants"}), which the page's script
// puts in the form when the variant is picked.
type SearchVariant struct {
	Name     string
	Selected bool
	Defaults string
}

// SearchChoice is one checkbox of the form (a move, an invariant).
type SearchChoice struct {
	Value   string
	Label   string
	Checked bool
}
