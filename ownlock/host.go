// Package ownlock serves "Your lock", the Explore page's own-lock pages: a
// learner's variant file and its scripts, pasted or uploaded, checked by
// sim.LoadVariant (every problem beside its line), then run on the whole
// course as a table, each row opening the lesson under the lock in the
// player or on Compare.
//
//	GET  /explore/lock?lang=L      the form (ServeLock)
//	POST /explore/lock             the files: 303 to the lock's link, or 422 with the problems (ServeLockCheck)
//	GET  /explore/lock?k=LOCK      the lock's link: its files and the course table (ServeLock)
//	GET  /explore/lock/open?k=LOCK&lesson=ID[&to=compare]   303 to the lesson under the lock, or the lock page with why not: 400 k, 404 lesson, 422 its run (ServeLockOpen)
//
// The lock travels in its link (a share code of package explore), not in a
// store. Package web routes the requests here and is the Host: pages,
// texts, share codes and runs are web's.
package ownlock

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/a-h/templ"
	lru "github.com/hashicorp/golang-lru/v2"

	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
)

// Host is what the pages need of the server that routes them (package
// web): declared here, by its consumer.
type Host interface {
	// Negotiate is the language of request r; Texts the texts of loc.
	Negotiate(r *http.Request) sim.Locale
	Texts(loc sim.Locale) Texts
	// Catalog is the server's message catalogue.
	Catalog() *catalog.Catalog
	// Site is the site's frame of a page in loc under Explore, langURL the
	// page in another language.
	Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site
	// WritePage renders c as the answer, with status.
	WritePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component)
	// ReadForm reads request r's form, its body bounded by limit bytes and
	// BodyTimeout: tooBig or timedOut say why it failed, if so.
	ReadForm(w http.ResponseWriter, r *http.Request, limit int64) (tooBig, timedOut bool, err error)
	BodyTimeout() time.Duration
	// ClientAddr is the client's address (one course table per address).
	ClientAddr(r *http.Request) string
	// Lessons is the course in order, Course one of its lessons by id (nil:
	// none), LessonLabel lesson l's number as the course shows it (i: its
	// place in the course).
	Lessons() []*sim.Lesson
	Course(id string) *sim.Lesson
	LessonLabel(l *sim.Lesson, i int) string
	// EncodeTimeline and DecodeTimeline are share codes; ExploreURL the
	// player of a share code at step.
	EncodeTimeline(tl explore.Timeline) (string, error)
	DecodeTimeline(code string) (explore.Timeline, error)
	ExploreURL(code string, step int, loc sim.Locale) string
	// LessonFrames are a course lesson's canonical frames; RunFrames runs l
	// on the store its scripts may run on.
	LessonFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error)
	RunFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error)
	// Refusal says in loc why err refused a step (a bound of package sim,
	// the Redis ACL); ok false for any other error.
	Refusal(loc sim.Locale, err error) (reason string, ok bool)
}

// Texts are a locale's texts, as the pages need them.
type Texts interface {
	T(id string, kv ...any) string
	Err(err error) string
	Msg(m sim.Msg) string
	Explore() templates.Explore
	UI() templates.UI
	Locale() sim.Locale
}

// Config configures the pages.
type Config struct {
	Host Host
	// MaxTables bounds the course tables run at once, server-wide (a
	// table runs every lesson); one per client address.
	MaxTables int
	// TableTimeout bounds one course table, all its lessons together;
	// 0 means DefaultLockTableTimeout.
	TableTimeout time.Duration
	// TableCache is how many locks' course tables are kept, whole and
	// without an error row, so that the page's next view (another
	// language, a reload, a class opening a shared link) runs no lesson
	// again: a lock's results are the same on every run (determinism).
	// Each keeps two frames a lesson. 0 means DefaultTableCache; negative,
	// none (BenchmarkLockPage measures both).
	TableCache int
}

// DefaultTableCache is Config.TableCache's default: 64 locks.
const DefaultTableCache = 64

// Pages serves the own-lock pages.
type Pages struct {
	host         Host
	tableTimeout time.Duration
	// lockTables holds a token per course table being run, lockAddrs the
	// client addresses running one.
	lockTables chan struct{}
	lockMu     sync.Mutex
	lockAddrs  map[string]bool
	// tables holds locks' course results by share code (TableCache).
	tables tableCache
}

// New returns the pages of cfg.
func New(cfg Config) *Pages {
	if cfg.TableTimeout <= 0 {
		cfg.TableTimeout = DefaultLockTableTimeout
	}
	if cfg.TableCache == 0 {
		cfg.TableCache = DefaultTableCache
	}
	p := &Pages{host: cfg.Host, tableTimeout: cfg.TableTimeout,
		lockTables: make(chan struct{}, max(1, cfg.MaxTables)), lockAddrs: map[string]bool{}}
	if cfg.TableCache > 0 {
		p.tables.c, _ = lru.New[string, []lessonUnder](cfg.TableCache) // errs only for a size ≤ 0
	}
	return p
}

// EmptyForm is the lock form with nothing filled in (the Explore page
// shows it).
func EmptyForm() templates.LockForm { return lockFiles{}.form() }

// Decode opens a lock's share code (the k of its links): its variant and
// the empty sandbox timeline under it; an error (sim.Coded) for a code
// that is not a lock's.
func (s *Pages) Decode(code string) (*sim.VariantDef, explore.Timeline, error) {
	return s.decodeLock(code)
}

// notALock is Decode's error for a share code without a learner's lock.
func notALock() error {
	return codedError{sim.M("web.lock.not-a-lock"), "ownlock: the link carries no lock of your own"}
}

// codedError is an error whose text a person reads is its catalogue
// message (sim.Coded).
type codedError struct {
	msg  sim.Msg
	text string
}

func (e codedError) Error() string    { return e.text }
func (e codedError) Message() sim.Msg { return e.msg }

// ServeLock, ServeLockCheck and ServeLockOpen are the pages' handlers.
func (s *Pages) ServeLock(w http.ResponseWriter, r *http.Request)      { s.serveLock(w, r) }
func (s *Pages) ServeLockCheck(w http.ResponseWriter, r *http.Request) { s.serveLockCheck(w, r) }
func (s *Pages) ServeLockOpen(w http.ResponseWriter, r *http.Request)  { s.serveLockOpen(w, r) }

// tableCache is an LRU of locks' course results by share code; its zero
// value keeps nothing.
type tableCache struct {
	c *lru.Cache[string, []lessonUnder]
}

// Get returns code's results, if kept.
func (t tableCache) Get(code string) ([]lessonUnder, bool) {
	if t.c == nil {
		return nil, false
	}
	return t.c.Get(code)
}

// Add keeps code's results, dropping the least recently used past the
// cache's size.
func (t tableCache) Add(code string, res []lessonUnder) {
	if t.c != nil {
		t.c.Add(code, res)
	}
}
