package web

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"lockstep/drill"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Drills (issue #6): generated lessons of package drill, played in the
// normal player with predict mode on. A drill's lesson id ("drill-leases-42")
// is all it takes to play it, so the player page, a load message and a
// shared link work for drills as for the course's lessons.

// lesson returns the course's lesson with id, or the drill with that id,
// as a timeline of its kind; its Lesson is nil when there is neither.
func (s *Server) lesson(ctx context.Context, id string) explore.Timeline {
	if l := s.byID[id]; l != nil {
		return explore.Course(l)
	}
	level, seed, ok := drill.ParseID(id)
	if !ok {
		return explore.Timeline{}
	}
	l, err := drill.Generate(ctx, s.translators.cat, level, seed)
	if err != nil {
		s.logf("web: %v", err)
		return explore.Timeline{}
	}
	return explore.Drill(l)
}

// drillURL is the player URL of a drill, in predict mode.
func drillURL(level string, seed uint64, loc sim.Locale) string {
	return lessonURL(drill.ID(level, seed), 0, loc, false) + "&predict=1"
}

// serveDrills serves the drills page; with a level it redirects to a drill
// of that level in the player: the one of seed, or one of a fresh seed. A
// level or a seed that does not read keeps the learner on the drills page,
// under notices that name each bad parameter and its valid values.
func (s *Server) serveDrills(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	q := r.URL.Query()
	status := http.StatusOK
	if lv := strings.TrimSpace(q.Get("level")); lv != "" || q.Has("level") || q.Get("seed") != "" {
		if lv == "" && !q.Has("level") {
			lv = drill.Levels[0].ID
		}
		var bad []templates.Notice
		status = http.StatusBadRequest
		if _, ok := drill.LevelByID(lv); !ok {
			status = http.StatusNotFound // as before: no such level
			var ids []string
			for _, l := range drill.Levels {
				ids = append(ids, l.ID)
			}
			bad = append(bad, templates.Notice{Param: "level", Text: t.T("DrillNoticeLevel", "Value", view.Clip(lv, maxEcho), "Levels", strings.Join(ids, ", "))})
		}
		seed := rand.Uint64N(drill.MaxSeed + 1)
		if sv := strings.TrimSpace(q.Get("seed")); sv != "" {
			n, err := strconv.ParseUint(sv, 10, 64)
			if err != nil || n > drill.MaxSeed {
				bad = append(bad, templates.Notice{Param: "seed", Text: t.T("DrillNoticeSeed", "Value", view.Clip(sv, maxEcho), "Max", uint64(drill.MaxSeed))})
			}
			seed = n
		}
		if len(bad) == 0 {
			http.Redirect(w, r, drillURL(lv, seed, loc), http.StatusSeeOther)
			return
		}
		// Otherwise the drills page itself says what was wrong with the link.
		r = r.WithContext(templates.WithNotices(r.Context(), bad...))
	}
	p := templates.DrillsPage{
		Site: s.site(loc, navDrills, func(l sim.Locale) string { return "/drills?lang=" + string(l) }),
	}
	for _, lv := range drill.Levels {
		var acts []string
		for _, a := range lv.Actions {
			acts = append(acts, view.ActionName(t, a))
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
	h := s.lessonHeader(t, l, func(loc sim.Locale) string { return lessonURL(l.ID, step, loc, presenter) + "&predict=1" })
	h.CourseURL = "/drills?lang=" + string(t.locale)
	h.Crumb = t.Interview().DrillCrumb
	// The drill's source ("drill leases #7", drill.Timeline) is English:
	// the header says it in the page's language, the level by its id as
	// the drill's address does.
	if level, seed, ok := drill.ParseID(l.ID); ok {
		h.Source = []templates.SourcePart{{Rest: t.T("DrillSource", "Level", level, "Seed", strconv.FormatUint(seed, 10))}}
	}
	return h
}
