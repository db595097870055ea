package web

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"

	"lockstep/catalog"
	"lockstep/sim"
	"lockstep/templates"
)

// defaultCatalog is the embedded message catalogue, for the servers whose
// Config names none and for TimelineSVG.
var defaultCatalog = sync.OnceValues(func() (*catalog.Catalog, error) { return catalog.New() })

// translator localizes UI strings into one locale.
type translator struct {
	locale sim.Locale
	cat    *catalog.Catalog
	ui     templates.UI
	in     templates.Interview
	x      templates.Explore
	// memo keeps what lookup returned, by id and data: go-i18n matches the
	// language and runs a text/template on every call, which was a third of
	// the cost of drawing a step's panels. Bounded by memoMax entries.
	memo memo // string -> memoEntry, up to memoMax
	// buttons keeps the fork menu's buttons by their step (see
	// view.choiceButton).
	buttons memo // explore.StepSpec -> templates.ChoiceButton, up to buttonsMax
	// diagrams keeps the diagram panels drawn (view.diagramPanel), about
	// 3 KB each.
	diagrams memo // string -> string, up to diagramsMax
	// steps keeps what the steps of course lessons' canonical runs draw,
	// shared by every session (stepcache.go): the step panels (about 20 KB
	// a step), timeline columns (about 2 KB) and lane labels.
	steps memo // stepKey -> map[string]string, timelineKey -> TimelineColumnPatch or string, up to stepsMax
}

// memo is a concurrent map bounded by a number of entries: it is emptied
// when a store would pass max (set max before use: a zero max keeps one
// entry). Its keys can come from learners' timelines (lock names, written
// values), so it must not grow without end; stores racing with the
// emptying may leave a few more than max until the next one.
type memo struct {
	m   sync.Map
	n   atomic.Int64
	max int64
}

// Load returns the entry of key and whether there is one.
func (m *memo) Load(key any) (any, bool) { return m.m.Load(key) }

// Store adds an entry, emptying the memo first when it is full. A key
// already there keeps its value (the values are drawings of the same
// inputs), so sessions that missed the same key at once count one entry.
func (m *memo) Store(key, value any) {
	if _, loaded := m.m.LoadOrStore(key, value); loaded {
		return
	}
	if m.n.Add(1) > m.max {
		m.m.Clear()
		m.m.Store(key, value)
		m.n.Store(1)
	}
}

// remember returns m's entry for key, or draws it, keeps it and returns it;
// a drawing that fails is returned with its error and not kept.
func remember[T any](m *memo, key any, draw func() (T, error)) (T, error) {
	if v, ok := m.Load(key); ok {
		return v.(T), nil
	}
	v, err := draw()
	if err == nil {
		m.Store(key, v)
	}
	return v, err
}

type memoEntry struct {
	s  string
	ok bool
}

// Bounds of a translator's memos, in entries: a memo is emptied when full.
// Some 20 MB per language at most (diagrams under 4 KB each, messages and
// buttons under 1 KB with their keys, which hold lock names of up to 200
// bytes), and at most some 40 MB of steps (the course fills about 800
// entries, some 5 MB): so at most some 60 MB a language, 180 MB for the
// three.
const (
	memoMax     = 20_000
	buttonsMax  = 5_000
	diagramsMax = 1_000
	stepsMax    = 2_000 // the course has about 200 steps, 4 entries each
)

// translators are the translators of one catalogue, by locale.
type translators struct {
	cat *catalog.Catalog
	mu  sync.Mutex
	m   map[sim.Locale]*translator
}

func newTranslators(c *catalog.Catalog) *translators {
	return &translators{cat: c, m: map[sim.Locale]*translator{}}
}

var defaultTranslators = sync.OnceValue(func() *translators {
	c, err := defaultCatalog()
	if err != nil {
		// The message files are embedded and tested; this cannot happen in a
		// built binary.
		panic(err)
	}
	return newTranslators(c)
})

// tr returns the translator of locale l of the embedded catalogue.
func tr(l sim.Locale) *translator { return defaultTranslators().get(l) }

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
	t.memo.max, t.buttons.max, t.diagrams.max, t.steps.max = memoMax, buttonsMax, diagramsMax, stepsMax
	t.ui = fillStrings[templates.UI](t)
	t.in = fillStrings[templates.Interview](t)
	t.x = fillStrings[templates.Explore](t)
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
	key := id
	if len(kv) > 0 {
		var b strings.Builder
		b.WriteString(id)
		for _, x := range kv {
			v := memoKeyPart(x)
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(len(v)))
			b.WriteByte(':')
			b.WriteString(v)
		}
		key = b.String()
	}
	if e, ok := t.memo.Load(key); ok {
		return e.(memoEntry).s, e.(memoEntry).ok
	}
	s, ok := t.localize(id, kv...)
	t.memo.Store(key, memoEntry{s, ok})
	return s, ok
}

func (t *translator) localize(id string, kv ...any) (string, bool) {
	var data map[string]any
	if len(kv) > 0 {
		data = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			data[fmt.Sprint(kv[i])] = kv[i+1]
		}
	}
	return t.cat.Lookup(t.locale, id, data)
}

// memoKeyPart is a message argument as lookup's memo key spells it:
// fmt.Sprint's text, without its reflection for the common kinds.
func memoKeyPart(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(x)
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
