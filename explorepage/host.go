// Package explorepage serves explore mode's pages: the explore page with
// its sandbox form and its lesson file upload (GET /explore, GET
// /explore/new, POST /explore/import), the exports of a timeline as a
// lesson file, a Mermaid sequence diagram or an SVG of its lanes (GET
// /explore/export.*), and Compare, a timeline under two variants side by
// side (GET /explore/compare). Package explore makes, shares and compares
// the timelines; package web routes the requests here, plays a shared
// timeline (/explore?t=CODE) and is the Host.
package explorepage

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Host is what the pages need of the server that routes them (package
// web): declared here, by its consumer.
type Host interface {
	// Negotiate is the language of request r; Texts the texts of loc;
	// Catalog the server's message catalogue.
	Negotiate(r *http.Request) sim.Locale
	Texts(loc sim.Locale) Texts
	Catalog() *catalog.Catalog
	// Site is the site's frame of a page in loc under Explore, langURL the
	// page in another language; Langs the language links alone.
	Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site
	Langs(loc sim.Locale, langURL func(sim.Locale) string) []templates.LangOption
	// WritePage renders c as the answer, with status.
	WritePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component)
	// BodyTimeout bounds reading an upload's body.
	BodyTimeout() time.Duration
	// LessonRules are the loader's options for an imported lesson file.
	LessonRules() sim.Options
	// Lesson is the course lesson or drill of id (Lesson nil: none);
	// OriginLesson the one a fork comes from (nil: none); TimelineTitle a
	// timeline's title (a fork's says what it forks).
	Lesson(ctx context.Context, id string) explore.Timeline
	OriginLesson(o explore.Origin) *sim.Lesson
	TimelineTitle(tl explore.Timeline) sim.Text
	// EncodeTimeline and DecodeTimeline are share codes; ExploreURL the
	// player of a share code at step, LessonURL a course lesson's.
	EncodeTimeline(tl explore.Timeline) (string, error)
	DecodeTimeline(code string) (explore.Timeline, error)
	ExploreURL(code string, step int, loc sim.Locale) string
	LessonURL(id string, step int, loc sim.Locale) string
	// ServeTimeline answers with the player of timeline tl, shared as code.
	ServeTimeline(w http.ResponseWriter, r *http.Request, tl explore.Timeline, code string)
	// RunFrames runs l to its end on the store its scripts may run on;
	// Opener is where Compare's runs of l open their stores, with defs the
	// learner's own locks it compares (nil: none); DecodeLock opens a
	// lock's share code (package ownlock); BackendInfo is the server's
	// Redis, as an SVG export names it.
	RunFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error)
	Opener(l *sim.Lesson, defs []*sim.VariantDef) sim.StoreOpener
	DecodeLock(code string) (*sim.VariantDef, explore.Timeline, error)
	BackendInfo() backend.Info
	// Refusal says in loc why err refused a step (a bound of package sim,
	// or with acl the Redis ACL); ok false for any other error.
	Refusal(loc sim.Locale, err error) (reason string, acl, ok bool)
}

// Texts are a locale's texts, as the pages need them.
type Texts interface {
	view.Texts
	Err(err error) string
}

// Config configures the pages.
type Config struct {
	Host Host
	// CompareTimeout bounds Compare's runs, both sides and the lesson's
	// own variant together.
	CompareTimeout time.Duration
}

// Pages serves the explore pages of one server.
type Pages struct {
	host           Host
	compareTimeout time.Duration
}

// New returns the pages of cfg.
func New(cfg Config) *Pages { return &Pages{host: cfg.Host, compareTimeout: cfg.CompareTimeout} }

// codedError is an error whose text a person reads is its catalogue
// message (sim.Coded); text is for logs.
type codedError struct {
	msg  sim.Msg
	text string
}

func (e *codedError) Error() string    { return e.text }
func (e *codedError) Message() sim.Msg { return e.msg }

// codedErr is a codedError of m, its log text formatted from format and args.
func codedErr(m sim.Msg, format string, args ...any) error {
	return &codedError{msg: m, text: fmt.Sprintf(format, args...)}
}

// ownScripts reports whether l runs the scripts of a learner's variant
// file (its own lock) rather than a built-in variant's.
func ownScripts(l *sim.Lesson) bool { return l.VariantDef != nil && !l.VariantDef.Builtin }
