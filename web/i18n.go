package web

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"golang.org/x/text/language"

	"lockstep/catalog"
	"lockstep/sim"
	"lockstep/templates"
)

// translator localizes UI strings into one locale.
type translator struct {
	locale sim.Locale
	cat    *catalog.Catalog
	ui     templates.UI
	in     templates.Interview
	x      templates.Explore
	sx     templates.SearchTexts
	cl     templates.ClassTexts
}

// translators are the translators of one catalogue, by locale.
type translators struct {
	cat *catalog.Catalog
	mu  sync.Mutex
	m   map[sim.Locale]*translator
}

func newTranslators(c *catalog.Catalog) *translators {
	return &translators{cat: c, m: map[sim.Locale]*translator{}}
}

// tr returns the translator of locale l of the server's catalogue.
func (s *Server) tr(l sim.Locale) *translator { return s.translators.get(l) }

// get returns the translator of locale l (English for a locale the
// catalogue does not have).
func (ts *translators) get(l sim.Locale) *translator {
	if !ts.cat.Has(l) {
		l = catalog.Default
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.m[l]; t != nil {
		return t
	}
	t := &translator{locale: l, cat: ts.cat}
	t.ui = fillStrings[templates.UI](t)
	t.in = fillStrings[templates.Interview](t)
	t.x = fillStrings[templates.Explore](t)
	t.sx = fillStrings[templates.SearchTexts](t)
	t.cl = fillStrings[templates.ClassTexts](t)
	ts.m[l] = t
	return t
}

// T returns message id filled with data (pairs of key, value). A missing
// message comes back as ⟦id⟧ (catalog.Missing), so a gap shows up on screen
// and in tests rather than as an empty string.
func (t *translator) T(id string, kv ...any) string {
	if s, ok := t.lookup(id, kv...); ok {
		return s
	}
	return catalog.Missing + id + catalog.MissingEnd
}

// Msg returns message m of package sim, drill or explore in the
// translator's locale.
func (t *translator) Msg(m sim.Msg) string { return t.cat.Render(t.locale, m) }

// Err returns err for the page, in the translator's locale and plain words
// (catalog.Catalog.Error): the loader's, explore's and the pages' own errors
// carry message codes.
func (t *translator) Err(err error) string { return t.cat.Error(t.locale, err) }

// userError is a problem with what a person sent a page: its Go error for
// the log, its message code for the page (sim.Coded).
type userError struct {
	msg  sim.Msg
	text string
}

func (e *userError) Error() string    { return e.text }
func (e *userError) Message() sim.Msg { return e.msg }

// userErr is a userError: m for the page, format and args in English.
func userErr(m sim.Msg, format string, args ...any) error {
	return &userError{msg: m, text: fmt.Sprintf(format, args...)}
}

// lookup returns message id filled with data and whether the message files
// have it (in the locale, or else in English).
func (t *translator) lookup(id string, kv ...any) (string, bool) {
	var data map[string]any
	if len(kv) > 0 {
		data = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				k = fmt.Sprint(kv[i])
			}
			data[k] = kv[i+1]
		}
	}
	return t.cat.Lookup(t.locale, id, data)
}

// Maybe returns message id filled with data, or "" when there is no such
// message (an outcome or action newer than the message files).
func (t *translator) Maybe(id string, kv ...any) string {
	s, _ := t.lookup(id, kv...)
	return s
}

// fillStrings fills every field of a struct of strings (templates.UI,
// Interview, Explore) from the message of the same id.
func fillStrings[T any](t *translator) T {
	var out T
	v := reflect.ValueOf(&out).Elem()
	for i := 0; i < v.NumField(); i++ {
		v.Field(i).SetString(t.T(v.Type().Field(i).Name))
	}
	return out
}

// UI returns the interface strings.
func (t *translator) UI() templates.UI { return t.ui }

// Locale is the translator's locale.
func (t *translator) Locale() sim.Locale { return t.locale }

// negotiate picks the locale of a request: the lang query parameter when
// it names a supported locale, else the best match of Accept-Language,
// else English.
func (s *Server) negotiate(r *http.Request) sim.Locale {
	if l := sim.Locale(r.URL.Query().Get("lang")); s.translators.cat.Has(l) {
		return l
	}
	if l, ok := langParam(r.URL.Query().Get("lang")); ok {
		return l
	}
	return fromAcceptLanguage(r.Header.Get("Accept-Language"))
}

// langParam reads the lang query parameter as Accept-Language reads a
// language, in any case and with - or _: zh-tw, zh_TW, zh-Hant and zh-HK
// are zh-TW; zh, zh-cn and zh-hans are zh-CN; en-US is en. It reports
// false for a language Lockstep does not speak.
func langParam(q string) (sim.Locale, bool) {
	if sim.ValidLocale(q) {
		return sim.Locale(q), true
	}
	q = strings.ReplaceAll(strings.TrimSpace(q), "_", "-")
	if q == "" {
		return "", false
	}
	tag, err := language.Parse(q)
	if err != nil {
		return "", false
	}
	base, _ := tag.Base()
	switch base.String() {
	case "en":
		return sim.English, true
	case "zh":
		if script, _ := tag.Script(); script.String() == "Hant" {
			return sim.TraditionalChinese, true
		}
		return sim.SimplifiedChinese, true
	}
	return "", false
}

// fromAcceptLanguage takes the first language of the header (in order of
// preference) that Lockstep speaks: any Chinese is Simplified or
// Traditional by its script (written or implied by its region: zh-HK and
// zh-TW are Traditional, zh and zh-SG Simplified), any English is English.
func fromAcceptLanguage(header string) sim.Locale {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		return sim.English
	}
	for _, tag := range tags {
		base, _ := tag.Base()
		switch base.String() {
		case "en":
			return sim.English
		case "zh":
			if script, _ := tag.Script(); script.String() == "Hant" {
				return sim.TraditionalChinese
			}
			return sim.SimplifiedChinese
		}
	}
	return sim.English
}

// Locale is the language the server answers r in (?lang=, then the
// cookie, then Accept-Language): for pages served beside it (package
// live).
func (s *Server) Locale(r *http.Request) sim.Locale { return s.negotiate(r) }
