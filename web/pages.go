package web

import (
	"context"
	"net/http"
	"runtime"
	"time"

	"github.com/a-h/templ"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/explorepage"
	"lockstep/ownlock"
	"lockstep/search"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/webnet"
)

// pageHost is the server as the Host of the pages served by packages of
// their own (ownlock): pages, texts, share codes and runs.
type pageHost struct{ s *Server }

func (h pageHost) Negotiate(r *http.Request) sim.Locale { return h.s.negotiate(r) }
func (h pageHost) Texts(loc sim.Locale) ownlock.Texts   { return h.s.tr(loc) }
func (h pageHost) Catalog() *catalog.Catalog            { return h.s.translators.cat }
func (h pageHost) Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site {
	return h.s.site(loc, navExplore, langURL)
}
func (h pageHost) WritePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	writePage(w, r, status, c)
}
func (h pageHost) ReadForm(w http.ResponseWriter, r *http.Request, limit int64) (tooBig, timedOut bool, err error) {
	return webnet.ReadForm(w, r, limit, explorepage.MaxImportBytes, h.s.cfg.BodyTimeout)
}
func (h pageHost) BodyTimeout() time.Duration              { return h.s.cfg.BodyTimeout }
func (h pageHost) ClientAddr(r *http.Request) string       { return h.s.clientAddr(r) }
func (h pageHost) Lessons() []*sim.Lesson                  { return h.s.lessons }
func (h pageHost) Course(id string) *sim.Lesson            { return h.s.byID[id] }
func (h pageHost) LessonLabel(l *sim.Lesson, i int) string { return lessonLabel(l, i) }
func (h pageHost) EncodeTimeline(tl explore.Timeline) (string, error) {
	return h.s.encodeTimeline(tl)
}
func (h pageHost) DecodeTimeline(code string) (explore.Timeline, error) {
	return h.s.decodeTimeline(code)
}
func (h pageHost) ExploreURL(code string, step int, loc sim.Locale) string {
	return exploreURL(code, step, loc, false)
}
func (h pageHost) LessonFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	return h.s.lessonFrames(ctx, l)
}
func (h pageHost) RunFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	return h.s.runFrames(ctx, l)
}
func (h pageHost) Refusal(loc sim.Locale, err error) (string, bool) {
	_, reason, ok := stepRefusal(h.s.tr(loc), err)
	return reason, ok
}

// decodeLock opens a lock's share code (k): package ownlock's Decode.
func (s *Server) decodeLock(code string) (*sim.VariantDef, explore.Timeline, error) {
	return s.locks.Decode(code)
}

// lockOpener is where Compare's runs of l open their stores: openerFor
// l, or for a comparison with a learner's own lock (defs), the store its
// custom scripts may run on.
func (s *Server) lockOpener(l *sim.Lesson, defs []*sim.VariantDef) sim.StoreOpener {
	if len(defs) > 0 {
		return s.openerFor(&sim.Lesson{VariantDef: defs[0]})
	}
	return s.openerFor(l)
}

// exploreHost is the server as package explorepage's Host: pageHost, and
// the player's links, titles and runs of explore timelines.
type exploreHost struct{ pageHost }

func (h exploreHost) Texts(loc sim.Locale) explorepage.Texts { return h.s.tr(loc) }
func (h exploreHost) Langs(loc sim.Locale, langURL func(sim.Locale) string) []templates.LangOption {
	return langOptions(h.s.tr(loc), langURL)
}
func (h exploreHost) LessonRules() sim.Options { return h.s.lessonRules() }
func (h exploreHost) Lesson(ctx context.Context, id string) explore.Timeline {
	return h.s.lesson(ctx, id)
}
func (h exploreHost) OriginLesson(o explore.Origin) *sim.Lesson  { return h.s.originLesson(o) }
func (h exploreHost) TimelineTitle(tl explore.Timeline) sim.Text { return h.s.timelineTitle(tl) }
func (h exploreHost) LessonURL(id string, step int, loc sim.Locale) string {
	return lessonURL(id, step, loc, false)
}
func (h exploreHost) ServeTimeline(w http.ResponseWriter, r *http.Request, tl explore.Timeline, code string) {
	h.s.serveTimeline(w, r, tl, code)
}
func (h exploreHost) Opener(l *sim.Lesson, defs []*sim.VariantDef) sim.StoreOpener {
	return h.s.lockOpener(l, defs)
}
func (h exploreHost) DecodeLock(code string) (*sim.VariantDef, explore.Timeline, error) {
	return h.s.decodeLock(code)
}
func (h exploreHost) BackendInfo() backend.Info { return h.s.cfg.Backend.Info() }
func (h exploreHost) Refusal(loc sim.Locale, err error) (reason string, acl, ok bool) {
	code, reason, ok := stepRefusal(h.s.tr(loc), err)
	return reason, code == ErrCodeRedisACL, ok
}

// searchHost is the server as package searchpage's Host: pageHost, with
// the site's frame under Search.
type searchHost struct{ pageHost }

func (h searchHost) Texts(loc sim.Locale) searchpage.Texts { return h.s.tr(loc) }
func (h searchHost) Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site {
	return h.s.site(loc, navSearch, langURL)
}
func (h searchHost) DecodeLock(code string) (*sim.VariantDef, explore.Timeline, error) {
	return h.s.decodeLock(code)
}
func (h searchHost) LessonRules() sim.Options { return h.s.lessonRules() }

// newSearches runs the server's searches (package searchpage) until the
// server closes: on the server's Redis when it is a real one, else on an
// embedded one per worker; a learner's own scripts in the Lua sandbox,
// unless the server's real Redis is opened to them (see openerFor).
func (s *Server) newSearches() *searchpage.Searches {
	cfg := searchpage.Config{Max: s.cfg.MaxSearches, Share: s.cfg.SearchShare, Timeout: s.cfg.SearchTimeout,
		MaxStates: s.cfg.SearchMaxStates, MaxBytes: s.cfg.SearchMaxBytes, Workers: s.cfg.SearchWorkers, Backend: searchBackendOf(s.cfg.Backend),
		Host: searchHost{pageHost{s}}}
	if rb, ok := s.cfg.Backend.(redisBackend); ok && !(s.cfg.AllowCustomScripts && !rb.be.Info().Embedded) {
		cfg.Custom = search.Sandbox(s.sandbox)
	}
	return searchpage.New(s.ctx, cfg)
}

// Search returns the Search page's strings in t's language.
func (t *translator) Search() templates.SearchTexts { return t.sx }

// Defaults of the Config fields of searches.
const (
	// DefaultSearchTimeout is the longest a page's search runs; a
	// course search file (2 actors, depth 8) takes a few seconds.
	DefaultSearchTimeout = 60 * time.Second
	// DefaultSearchMaxStates stops a page's search after the depth at which
	// it has seen this many distinct states (a 3-actor depth-10 token-count
	// search has some 17,500).
	DefaultSearchMaxStates = 50_000
	// DefaultSearchWorkers is the workers (and embedded Redis servers) of one
	// page's search: one, so that on 2 cores the other core stays free for
	// everyone stepping through lessons.
	DefaultSearchWorkers = 1
)

// DefaultMaxSearches is Config.MaxSearches's default: half the cores, at
// least one (one search at a time on the 2-core machines Lockstep targets).
func DefaultMaxSearches() int { return max(1, runtime.GOMAXPROCS(0)/2) }
