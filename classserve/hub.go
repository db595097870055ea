package classserve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/sim"
	"lockstep/templates"
)

// Config configures a Hub. Bus, ServerID and Host are required.
type Config struct {
	// Bus carries every class message between servers (classbus.NewMemory
	// for one process, classbus.Redis for several). The caller closes it
	// after the Hub's context ends.
	Bus classbus.Bus
	// ServerID names this server in a class's state (classroom.State.Owner):
	// 128 random bits, classroom.NewStudentID.
	ServerID string
	// Idle ends a class after this long without a move, a question, an
	// answer or a join, and is the TTL of its state on the bus.
	Idle time.Duration
	// JoinRate and JoinBurst bound the joins of class codes that do not
	// exist, per client address, in joins per second and at once.
	JoinRate  float64
	JoinBurst int
	// JoinGlobalRate and JoinGlobalBurst bound the failed joins of all
	// addresses together, per second and at once.
	JoinGlobalRate  float64
	JoinGlobalBurst int
	// MaxClasses bounds the classes owned here at once, MaxClassesPerAddr
	// those of one presenter's address: a class-start or class-resume over
	// either is refused (ErrCodeClassLimit).
	MaxClasses        int
	MaxClassesPerAddr int
	// Grace ends a class once no presenter's page has been connected to
	// it for this long, and drops its state (dropUnheld).
	Grace time.Duration
	// URLs are the addresses students open ("http://192.168.1.20:8080"),
	// each shown with "/class/CODE" on the presenter's page; empty means the
	// host the presenter's page was opened at.
	URLs []string
	// DrawTimeout bounds drawing one shared frame message (Host.FrameJSON).
	DrawTimeout time.Duration
	// Host is what the hub needs of the web server: course lessons, texts
	// and the player's frame messages.
	Host Host
	// Logf logs server-side problems; nil discards them.
	Logf func(format string, args ...any)
}

// Host is what a hub needs of the server that serves the pages (package
// web): it is declared here, by its consumer.
type Host interface {
	// Course returns the course lesson of id, nil when the course has none.
	Course(id string) *sim.Lesson
	// Texts returns the texts of locale loc.
	Texts(loc sim.Locale) Texts
	// FrameJSON encodes the frame message of course lesson l's step to in
	// locale loc, as a session that showed step from (-1: nothing, the
	// message then carries the chrome) sends it to a student of class.
	FrameJSON(ctx context.Context, l *sim.Lesson, loc sim.Locale, from, to int, class string) ([]byte, error)
}

// Texts are a locale's texts, as a hub needs them.
type Texts interface {
	// Maybe is the catalogue's text of id, "" when it has none.
	Maybe(id string, kv ...any) string
	// Msg renders a message code.
	Msg(m sim.Msg) string
	// Class are the class panel's texts.
	Class() templates.ClassTexts
}

// Hub owns the classes of one server: those whose presenter is here
// (ownedClass) and, for those whose students are here, one bus
// subscription each (classFeed). It ends with the context given to New.
type Hub struct {
	ctx      context.Context
	cfg      Config
	classBus classbus.Bus
	serverID string
	classMu  sync.Mutex
	owned    map[string]*ownedClass
	feeds    map[string]*classFeed
	joins    joinLimits
	// classes counts the classes owned here, per presenter's address
	// (limits.go).
	classes classCounts
}

// New returns a hub of cfg's classes, running until ctx ends.
func New(ctx context.Context, cfg Config) *Hub {
	return &Hub{
		ctx: ctx, cfg: cfg, classBus: cfg.Bus, serverID: cfg.ServerID,
		owned: map[string]*ownedClass{},
		feeds: map[string]*classFeed{},
		joins: joinLimits{rate: rate.Limit(cfg.JoinRate), burst: cfg.JoinBurst},
		classes: classCounts{max: cfg.MaxClasses, perAddr: cfg.MaxClassesPerAddr,
			byAddr: map[string]int{}, addrOf: map[*ownedClass]string{},
			globalJoins: rate.NewLimiter(rate.Limit(cfg.JoinGlobalRate), cfg.JoinGlobalBurst)},
	}
}

func (s *Hub) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// State reads class code's state from the bus: classbus.ErrNoClass when
// there is no such class.
func (s *Hub) State(ctx context.Context, code string) (classroom.State, error) {
	return s.loadClassState(ctx, code)
}

// Feeds returns how many classes have students on this server.
func (s *Hub) Feeds() int {
	s.classMu.Lock()
	defer s.classMu.Unlock()
	return len(s.feeds)
}

// Owned returns how many classes this server owns (their goroutines run).
func (s *Hub) Owned() int {
	s.classMu.Lock()
	defer s.classMu.Unlock()
	return len(s.owned)
}

// Counted returns how many classes count against Config.MaxClasses.
func (s *Hub) Counted() int { return s.classes.counted() }

// Error is a class message's mistake, answered with an error message:
// Code is its error code (ErrCodeClass..., or the protocol's), Msg the
// catalogue's message ws.<id> (catalog/protocol.*.toml) with its
// parameters.
type Error struct {
	Code string
	Msg  sim.Msg
}

// Error is the error in English for logs.
func (e *Error) Error() string {
	return fmt.Sprintf("classserve: %s: %s %v", e.Code, e.Msg.ID, e.Msg.Args)
}

// Message is the message the page shows (sim.Coded).
func (e *Error) Message() sim.Msg { return e.Msg }

// perr is an Error of code with message ws.<id> and its parameters (pairs
// of name, value).
func perr(code, id string, kv ...any) *Error {
	return &Error{Code: code, Msg: sim.M("ws."+id, kv...)}
}

// ErrorCode is the error message's code.
func (e *Error) ErrorCode() string { return e.Code }
