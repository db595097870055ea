package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// A page's query parameters that do not read are not dropped in silence:
// the page shows what it can (the nearest step, the negotiated language)
// under a notice that names the parameter, the value and the valid ones
// (templates.Notice, shown by every page's shell).

// withParamNotices returns r with the notices of the parameters every page
// shares (lang) in its context, in the language r is answered in.
func (s *Server) withParamNotices(r *http.Request) *http.Request {
	n, ok := s.langNotice(r)
	if !ok {
		return r
	}
	return r.WithContext(templates.WithNotices(r.Context(), n))
}

// langNotice is the notice of a lang parameter that names no language the
// site speaks ("fr", "klingon"): it names the value and the languages
// offered, in the language the page is shown in instead (Accept-Language,
// else English). ok is false when lang is absent, empty or spoken.
func (s *Server) langNotice(r *http.Request) (templates.Notice, bool) {
	raw := strings.TrimSpace(r.URL.Query().Get("lang"))
	if raw == "" || s.speaks(raw) {
		return templates.Notice{}, false
	}
	t := s.tr(s.negotiate(r))
	var offered []string
	for _, l := range t.cat.Locales() {
		offered = append(offered, string(l)+" ("+t.cat.T(l, "LanguageName")+")")
	}
	return templates.Notice{Param: "lang", Text: t.T("NoticeLang", "Value", view.Clip(raw, maxEcho),
		"Offered", strings.Join(offered, ", "), "Shown", t.T("LanguageName"))}, true
}

// speaks reports whether lang, as a lang parameter, names a language of
// the server's catalogue (langParam's spellings included).
func (s *Server) speaks(lang string) bool {
	if s.translators.cat.Has(sim.Locale(lang)) {
		return true
	}
	l, ok := langParam(lang)
	return ok && s.translators.cat.Has(l)
}

// stepParam reads a player page's step parameter over a timeline of total
// steps as a websocket message's step is read (any whole number: 7, 7.0,
// 1e2), so that a link and the page's socket agree. A value that is not a
// step of the timeline (999 past the end, -3, abc, 1.5) is shown as the
// nearest valid step (the last, or 0) under a notice in t's language that
// names the parameter and the range; an absent or empty one is step 0.
func stepParam(t *translator, q url.Values, total int) (int, []templates.Notice) {
	raw := strings.TrimSpace(q.Get("step"))
	if raw == "" {
		return 0, nil
	}
	n, err := (*int)(nil), error(nil)
	if json.Valid([]byte(raw)) {
		n, err = stepNumber("step", json.RawMessage(raw))
	}
	value := view.Clip(raw, maxEcho)
	switch {
	case n == nil || err != nil:
		return 0, []templates.Notice{{Param: "step", Text: t.T("NoticeStepNotNumber", "Value", value, "Max", total, "Shown", 0)}}
	case *n < 0:
		return 0, []templates.Notice{{Param: "step", Text: t.T("NoticeStepRange", "Value", value, "Max", total, "Shown", 0)}}
	case *n > total:
		return total, []templates.Notice{{Param: "step", Text: t.T("NoticeStepRange", "Value", value, "Max", total, "Shown", total)}}
	}
	return *n, nil
}

// modeParam reads a player page's mode parameter name (present: presenter
// mode; predict: predict mode), as the page's script reads it
// (static/history.js modeAtStart): 1 is on, 0 or nothing off; another
// value is off, under a notice (message id) that says the values it takes.
func modeParam(t *translator, q url.Values, name, id string) (bool, []templates.Notice) {
	switch v := strings.TrimSpace(q.Get(name)); v {
	case "1":
		return true, nil
	case "", "0":
		return false, nil
	default:
		return false, []templates.Notice{{Param: name, Text: t.T(id, "Value", view.Clip(v, maxEcho))}}
	}
}

// playerParams reads a player page's step, present and predict parameters
// over a timeline of total steps: the step to show, presenter mode, and
// the notices of those that do not read.
func playerParams(t *translator, q url.Values, total int) (step int, presenter bool, notices []templates.Notice) {
	step, bad := stepParam(t, q, total)
	presenter, badPresent := modeParam(t, q, "present", "NoticePresent")
	_, badPredict := modeParam(t, q, "predict", "NoticePredict")
	return step, presenter, append(append(bad, badPresent...), badPredict...)
}
