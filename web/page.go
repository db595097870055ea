package web

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"lockstep/explore"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Chrome names, the keys of a frame message's chrome and the data-chrome
// attributes of the page's regions.
const (
	chromeHeader   = "header"
	chromeControls = "controls"
)

// header is the player's header of tl in t's language, by its kind; code
// is an explore timeline's share code.
func (s *Server) header(t *translator, tl explore.Timeline, code string, step int, presenter bool) templates.Header {
	h := s.kindHeader(t, tl, code, step, presenter)
	// Any player may start a class (package classserve).
	h.CT, h.ClassStart = t.cl, true
	// The way out of a lesson: the site's navigation (issue 38, item 13).
	h.Nav, h.NavLabel = s.navLinks(t, ""), t.Interview().NavLabel
	return h
}

// kindHeader is header's part that depends on tl's kind.
func (s *Server) kindHeader(t *translator, tl explore.Timeline, code string, step int, presenter bool) templates.Header {
	l := tl.Lesson
	switch {
	case tl.Kind == explore.KindDrill:
		return s.drillHeader(t, l, step, presenter)
	case tl.Explore():
		return s.exploreHeader(t, tl, code, step, presenter)
	}
	h := s.lessonHeader(t, l, func(loc sim.Locale) string { return lessonURL(l.ID, step, loc, presenter) })
	h.CourseURL = "/?lang=" + string(t.locale)
	h.Number = s.index[l.ID] + 1
	if link, ok := searchpage.LessonLink(l); ok {
		h.FindIt, h.FindItURL = t.Search().SearchFindIt, link.URL(t.locale)
	}
	h.Label = lessonLabel(l, s.index[l.ID])
	h.End = s.endCard(t, l)
	return h
}

// lessonLabel is lesson l's number as its file names it: "12a" for
// lessons/12a-nested-after-takeover-busy.yaml, "1" for 01-…; a file with
// no number is labelled by its place i (0-based) in the course.
func lessonLabel(l *sim.Lesson, i int) string {
	base := filepath.Base(l.File)
	if n, _, ok := strings.Cut(base, "-"); ok && n != "" && n[0] >= '0' && n[0] <= '9' {
		if t := strings.TrimLeft(n, "0"); t != "" {
			return t
		}
		return n
	}
	return strconv.Itoa(i + 1)
}

// lessonHeader is what the header of a course lesson's or a drill's player
// says of lesson l; langURL is the page's address in another language.
func (s *Server) lessonHeader(t *translator, l *sim.Lesson, langURL func(sim.Locale) string) templates.Header {
	vi, _ := sim.LessonVariant(l)
	return templates.Header{
		UI:       t.UI(),
		Title:    l.Title.In(t.locale),
		Summary:  strings.TrimSpace(l.Summary.In(t.locale)),
		Variant:  l.Variant,
		LockType: view.LockType(t, vi.LockType),
		Fencing:  l.Fencing,
		Source:   view.LessonSource(t, l),
		Langs:    langOptions(t, langURL),
		Backend:  s.lessonBadge(t, l),
	}
}

// playerControls is the control bar of a lesson's player.
func (s *Server) playerControls(t *translator, l *sim.Lesson, step int, speed float64) templates.Controls {
	c := view.Controls(t, step, len(l.Steps), speed)
	c.Backend = s.lessonBadge(t, l).Label
	return c
}

// lessonBadge says which Redis a lesson runs on: a lesson with a replica
// runs on a primary + replica pair of its own (backend.Store), a lesson with
// nodes on nodes of its own, never on the single Redis the server was given.
func (s *Server) lessonBadge(t *translator, l *sim.Lesson) templates.BackendBadge {
	if l.Nodes > 0 {
		if s.cfg.Backend.Info().Embedded {
			return templates.BackendBadge{Embedded: true, Pair: true, Label: t.T("BackendEmbeddedNodes", "Nodes", l.Nodes)}
		}
		return templates.BackendBadge{Pair: true, Label: t.T("BackendOwnNodes", "Nodes", l.Nodes)}
	}
	if !l.Replica {
		return s.badge(t)
	}
	info := s.cfg.Backend.Info()
	if info.Embedded {
		return templates.BackendBadge{Embedded: true, Pair: true, Label: t.T("BackendEmbeddedPair")}
	}
	return templates.BackendBadge{Pair: true, Label: t.T("BackendOwnPair")}
}

func (s *Server) badge(t *translator) templates.BackendBadge {
	info := s.cfg.Backend.Info()
	if info.Embedded {
		return templates.BackendBadge{Embedded: true, Label: t.T("BackendEmbedded")}
	}
	// Not the address or version: every visitor sees the header (issue 37,
	// item 8); the operator sees them where the server starts.
	return templates.BackendBadge{Label: t.T("BackendReal")}
}

// site is the site header's part of a page in loc, with nav marked as the
// current page and langURL giving the page's address in each language.
func (s *Server) site(loc sim.Locale, nav string, langURL func(sim.Locale) string) templates.Site {
	t := s.tr(loc)
	return templates.Site{
		UI: t.UI(), I: t.Interview(), Lang: string(loc), Assets: assets(), Backend: s.badge(t),
		Langs: langOptions(t, langURL), Nav: s.navLinks(t, nav),
	}
}

// navLinks is the site's navigation in t's language with nav current: the
// course's pages, and the live page when the server has one (-proxy).
func (s *Server) navLinks(t *translator, nav string) []templates.NavLink {
	links := siteNav(t, nav)
	if s.cfg.Live != nil {
		links = append(links, templates.NavLink{Label: t.cat.T(t.locale, "live.ui.nav"), URL: "/live?lang=" + string(t.locale)})
	}
	return links
}

// langOptions is the language picker: every locale of t's catalogue, each
// named in its own words (message LanguageName).
func langOptions(t *translator, urlFor func(sim.Locale) string) []templates.LangOption {
	var out []templates.LangOption
	for _, l := range t.cat.Locales() {
		out = append(out, templates.LangOption{Code: string(l), Label: t.cat.T(l, "LanguageName"), URL: urlFor(l), Current: l == t.locale})
	}
	return out
}

// lessonURL is the deep link of a lesson step.
func lessonURL(id string, step int, l sim.Locale, presenter bool) string {
	q := url.Values{}
	if step > 0 {
		q.Set("step", strconv.Itoa(step))
	}
	q.Set("lang", string(l))
	if presenter {
		q.Set("present", "1")
	}
	return "/lessons/" + url.PathEscape(id) + "?" + q.Encode()
}
