package web

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/ownlock"
	"lockstep/sim"
	"lockstep/templates"
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
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.s.cfg.BodyTimeout))
	body := &watchedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit)}
	r.Body = body
	err = readImportBody(r, body)
	return body.tooBig, body.timedOut, err
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

// lockForCompare is the lock a Compare request names (k=), nil when none;
// the page lists it among the variants.
func (s *Server) lockForCompare(r *http.Request) (*sim.VariantDef, error) {
	code := r.URL.Query().Get("k")
	if code == "" {
		return nil, nil
	}
	def, _, err := s.decodeLock(code)
	return def, err
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
