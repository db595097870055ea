package sim

import "slices"

// Locale names one of the languages Lockstep narrates in.
type Locale string

// The locales of the lesson format (spec: "Locales: en, zh-CN, zh-TW").
const (
	English            Locale = "en"
	SimplifiedChinese  Locale = "zh-CN"
	TraditionalChinese Locale = "zh-TW"
)

// Locales are the locales the lesson format names (docs/lesson-format.md),
// in display order: what LoadOptions accepts when given none, and what tests
// iterate. The languages the product speaks are the message catalogue's
// (catalog.Catalog.Locales): a language added there is one the loader is
// given.
var Locales = []Locale{English, SimplifiedChinese, TraditionalChinese}

// ValidLocale reports whether s is one of Locales.
func ValidLocale(s string) bool { return slices.Contains(Locales, Locale(s)) }

// Text is a lesson text field: either one plain string (stored under "") or a
// translation per locale.
type Text map[Locale]string

// Plain returns a Text that reads the same in every locale.
func Plain(s string) Text { return Text{"": s} }

// In returns the text for locale l, falling back to English, then to the
// plain string, then to any translation present, so that a lesson missing a
// translation still shows something. It returns "" for an empty Text.
func (t Text) In(l Locale) string {
	if s, ok := t[l]; ok {
		return s
	}
	if s, ok := t[English]; ok {
		return s
	}
	if s, ok := t[""]; ok {
		return s
	}
	keys := make([]string, 0, len(t))
	for loc := range t {
		keys = append(keys, string(loc))
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s := t[Locale(k)]; s != "" {
			return s
		}
	}
	return ""
}

// Complete reports whether t has a translation for every one of locales (a
// plain string counts as complete only if it is the only entry).
func (t Text) Complete(locales []Locale) bool {
	if _, ok := t[""]; ok && len(t) == 1 {
		return true
	}
	for _, l := range locales {
		if t[l] == "" {
			return false
		}
	}
	return true
}
