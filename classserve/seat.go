package classserve

import (
	"github.com/gorilla/websocket"

	"lockstep/classroom"
	"lockstep/sim"
)

// Player is what a seat needs of the player session it belongs to (package
// web's session, one per websocket connection): declared here, by its
// consumer. Its methods are called from the session's goroutine only.
type Player interface {
	// Send queues a message for the page; false when the connection is
	// gone. SendErr sends err as an error message (an *Error's Code, else
	// the protocol's), SendPrepared a message encoded once for many pages.
	Send(msg any) bool
	SendErr(re int64, err error)
	SendPrepared(pm *websocket.PreparedMessage) bool
	// Locale is the page's language; SetLocale changes it.
	Locale() sim.Locale
	SetLocale(loc sim.Locale)
	// Running reports whether the session has a run; Lesson is its lesson,
	// Frames the frames it has run and Cur the step the page shows.
	Running() bool
	Lesson() *sim.Lesson
	Frames() []sim.Frame
	Cur() int
	// Shown is what the run shows, as a class names it; ShowsOther reports
	// whether it shows something else than class state st.
	Shown() classroom.Shown
	ShowsOther(st classroom.State) bool
	// Open starts a run of what class state st shows, at its step (an
	// error the page is sent when it cannot be opened).
	Open(re int64, st classroom.State) error
	// StopPlay, CloseRun and MoveTo are the player's: stop playing, end
	// the run (its keys deleted), show step (an error message on failure).
	StopPlay()
	CloseRun()
	MoveTo(re int64, step int)
	// Addr is the client's address (the join limits'), Host the Host its
	// page was opened at (the join address without Config.URLs).
	Addr() string
	Host() string
	// ListenPort is the TCP port the server accepted the page's
	// connection on (its listener's, whatever -addr said), 0 when unknown:
	// the port of the command the class panel gives to listen on the
	// room's network (templates.LoopbackCommand).
	ListenPort() int
	// Touch records the class's activity as the session's; the
	// connection's writer calls it too.
	Touch()
	// WriterWake is the connection writer's one-slot wake channel; Follow
	// has the writer serve f (nil: none), Unfollow stops it serving f.
	WriterWake() chan struct{}
	// WriterDeliver is the connection writer's fast path, which shows
	// the Follow'ed follower its feed's newest state from the caller's
	// goroutine (Deliverer). The writer's own, not a method of the Player:
	// a move calls it for every student, and each hop through the session
	// is a cache miss.
	WriterDeliver() Deliverer
	Follow(f *Follower)
	Unfollow(f *Follower)
}

// Deliverer is a connection writer's fast path: Deliver shows the writer's
// follower its feed's newest state from the caller's goroutine (a class
// feed's, one per core), without waiting on the connection, when the
// writer is idle, and returns false when it did not (the caller then
// wakes the writer). An interface rather than a func: a func value of a
// method is an object of its own, one more cache miss per student of a
// move (about 2% of the server's CPU at 1,000 students, perf, issue 34),
// where an interface's method table is one for all.
type Deliverer interface{ Deliver() bool }

// DeliverFunc is a func as a Deliverer.
type DeliverFunc func() bool

// Deliver calls d.
func (d DeliverFunc) Deliver() bool { return d() }

// Request is a page's class message (docs/classroom.md), its fields
// checked by the protocol's parser: the code in capitals, the language a
// locale of the catalogue.
type Request struct {
	Type    string
	ID      int64 // echoed in the replies' re
	Code    string
	Key     string
	Student string
	Choice  string
	Lang    string
	Step    *int
	Follow  *bool
}

// Seat is one player session's part in the classes of a hub: none, the
// presenter of one, or a student of one. The session's goroutine calls
// its methods.
type Seat struct {
	srv   *Hub
	p     Player
	class *classLink
	// student is the connection's student id from its first class-join
	// on: one connection is one student (issue 37, item 5).
	student string
}

// Seat returns the seat of player p, in no class.
func (s *Hub) Seat(p Player) *Seat { return &Seat{srv: s, p: p} }

// Handle carries out class message m (Type one of IsClassType's).
func (s *Seat) Handle(m Request) { s.handleClass(m) }

// Wake is the channel that wakes the session for its class; OnWake is the
// session's answer to it.
func (s *Seat) Wake() <-chan struct{} { return s.classWake() }
func (s *Seat) OnWake()               { s.onClassWake() }

// Leave ends the session's part in its class (the session ends, or joins
// another).
func (s *Seat) Leave() { s.leaveClass() }

// Lang follows a change of the page's language.
func (s *Seat) Lang() { s.classLang() }

// Sync publishes what the presenter's page shows, after each of its
// frames; nothing for a session that presents no class.
func (s *Seat) Sync() { s.syncClass() }

// Following reports whether the session is a student who follows its
// class: its player messages are refused (ErrCodeClassFollowing).
func (s *Seat) Following() bool { return s.class.isStudent() && s.class.following }

// StudentCode is the code of the class the session is a student of, ""
// when none.
func (s *Seat) StudentCode() string {
	if !s.class.isStudent() {
		return ""
	}
	return s.class.code
}

// The player's methods the class code calls, under the names it had when
// it was part of the session.
func (s *Seat) send(msg any) bool                  { return s.p.Send(msg) }
func (s *Seat) sendErr(re int64, err error)        { s.p.SendErr(re, err) }
func (s *Seat) stopPlay()                          { s.p.StopPlay() }
func (s *Seat) closeRun()                          { s.p.CloseRun() }
func (s *Seat) moveTo(re int64, step int)          { s.p.MoveTo(re, step) }
func (s *Seat) locale() sim.Locale                 { return s.p.Locale() }
func (s *Seat) shown() classroom.Shown             { return s.p.Shown() }
func (s *Seat) showsOther(st classroom.State) bool { return s.p.ShowsOther(st) }
func (s *Seat) sendPrepared(pm *websocket.PreparedMessage) bool {
	return s.p.SendPrepared(pm)
}

// texts are the texts of locale loc.
func (s *Hub) texts(loc sim.Locale) Texts { return s.cfg.Host.Texts(loc) }

// Next is what the connection's writer sends for its follower's class (the
// newest state of the feed): the shared frame, then the class-status, each
// nil when the page has it or the session serves the state (next).
func (f *Follower) Next() (frame, status *websocket.PreparedMessage) { return f.next() }

// NextWire is Next for a writer that can write bytes framed for it as they
// are: a student in sync on a move gets the move's frame and status as the
// bytes a connection that deflates (deflate) or not puts on the wire, made
// by wire once per move and choice and kept with the move (b; frame and
// status nil); any other, or when wire cannot make them, Next's messages
// (b nil).
func (f *Follower) NextWire(deflate bool, wire WireFunc) (b []byte, frame, status *websocket.PreparedMessage) {
	return f.nextWire(deflate, wire)
}

// Touch records a send of the writer as the session's activity.
func (f *Follower) Touch() { f.touch() }
