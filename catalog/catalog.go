// Package catalog is Lockstep's one message catalogue: every sentence a
// person reads, in every language, for every package. Packages sim, drill
// and explore return message codes with parameters (sim.Msg) and typed
// errors; the web pages, the CLI and the exports turn them into text here.
//
// The messages are go-i18n TOML files embedded from this folder, named
// <topic>.<locale>.toml (ui, sim, narration, errors). The set of locales is
// the set of files: adding a language is one more file per topic (or one
// file with every message) plus the lessons' texts, and New(extra) loads
// such files from elsewhere (tests add a made-up locale that way).
//
// A Catalog is built once (New) and passed to whoever renders; it has no
// mutable state and is safe for concurrent use.
package catalog

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"lockstep/sim"
)

// files are the catalogue's messages.
//
//go:embed *.toml
var files embed.FS

// Default is the locale every other falls back to, message by message.
const Default = sim.English

// Missing wraps the id of a message that no locale has, so that a gap shows
// on screen and tests can look for it: Missing + id + MissingEnd.
const (
	Missing    = "⟦"
	MissingEnd = "⟧"
)

// Catalog renders message codes in its locales.
type Catalog struct {
	bundle  *i18n.Bundle
	locales []sim.Locale
	loc     map[sim.Locale]*i18n.Localizer
	ids     map[sim.Locale]map[string]bool
}

// New returns the embedded catalogue, with the *.toml files at the root of
// each extra file system added (a new locale, or more messages). It fails
// on a file go-i18n cannot read or whose name names no language.
func New(extra ...fs.FS) (*Catalog, error) {
	b := i18n.NewBundle(language.Make(string(Default)))
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	c := &Catalog{bundle: b, loc: map[sim.Locale]*i18n.Localizer{}, ids: map[sim.Locale]map[string]bool{}}
	for _, fsys := range append([]fs.FS{files}, extra...) {
		names, err := fs.Glob(fsys, "*.toml")
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		for _, n := range names {
			mf, err := b.LoadMessageFileFS(fsys, n)
			if err != nil {
				return nil, fmt.Errorf("catalog: message file %s: %w", n, err)
			}
			l := sim.Locale(mf.Tag.String())
			if c.ids[l] == nil {
				c.ids[l] = map[string]bool{}
			}
			for _, m := range mf.Messages {
				c.ids[l][m.ID] = true
			}
		}
	}
	for l := range c.ids {
		c.locales = append(c.locales, l)
		c.loc[l] = i18n.NewLocalizer(b, string(l))
	}
	slices.SortFunc(c.locales, func(a, b sim.Locale) int {
		switch {
		case a == b:
			return 0
		case a == Default:
			return -1
		case b == Default:
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	if !slices.Contains(c.locales, Default) {
		return nil, errors.New("catalog: no message file for the default locale " + string(Default))
	}
	return c, nil
}

// Locales returns the catalogue's locales, the default (English) first and
// the others in the order of their tags. The caller must not modify it.
func (c *Catalog) Locales() []sim.Locale { return c.locales }

// Has reports whether l is one of the catalogue's locales.
func (c *Catalog) Has(l sim.Locale) bool { return c.loc[l] != nil }

// MissingIn returns the ids that the default locale has and l lacks, in
// sorted order (such messages show in English).
func (c *Catalog) MissingIn(l sim.Locale) []string {
	var out []string
	for id := range c.ids[Default] {
		if !c.ids[l][id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Lookup returns message id in locale l (English where l lacks it) filled
// with data, and whether some locale has the message. Values in data of
// type sim.Millis, sim.List, sim.Msg and sim.Text are written in l first.
func (c *Catalog) Lookup(l sim.Locale, id string, data map[string]any) (string, bool) {
	loc := c.loc[l]
	if loc == nil {
		l, loc = Default, c.loc[Default]
	}
	if len(data) > 0 {
		filled := make(map[string]any, len(data))
		for k, v := range data {
			filled[k] = c.arg(l, v)
		}
		data = filled
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if s == "" {
		var nf *i18n.MessageNotFoundErr
		if err != nil && !errors.As(err, &nf) {
			return Missing + id + ": " + err.Error() + MissingEnd, false
		}
		return "", false
	}
	return s, true
}

// T returns message id in locale l filled with kv (pairs of name, value);
// a message no locale has comes back as ⟦id⟧.
func (c *Catalog) T(l sim.Locale, id string, kv ...any) string {
	return c.Render(l, sim.M(id, kv...))
}

// Render returns m in locale l; a message no locale has comes back as ⟦id⟧.
func (c *Catalog) Render(l sim.Locale, m sim.Msg) string {
	if s, ok := c.Lookup(l, m.ID, m.Args); ok {
		return s
	}
	return Missing + m.ID + MissingEnd
}

// Text returns m in every locale, as a lesson text field.
func (c *Catalog) Text(m sim.Msg) sim.Text { return sim.TextOf(c, m) }

// arg writes one message argument in locale l.
func (c *Catalog) arg(l sim.Locale, v any) any {
	switch v := v.(type) {
	case sim.Msg:
		return c.Render(l, v)
	case sim.Millis:
		return c.Duration(l, int64(v))
	case sim.List:
		return c.List(l, v)
	case sim.Text:
		return v.In(l)
	}
	return v
}

// Duration writes ms milliseconds in locale l: under a second in ms
// ("800 ms"), else in seconds with as many decimals as it needs ("1.5 s").
func (c *Catalog) Duration(l sim.Locale, ms int64) string {
	if ms < 1000 && ms > -1000 {
		return c.T(l, "unit.ms", "N", strconv.FormatInt(ms, 10))
	}
	return c.T(l, "unit.s", "N", strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64))
}

// List joins names in locale l: "A", "A and B", "A, B and C" in English.
func (c *Catalog) List(l sim.Locale, names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	sep, last := c.T(l, "list.sep"), c.T(l, "list.last")
	return strings.Join(names[:len(names)-1], sep) + last + names[len(names)-1]
}
