package web

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"lockstep/sim"
	"lockstep/templates"
)

// messageFiles are the UI strings, one TOML file per locale
// (active.<locale>.toml). Narration comes from the lessons themselves.
//
//go:embed i18n/*.toml
var messageFiles embed.FS

var (
	bundleOnce sync.Once
	bundle     *i18n.Bundle
	bundleErr  error
)

func loadBundle() (*i18n.Bundle, error) {
	bundleOnce.Do(func() {
		b := i18n.NewBundle(language.English)
		b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
		names, err := fs.Glob(messageFiles, "i18n/*.toml")
		if err != nil {
			bundleErr = fmt.Errorf("web: message files: %w", err)
			return
		}
		for _, n := range names {
			if _, err := b.LoadMessageFileFS(messageFiles, n); err != nil {
				bundleErr = fmt.Errorf("web: message file %s: %w", n, err)
				return
			}
		}
		bundle = b
	})
	return bundle, bundleErr
}

// translator localizes UI strings into one locale.
type translator struct {
	locale sim.Locale
	loc    *i18n.Localizer
	ui     templates.UI
	in     templates.Interview
	x      templates.Explore
}

var (
	translatorsMu sync.Mutex
	translators   = map[sim.Locale]*translator{}
)

// tr returns the translator of locale l (English for an unknown locale).
func tr(l sim.Locale) *translator {
	if !sim.ValidLocale(string(l)) {
		l = sim.English
	}
	translatorsMu.Lock()
	defer translatorsMu.Unlock()
	if t := translators[l]; t != nil {
		return t
	}
	b, err := loadBundle()
	if err != nil {
		// The message files are embedded and tested; this cannot happen in a
		// built binary.
		panic(err)
	}
	t := &translator{locale: l, loc: i18n.NewLocalizer(b, string(l))}
	t.ui = fillStrings[templates.UI](t)
	t.in = fillStrings[templates.Interview](t)
	t.x = fillStrings[templates.Explore](t)
	translators[l] = t
	return t
}

// T returns message id filled with data (pairs of key, value). A missing
// message falls back to its id, so a gap shows up on screen and in tests
// rather than as an empty string.
func (t *translator) T(id string, kv ...any) string {
	if s, ok := t.lookup(id, kv...); ok {
		return s
	}
	return id
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
	s, err := t.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil || s == "" {
		return "", false
	}
	return s, true
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

// langNames are the languages' own names for the picker.
var langNames = map[sim.Locale]string{
	sim.English:            "English",
	sim.SimplifiedChinese:  "简体中文",
	sim.TraditionalChinese: "繁體中文",
}

// negotiate picks the locale of a request: the lang query parameter when
// it names a supported locale, else the best match of Accept-Language,
// else English.
func negotiate(r *http.Request) sim.Locale {
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
