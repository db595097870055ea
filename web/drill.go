package web

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"lockstep/drill"
	"lockstep/sim"
	"lockstep/templates"
)

// Drills (issue #6): generated lessons of package drill, played in the
// normal player with predict mode on. A drill's lesson id ("drill-leases-42")
// is all it takes to play it, so the player page, a load message and a
// shared link work for drills as for the course's lessons.

// maxDrillCache bounds the drills kept generated; past it the cache starts
// over (a drill is a function of its id, so nothing is lost but time).
const maxDrillCache = 256

var (
	drillMu    sync.Mutex
	drillCache = map[string]*sim.Lesson{}
)

// lesson returns the course's lesson with id, or the drill with that id,
// or nil.
func (s *Server) lesson(ctx context.Context, id string) *sim.Lesson {
	if l := s.byID[id]; l != nil {
		return l
	}
	level, seed, ok := drill.ParseID(id)
	if !ok {
		return nil
	}
	drillMu.Lock()
	l := drillCache[id]
	drillMu.Unlock()
	if l != nil {
		return l
	}
	l, err := drill.Generate(ctx, s.translators.cat, level, seed)
	if err != nil {
		s.logf("web: %v", err)
		return nil
	}
	drillMu.Lock()
	if len(drillCache) >= maxDrillCache {
		clear(drillCache)
	}
	drillCache[id] = l
	drillMu.Unlock()
	return l
}

// drillURL is the player URL of a drill, in predict mode.
func drillURL(level string, seed uint64, loc sim.Locale) string {
	return lessonURL(drill.ID(level, seed), 0, loc, false) + "&predict=1"
}

// serveDrills serves the drills page; with a level it redirects to a drill
// of that level in the player: the one of seed, or one of a fresh seed.
func (s *Server) serveDrills(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	q := r.URL.Query()
	status, problem := http.StatusOK, ""
	if lv := q.Get("level"); lv != "" || q.Get("seed") != "" {
		if lv == "" {
			lv = drill.Levels[0].ID
		}
		seed, err := uint64(0), error(nil)
		if sv := strings.TrimSpace(q.Get("seed")); sv != "" {
			seed, err = strconv.ParseUint(sv, 10, 64)
			if err == nil && seed > drill.MaxSeed {
				err = strconv.ErrRange
			}
			if err != nil {
				status, problem = http.StatusBadRequest, t.T("DrillBadSeed", "Seed", sv, "Max", uint64(drill.MaxSeed))
			}
		} else {
			seed = rand.Uint64N(drill.MaxSeed + 1)
		}
		if _, ok := drill.LevelByID(lv); !ok {
			status, problem = http.StatusNotFound, t.T("DrillNoLevel", "Level", lv)
		}
		if problem == "" {
			http.Redirect(w, r, drillURL(lv, seed, loc), http.StatusSeeOther)
			return
		}
		// Otherwise the drills page itself says what was wrong with the link.
	}
	p := templates.DrillsPage{
		UI: t.UI(), I: t.interview(), Lang: string(loc), Assets: assets(), Backend: s.badge(t),
		Langs:   langOptions(s.tr(loc), func(l sim.Locale) string { return "/drills?lang=" + string(l) }),
		Nav:     siteNav(t, navDrills),
		Problem: problem,
	}
	for _, lv := range drill.Levels {
		var acts []string
		for _, a := range lv.Actions {
			acts = append(acts, t.actionName(a))
		}
		p.Levels = append(p.Levels, templates.DrillLevel{
			ID: lv.ID, Title: t.Msg(lv.Title), Summary: t.Msg(lv.Summary), Variant: lv.Variant,
			Actions: strings.Join(acts, " · "),
			NewURL:  "/drills?" + url.Values{"level": {lv.ID}, "lang": {string(loc)}}.Encode(),
		})
	}
	writePage(w, r, status, templates.Drills(p))
}

// drillHeader is the player's header for a drill: its breadcrumb leads to
// the drills page.
func (s *Server) drillHeader(t *translator, l *sim.Lesson, step int, presenter bool) templates.Header {
	vi, _ := sim.Variant(l.Variant)
	return templates.Header{
		UI:        t.UI(),
		CourseURL: "/drills?lang=" + string(t.locale),
		Crumb:     t.interview().DrillCrumb,
		Title:     l.Title.In(t.locale),
		Summary:   strings.TrimSpace(l.Summary.In(t.locale)),
		Variant:   l.Variant,
		LockType:  t.lockType(vi.LockType),
		Fencing:   l.Fencing,
		Source:    t.sourceParts(l.Source),
		Langs:     langOptions(t, func(loc sim.Locale) string { return lessonURL(l.ID, step, loc, presenter) + "&predict=1" }),
		Backend:   s.lessonBadge(t, l),
	}
}
