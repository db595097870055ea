package sim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/goccy/go-yaml"
)

// exportHeader is the comment MarshalLesson puts on the first line.
const exportHeader = "# Lesson exported by Lockstep (sim.MarshalLesson).\n"

// MarshalLesson writes l as a lesson file (docs/lesson-format.md) that Load
// accepts and that reads back to the same Lesson, apart from File and the
// positions (Pos, ActorPos), which a file does not state.
//
// It writes, in the order of the spec's example: id, title, summary,
// takeaway, source, group, variant, lease, fencing (when true), lock (when not
// "lock"), seed (only when it differs from the one Load derives from the id),
// replica (when true), nodes (when not 0), actors (id, name, instance,
// request_id) and steps. A step has actor and do first, then the fields its
// action takes that differ from their defaults (lock when not the lesson's,
// lease, reply_lost, unreplicated, unreachable, node, value, child, context,
// by), expect, expect_violation, and say
// last. Fields an action does not take are left out: Load gives every step
// the lesson's lock, so a Lock on, say, an advance step is not written.
// Durations are written as Go durations (30s, 1500ms, 2m). A text is a plain
// string when it holds only the "" key, otherwise a map en, zh-CN, zh-TW in
// that order, then any other locale by its tag (flow style when short); prose and other free-form strings are
// double-quoted so that values such as "yes", "null", "0x10" or ones holding
// ':', '#', quotes or newlines read back unchanged. An empty
// ExpectViolations is written as no field.
//
// It returns an error when l holds something no lesson file can say: a Text
// with both a plain string and translations, or Seed 0 (Load derives a seed
// from the id instead). It does not validate l otherwise; run Validate (with
// the catalogue's locales) for that.
func MarshalLesson(l *Lesson) ([]byte, error) {
	if l == nil {
		return nil, errors.New("sim: MarshalLesson: nil lesson")
	}
	var errs []error
	text := func(what string, t Text) any {
		v, err := yamlText(t)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
		return v
	}
	doc := yaml.MapSlice{{Key: "id", Value: yamlString(l.ID)}}
	add := func(key string, value any) { doc = append(doc, yaml.MapItem{Key: key, Value: value}) }
	if l.Title != nil {
		add("title", text("title", l.Title))
	}
	if l.Summary != nil {
		add("summary", text("summary", l.Summary))
	}
	if l.Takeaway != nil {
		add("takeaway", text("takeaway", l.Takeaway))
	}
	if l.Note != nil {
		add("note", text("note", l.Note))
	}
	if l.Source != "" {
		add("source", yamlString(l.Source))
	}
	if l.Group != "" {
		add("group", yamlString(l.Group))
	}
	add("variant", yamlString(l.Variant))
	add("lease", formatDuration(l.Lease))
	if l.Fencing {
		add("fencing", true)
	}
	if l.FencingCounterTTL > 0 {
		add("fencing_counter_ttl", formatDuration(l.FencingCounterTTL))
	}
	if l.CheckThenWrite {
		add("check_then_write", true)
	}
	if l.Lock != "lock" {
		add("lock", yamlString(l.Lock))
	}
	switch {
	case l.Seed == 0:
		errs = append(errs, errors.New("seed 0 cannot be written: Load derives a seed from the id when a file gives 0 or none"))
	case l.Seed != derivedSeed(l.ID):
		add("seed", l.Seed)
	}
	if l.Replica {
		add("replica", true)
	}
	if l.Nodes > 0 {
		add("nodes", l.Nodes)
	}
	if l.Cluster {
		add("cluster", true)
	}
	if len(l.Actors) > 0 {
		actors := make([]yaml.MapSlice, len(l.Actors))
		for i, a := range l.Actors {
			m := yaml.MapSlice{{Key: "id", Value: yamlString(a.ID)}}
			if a.Name != nil {
				m = append(m, yaml.MapItem{Key: "name", Value: text("actor "+a.ID+" name", a.Name)})
			}
			if a.Instance != "" {
				m = append(m, yaml.MapItem{Key: "instance", Value: yamlString(a.Instance)})
			}
			if a.RequestID != "" {
				m = append(m, yaml.MapItem{Key: "request_id", Value: yamlString(a.RequestID)})
			}
			actors[i] = m
		}
		add("actors", actors)
	}
	steps := make([]yaml.MapSlice, len(l.Steps))
	for i, s := range l.Steps {
		steps[i] = yamlStep(l, s, func(field string, t Text) any { return text(fmt.Sprintf("step %d %s", i+1, field), t) })
	}
	add("steps", steps)
	if len(errs) > 0 {
		return nil, fmt.Errorf("sim: MarshalLesson %s: %w", l.ID, errors.Join(errs...))
	}
	out, err := yaml.MarshalWithOptions(doc, yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("sim: MarshalLesson %s: %w", l.ID, err)
	}
	return append([]byte(exportHeader), out...), nil
}

// yamlStep returns step s of lesson l as an ordered mapping. enc encodes a
// text field (say, why, each reason of because, misconception).
func yamlStep(l *Lesson, s Step, enc func(field string, t Text) any) yaml.MapSlice {
	allowed := stepFields[s.Do]
	takes := func(f string) bool { return slices.Contains(allowed, f) }
	m := yaml.MapSlice{}
	add := func(key string, value any) { m = append(m, yaml.MapItem{Key: key, Value: value}) }
	if takes("actor") {
		add("actor", yamlString(s.Actor))
	}
	add("do", yamlString(string(s.Do)))
	if takes("lock") && s.Lock != l.Lock && s.Lock != "" {
		add("lock", yamlString(s.Lock))
	}
	if takes("lease") && s.Lease != 0 {
		add("lease", formatDuration(s.Lease))
	}
	if takes("nested") && s.Nested {
		add("nested", true)
	}
	if takes("reply_lost") && s.ReplyLost {
		add("reply_lost", true)
	}
	if takes("unreplicated") && s.Unreplicated {
		add("unreplicated", true)
	}
	if takes("unreachable") && len(s.Unreachable) > 0 {
		add("unreachable", s.Unreachable)
	}
	if takes("keep_partial") && s.KeepPartial {
		add("keep_partial", true)
	}
	if takes("node") && (s.Node != 0 || s.Do == ActRestart) {
		add("node", s.Node) // required by restart, optional on clock-jump
	}
	// value, child, context and by are required by the actions that take
	// them, so they are written even when empty.
	if takes("value") {
		add("value", quoted(s.Value))
	}
	if takes("child") {
		add("child", yamlString(s.Child))
	}
	if takes("context") {
		add("context", yamlString(s.Context))
	}
	if takes("by") {
		add("by", formatDuration(s.By))
	}
	if s.Expect != "" {
		add("expect", yamlString(string(s.Expect)))
	}
	switch len(s.ExpectViolations) {
	case 0:
	case 1:
		add("expect_violation", yamlString(s.ExpectViolations[0]))
	default:
		names := make(flowList, len(s.ExpectViolations))
		for i, v := range s.ExpectViolations {
			names[i] = yamlString(v)
		}
		add("expect_violation", names)
	}
	if takes("why") && s.Why != nil {
		add("why", enc("why", s.Why))
		reasons := make([]any, len(s.Because))
		for i, b := range s.Because {
			reasons[i] = enc(fmt.Sprintf("because %d", i+1), b)
		}
		add("because", reasons)
	}
	if s.Misconception != nil {
		add("misconception", enc("misconception", s.Misconception))
	}
	if s.Say != nil {
		add("say", enc("say", s.Say))
	}
	return m
}

// derivedSeed is the seed Load gives a lesson whose file names none.
func derivedSeed(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// formatDuration writes d in the largest unit that states it exactly (2m,
// 31s, 1500ms); time.ParseDuration reads each back to d.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return d.String()
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return d.String() // exact too; Load refuses it (leases are whole milliseconds)
}

// plainWord matches the names that read well unquoted and that YAML reads as
// the same string (ids, variants, lock names, file names). goccy/go-yaml
// still quotes the ones among them that would read as a number, a Boolean,
// null or a timestamp.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// yamlString returns s to be written plain when that is safe, else quoted.
func yamlString(s string) any {
	if plainWord.MatchString(s) && s[len(s)-1] != ':' {
		return s
	}
	return quoted(s)
}

// quoted is a string that is always written double-quoted, with escapes for
// quotes, backslashes, newlines and control characters, so that any value
// reads back unchanged. goccy/go-yaml's JSON-style scalar does the quoting.
type quoted string

// MarshalYAML implements yaml.BytesMarshaler.
func (q quoted) MarshalYAML() ([]byte, error) {
	return yaml.MarshalWithOptions(string(q), yaml.JSON())
}

// flowList is a list written in flow style: [a, b].
type flowList []any

// MarshalYAML implements yaml.BytesMarshaler.
func (f flowList) MarshalYAML() ([]byte, error) {
	return yaml.MarshalWithOptions([]any(f), yaml.Flow(true))
}

// flowMap is a mapping written in flow style: {en: "...", zh-CN: "..."}.
type flowMap yaml.MapSlice

// MarshalYAML implements yaml.BytesMarshaler.
func (f flowMap) MarshalYAML() ([]byte, error) {
	return yaml.MarshalWithOptions(yaml.MapSlice(f), yaml.Flow(true))
}

// flowTextMax is the longest text (in bytes, all translations together)
// written on one line in flow style; longer ones get a line per locale.
const flowTextMax = 80

// yamlText returns t as a lesson file writes it: a quoted plain string, or a
// mapping from locale to text.
func yamlText(t Text) (any, error) {
	if s, ok := t[""]; ok {
		if len(t) > 1 {
			return nil, errors.New("a text cannot hold both a plain string and translations")
		}
		return quoted(s), nil
	}
	// The lesson format's locales first, then any other (a language of the
	// catalogue) in the order of its tag; the validator decides which a
	// lesson may hold.
	order := slices.Clone(Locales)
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	m := yaml.MapSlice{}
	size := 0
	for _, loc := range order {
		if s, ok := t[loc]; ok {
			m = append(m, yaml.MapItem{Key: string(loc), Value: quoted(s)})
			size += len(s)
		}
	}
	if len(m) == 0 {
		return flowMap{}, nil // an empty mapping, {}, reads back as an empty Text
	}
	if size <= flowTextMax {
		return flowMap(m), nil
	}
	return m, nil
}
