// Package searchpage serves the Search page (/search) and runs its
// searches over the player's websocket: the page's form filled from a
// variant's course search file and the address's parameters (page.go),
// the lessons' "find it yourself" links (lessons.go), and the search and
// search-stop messages with their progress and result (search.go), within
// the server's bounds (Config): the slots shared between addresses
// (fair.go) and a message's lists (limits.go). Package search does the
// searching; package web routes the page, carries the messages and is the
// Host.
package searchpage

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"lockstep/explore"
	"lockstep/search"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// The search messages of the websocket protocol (docs/web.md): the page's
// search and search-stop (package web's MsgSearch, MsgSearchStop), and the
// server's progress and result.
const (
	MsgSearchProgress = "search-progress"
	MsgSearchResult   = "search-result"
)

// Error codes of the search messages.
const (
	ErrCodeBadSearch     = "bad-search"     // search's shape or file breaks the search format (fields names each field)
	ErrCodeSearchRunning = "search-running" // search while this session's search runs
	ErrCodeSearchFull    = "search-full"    // search while the server runs Config.Max searches
	ErrCodeNoSearch      = "no-search"      // search-stop with no search running
	errCodeInternal      = "internal"       // the search failed (package web's ErrCodeInternal)
)

// Config bounds the searches of one server.
type Config struct {
	// Max bounds the searches running at once; a search over it is
	// refused (ErrCodeSearchFull). A session runs one at a time.
	Max int
	// Timeout, MaxStates and MaxBytes bound one search
	// (search.Config.MaxStates and MaxBytes: bytes, 0 is
	// search.DefaultMaxBytes); Workers is how many workers it runs on.
	Timeout   time.Duration
	MaxStates int
	MaxBytes  int64
	Workers   int
	// Share: when every slot is taken, a search asked for by an address
	// with none running stops the search that has run the longest, if it
	// has run this long, and takes its slot (fair.go).
	Share time.Duration
	// Backend runs the searches; Custom, when not nil, those that run a
	// learner's own scripts (the Lua sandbox, unless the server's Redis is
	// opened to them).
	Backend *search.Backend
	Custom  *search.Backend
	Host    Host
}

// Host is what the page and the searches need of the server (package web):
// declared here, by its consumer.
type Host interface {
	Negotiate(r *http.Request) sim.Locale
	Texts(loc sim.Locale) Texts
	// Site is the site's frame of a page in loc under Search.
	Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site
	WritePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component)
	// Course is a course lesson by id, nil when none.
	Course(id string) *sim.Lesson
	// DecodeLock opens a learner's lock's share code (package ownlock).
	DecodeLock(code string) (*sim.VariantDef, explore.Timeline, error)
	// LessonRules are the rules a share code's lesson is checked by;
	// ExploreURL is the player of a share code at step.
	LessonRules() sim.Options
	ExploreURL(code string, step int, loc sim.Locale) string
}

// Texts are a locale's texts, as the page and the results need them.
type Texts interface {
	view.Texts
	Err(err error) string
	Search() templates.SearchTexts
}

// Searches runs the Search page's searches of one server until the
// context given to New ends.
type Searches struct {
	ctx  context.Context
	cfg  Config
	host Host
	// shares holds the slots of the running searches (Config.Max), shared
	// between addresses (fair.go).
	shares *searchShares
}

// New returns the searches of cfg.
func New(ctx context.Context, cfg Config) *Searches {
	return &Searches{ctx: ctx, cfg: cfg, host: cfg.Host, shares: newSearchShares(max(1, cfg.Max), cfg.Share)}
}

// Player is what a seat needs of the player session it belongs to (package
// web's session): declared here, by its consumer.
type Player interface {
	Send(msg any) bool
	SendErr(re int64, err error)
	Locale() sim.Locale
	SetLocale(loc sim.Locale)
	// Addr is the client's address, by which the slots are shared.
	Addr() string
}

// Message is a page's search message: its id (echoed in re), its language
// and its search.
type Message struct {
	ID     int64
	Lang   string
	Search *Request
}

// Seat is one session's part in the searches: the search it runs, if any.
// The session's goroutine calls its methods.
type Seat struct {
	srv    *Searches
	p      Player
	search *runningSearch
}

// Seat returns the seat of player p, running no search.
func (s *Searches) Seat(p Player) *Seat { return &Seat{srv: s, p: p} }

// Start starts the search of m (MsgSearch); Stop asks the running one to
// stop (MsgSearchStop); End cancels it and waits (the session ends).
func (s *Seat) Start(m Message) { s.startSearch(m) }
func (s *Seat) Stop(re int64)   { s.stopSearch(re) }
func (s *Seat) End()            { s.endSearch() }

// Progress and Result are the running search's channels, nil (never
// ready) when none runs; Finish sends the result Result gave.
func (s *Seat) Progress() <-chan ProgressMessage { return s.searchProgress() }
func (s *Seat) Result() <-chan Outcome           { return s.searchResult() }
func (s *Seat) Finish(out Outcome)               { s.finishSearch(out) }

// Outcome is what a search's goroutine hands the session at its end.
type Outcome = searchOutcome

// Error is a search message's mistake, answered with an error message:
// Code its error code, Msg the catalogue's message (or none, and Cause as
// the catalogue words it), Fields the request's fields it names.
type Error struct {
	Code   string
	Msg    sim.Msg
	Cause  error
	Fields []string
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("searchpage: %s: %v", e.Code, e.Cause)
	}
	return fmt.Sprintf("searchpage: %s: %s %v", e.Code, e.Msg.ID, e.Msg.Args)
}

// Message is the message the page shows (sim.Coded); Unwrap the cause.
func (e *Error) Message() sim.Msg { return e.Msg }
func (e *Error) Unwrap() error    { return e.Cause }

// ErrorCode and ErrorFields are the error message's code and fields.
func (e *Error) ErrorCode() string     { return e.Code }
func (e *Error) ErrorFields() []string { return e.Fields }

// perr is an Error of code with message ws.<id> and its parameters.
func perr(code, id string, kv ...any) *Error {
	return &Error{Code: code, Msg: sim.M("ws."+id, kv...)}
}

// ServeSearch is the Search page's handler (GET /search).
func (s *Searches) ServeSearch(w http.ResponseWriter, r *http.Request) { s.serveSearch(w, r) }

// LessonLink is the Search page's link of lesson l: its "find it yourself"
// link; false for a lesson the page has none for.
func LessonLink(l *sim.Lesson) (Link, bool) { return lessonSearch(l) }

// Running is how many searches hold a slot now.
func (s *Searches) Running() int { return s.shares.len() }

// SetClock makes the slots' sharing read time from now (tests).
func (s *Searches) SetClock(now func() time.Time) { s.shares.setClock(now) }

// LessonSearches are the course lessons with a "find it yourself" link, each
// with the invariants its link's search breaks (a fresh map each call).
func LessonSearches() map[string][]string { return lessonSearches() }
