package sim

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Every rule of the lesson format (docs/lesson-format.md and the additions
// of lessons/README.md) is checked here, once. The YAML loader (load.go) and
// the share-link decoder (package explore) only parse: they build a Lesson,
// note where each value was written, and call the validator, which reports
// each problem at the value's position (FILE:LINE:COL) or, for a lesson
// without positions, at its field path ("steps[3].lock").

// The patterns of ids (docs/lesson-format.md).
var (
	lessonIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)
	actorIDPattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

// MaxLockName bounds a lock name, in bytes (an addition to the spec,
// documented in lessons/README.md): names are Redis key names as
// applications write them, with hash tags, spaces and any script, but no
// control characters.
const MaxLockName = 200

// Validate checks a lesson built in code (not read by Load: a drill, a
// timeline of explore mode, a decoded share link) against every rule of the
// lesson format, with the locales of the lesson format. It returns LoadErrors
// (wrapping ErrInvalidLesson), each naming its field path, or nil.
func Validate(l *Lesson) error { return Options{}.Validate(l) }

// Validate is the package's Validate with o's locales.
func (o Options) Validate(l *Lesson) error {
	if errs := o.validate(l, srcPos{}); len(errs) > 0 {
		return errs
	}
	return nil
}

// ValidLessonID reports whether s may be a lesson's id: [a-z0-9-]+.
func ValidLessonID(s string) bool { return lessonIDPattern.MatchString(s) }

// ValidLockName reports whether s may name a lock: 1 to MaxLockName bytes
// of UTF-8 text without control characters.
func ValidLockName(s string) bool {
	return s != "" && len(s) <= MaxLockName && utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// srcPos holds where a lesson file wrote its values, by field path, so that
// the validator can point at them. Its zero value (a lesson built in code)
// makes every problem name its path instead.
type srcPos struct {
	loaded     bool // read from a file: an absent required field is "missing"
	top        Pos  // the lesson's mapping
	idFromFile bool // the id is the file name's
	at         map[string]Pos
	bad        map[string]bool   // fields whose value did not decode: not checked again
	written    map[string]string // durations as the file wrote them, for messages
}

func (p srcPos) pos(path string) Pos { return p.at[path] }

func (p srcPos) has(path string) bool {
	_, ok := p.at[path]
	return ok
}

// validator collects the problems of one lesson.
type validator struct {
	l         *Lesson
	at        srcPos
	locales   []Locale
	anyLocale bool
	errs      LoadErrors
}

// add records a problem of the field at path, at position p (or where the
// file wrote path when p is zero): m is the problem for people, format and
// args the same in English for logs.
func (v *validator) add(path string, p Pos, m Msg, format string, args ...any) {
	if p == (Pos{}) {
		p = v.at.pos(path)
	}
	if p == (Pos{}) && v.at.loaded {
		p = v.enclosing(path)
	}
	v.errs = append(v.errs, LoadError{File: v.l.File, Pos: p, Path: path, Msg: fmt.Sprintf(format, args...), Problem: m})
}

// enclosing is where a file wrote what holds the field at path, for a value
// it did not write itself (a default): the step, the actor, or the lesson.
func (v *validator) enclosing(path string) Pos {
	if n, ok := stepOfPath(path); ok {
		if p := v.at.pos(fmt.Sprintf("steps[%d]", n)); p != (Pos{}) {
			return p
		}
	}
	if rest, ok := strings.CutPrefix(path, "actors["); ok {
		var n int
		if _, err := fmt.Sscanf(rest, "%d]", &n); err == nil && n >= 1 && n <= len(v.l.Actors) {
			return v.l.Actors[n-1].Pos
		}
	}
	if v.at.top != (Pos{}) {
		return v.at.top
	}
	return Pos{1, 1}
}

// checked reports whether the field at path should be checked: it did
// decode (a value that did not is reported once, by the decoder).
func (v *validator) checked(path string) bool { return !v.at.bad[path] }

// present reports whether a step's field was given: written in the file,
// or not zero in a lesson built in code.
func (v *validator) present(path string, nonZero bool) bool {
	if v.at.loaded {
		return v.at.has(path)
	}
	return nonZero
}

func (o Options) validate(l *Lesson, at srcPos) LoadErrors {
	v := &validator{l: l, at: at, locales: o.locales(), anyLocale: o.AnyLocale}
	v.header()
	for i := range l.Actors {
		v.actor(i)
	}
	for i := range l.Steps {
		v.step(i)
	}
	v.lifecycles()
	v.replica()
	v.nodes()
	return v.errs
}

func (v *validator) header() {
	l := v.l
	switch {
	case v.at.idFromFile && !lessonIDPattern.MatchString(l.ID):
		v.add("id", v.at.top, M("lesson.id-from-file", "ID", l.ID), "id %q (the file name): want lowercase letters, digits and '-'; add an id field", l.ID)
	case l.ID != "" && v.checked("id") && !lessonIDPattern.MatchString(l.ID):
		v.add("id", Pos{}, M("lesson.id", "ID", l.ID), "id %q: want lowercase letters, digits and '-'", l.ID)
	}
	if (l.Group != "" || v.at.has("group")) && v.checked("group") && !slices.Contains(Groups, l.Group) {
		want := strings.Join(Groups, ", ")
		v.add("group", Pos{}, M("lesson.unknown-group", "Group", l.Group, "Want", want), "unknown group %q (want one of %s)", l.Group, want)
	}
	switch {
	case !v.checked("variant"):
	case l.Variant == "" && !v.at.has("variant"):
		v.missing("variant", v.at.top, "", "variant")
	case l.VariantDef != nil:
		// A variant file, checked by ValidateVariant when it was loaded.
	default:
		if _, ok := variants[l.Variant]; !ok {
			want := strings.Join(Variants(), ", ")
			v.add("variant", Pos{}, M("lesson.unknown-variant", "Variant", l.Variant, "Want", want), "unknown variant %q (want one of %s)", l.Variant, want)
		}
	}
	if v.at.loaded && !v.at.has("lease") {
		v.missing("lease", v.at.top, "", "lease")
	} else {
		v.duration("lease", "lease", l.Lease)
	}
	if l.FencingCounterTTL != 0 || v.at.has("fencing_counter_ttl") {
		v.duration("fencing_counter_ttl", "fencing_counter_ttl", l.FencingCounterTTL)
		if !l.Fencing && v.checked("fencing_counter_ttl") {
			v.add("fencing_counter_ttl", Pos{}, M("lesson.fencing-counter-ttl-no-fencing"), "fencing_counter_ttl: the lesson issues no fencing token; add fencing: true")
		}
	}
	if l.CheckThenWrite && !l.Fencing && v.checked("check_then_write") {
		v.add("check_then_write", Pos{}, M("lesson.check-then-write-no-fencing"), "check_then_write: the resource has no fencing token to check; add fencing: true")
	}
	if !l.CheckThenWrite {
		for i, s := range l.Steps {
			if s.Do == ActFinishWrite && v.checked(fmt.Sprintf("steps[%d].do", i+1)) {
				v.add(fmt.Sprintf("steps[%d].do", i+1), Pos{}, M("lesson.finish-write-no-check", "Step", i+1), "step %d: finish-write sends the second round trip of a check_then_write resource; add check_then_write: true to the lesson", i+1)
			}
		}
	}
	switch {
	case v.at.loaded && !v.at.has("steps"):
		v.missing("steps", v.at.top, "", "steps")
	case v.at.loaded && len(l.Steps) == 0 && v.checked("steps"):
		// A file needs a timeline; a timeline of explore mode may start empty.
		v.add("steps", Pos{}, M("lesson.no-steps"), "steps: a lesson needs at least one step")
	}
	v.lockName("lock", "lock", l.Lock)
	v.text("title", l.Title)
	v.text("summary", l.Summary)
	v.text("takeaway", l.Takeaway)
	v.text("note", l.Note)
}

// missing reports a required field that is absent. what names the mapping
// it belongs to ("" for the lesson, "actor", "step", or an action).
func (v *validator) missing(path string, p Pos, what, field string) {
	if what == "" {
		v.add(path, p, M("lesson.missing", "Field", field), "missing required field %q", field)
		return
	}
	v.add(path, p, M("lesson.missing-in", "In", what, "Field", field), "%s: missing required field %q", what, field)
}

// duration checks a duration field named key at path: above zero, in whole
// milliseconds (what Redis counts). A lease's fraction is refused as one
// Redis cannot count (lesson.duration-ms); a step's by (advance, clock-jump,
// long-script: how far a clock moves) as a move the clock does not make
// (lesson.by-ms).
func (v *validator) duration(path, key string, d time.Duration) {
	if !v.checked(path) {
		return
	}
	got, ok := v.at.written[path]
	if !ok {
		got = d.String()
	}
	switch {
	case d <= 0:
		v.add(path, Pos{}, M("lesson.duration-positive", "Field", key, "Got", got), "%s: duration must be greater than zero, got %s", key, got)
	case d%time.Millisecond != 0 && key == "by":
		v.add(path, Pos{}, M("lesson.by-ms", "Field", key, "Got", got), "%s: the clock moves in whole milliseconds, got %s", key, got)
	case d%time.Millisecond != 0:
		v.add(path, Pos{}, M("lesson.duration-ms", "Field", key, "Got", got), "%s: Redis leases count whole milliseconds, got %s", key, got)
	}
}

func (v *validator) lockName(path, key, s string) {
	if !v.checked(path) {
		return
	}
	switch {
	case s == "":
		v.add(path, Pos{}, M("lesson.lock-empty", "Field", key), "%s: lock name must not be empty", key)
	case !ValidLockName(s):
		v.add(path, Pos{}, M("lesson.lock-name", "Field", key, "Max", MaxLockName), "%s: a lock name is 1 to %d bytes of text without control characters", key, MaxLockName)
	}
}

// MaxBecause is the most reasons a step's why question offers.
const MaxBecause = 4

// why checks a step's why question: why and because come together, with 2
// to MaxBecause reasons, each a text like say.
func (v *validator) why(path string, s Step, why, because bool) {
	f := func(name string) string { return path + "." + name }
	switch {
	case why && !because:
		v.add(f("because"), Pos{}, M("lesson.why-without-because"), "why: a why question needs its reasons (because: a list, the right one first)")
	case because && !why:
		v.add(f("why"), Pos{}, M("lesson.because-without-why"), "because: the reasons need their question (why)")
	case because && (len(s.Because) < 2 || len(s.Because) > MaxBecause):
		v.add(f("because"), Pos{}, M("lesson.because-count", "Got", len(s.Because), "Max", MaxBecause), "because: want 2 to %d reasons, got %d", MaxBecause, len(s.Because))
	}
	v.text(f("why"), s.Why)
	for i, t := range s.Because {
		v.text(fmt.Sprintf("%s[%d]", f("because"), i+1), t)
	}
}

// text checks the locales of a text field.
func (v *validator) text(path string, t Text) {
	if v.anyLocale {
		return
	}
	for _, l := range slices.Sorted(maps.Keys(t)) {
		loc := string(l)
		if loc == "" || slices.Contains(v.locales, l) {
			continue
		}
		want := joinLocales(v.locales)
		key := path + "." + loc
		v.add(key, Pos{}, M("lesson.unknown-locale", "Field", lastField(path), "Locale", loc, "Want", want), "%s: unknown locale %q (want %s)", lastField(path), loc, want)
	}
}

// lastField is the last name of a field path: "name" of "actors[2].name".
func lastField(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// joinLocales is "en, zh-CN or zh-TW".
func joinLocales(ls []Locale) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (v *validator) actor(i int) {
	a := v.l.Actors[i]
	path := fmt.Sprintf("actors[%d]", i+1)
	switch {
	case !v.checked(path + ".id"):
	case a.ID == "" && !v.at.has(path+".id"):
		v.missing(path+".id", a.Pos, "actor", "id")
	case !actorIDPattern.MatchString(a.ID):
		v.add(path+".id", a.Pos, M("lesson.actor-id", "ID", a.ID), "actor id %q: want a letter, then letters, digits, '_' or '-'", a.ID)
	}
	v.text(path+".name", a.Name)
}

// stepFields says which fields each action takes, beyond the ones every step
// may carry (do, say, expect, expect_violation, misconception). why and
// because go with the actions predict mode asks about.
var stepFields = map[Action][]string{
	ActAcquire: {"actor", "lease", "lock", "nested", "reply_lost", "unreplicated", "unreachable", "keep_partial", "why", "because"},
	ActRelease: {"actor", "lock", "reply_lost", "unreplicated", "unreachable", "why", "because"},
	ActWrite:   {"actor", "value", "lock", "unreplicated", "why", "because"},
	ActPause:   {"actor"},
	ActResume:  {"actor"},
	ActCrash:   {"actor"},
	ActFork:    {"actor", "child", "context"},
	ActAdvance: {"by", "reply_lost"},
	// Additions to the spec:
	ActFinishRelease: {"actor", "lock", "why", "because"},
	ActExit:          {"actor"},
	ActClockJump:     {"by", "node"},
	ActFailover:      {},
	ActLongScript:    {"actor", "by"},
	ActRestart:       {"node"},
	ActFinishWrite:   {"actor", "lock", "why", "because"},
}

// StepFields returns the fields of the lesson format ("lock", "lease",
// "by", ...) that a step of action do takes, beyond "do" and "say": the
// table by which Validate refuses any other field. known is false for an
// action the format does not have.
func StepFields(do Action) (fields []string, known bool) {
	f, known := stepFields[do]
	return slices.Clone(f), known
}

// requiredFields are the fields an action cannot do without ("actor" for
// every action that takes one).
var requiredFields = map[Action][]string{
	ActWrite:      {"value"},
	ActFork:       {"child", "context"},
	ActAdvance:    {"by"},
	ActClockJump:  {"by"},
	ActLongScript: {"by"},
	ActRestart:    {"node"},
}

func (v *validator) step(i int) {
	s := v.l.Steps[i]
	path := fmt.Sprintf("steps[%d]", i+1)
	f := func(name string) string { return path + "." + name }
	v.text(f("say"), s.Say)
	if !v.checked(f("do")) {
		return
	}
	if s.Do == "" {
		p := v.at.pos(path)
		if p == (Pos{}) {
			p = s.Pos
		}
		v.missing(f("do"), p, "step", "do")
		return
	}
	allowed, known := stepFields[s.Do]
	if !known {
		want := joinActions()
		v.add(f("do"), Pos{}, M("lesson.unknown-action", "Action", string(s.Do), "Want", want), "unknown action %q (want one of %s)", s.Do, want)
		return
	}
	// The fields given, and whether each is: the lock of a step that
	// takes none is the lesson's, so it is not a field given.
	given := map[string]bool{
		"actor": v.present(f("actor"), s.Actor != ""), "lease": v.present(f("lease"), s.Lease != 0),
		"lock": v.at.has(f("lock")), "value": v.present(f("value"), s.Value != ""),
		"child": v.present(f("child"), s.Child != ""), "context": v.present(f("context"), s.Context != ""),
		"by": v.present(f("by"), s.By != 0), "reply_lost": v.present(f("reply_lost"), s.ReplyLost),
		"unreplicated": v.present(f("unreplicated"), s.Unreplicated), "nested": v.present(f("nested"), s.Nested),
		"why": v.present(f("why"), s.Why != nil), "because": v.present(f("because"), s.Because != nil),
		"node": v.present(f("node"), s.Node != 0), "unreachable": v.present(f("unreachable"), s.Unreachable != nil),
		"keep_partial": v.present(f("keep_partial"), s.KeepPartial),
	}
	for _, name := range []string{"actor", "lease", "lock", "value", "child", "context", "by", "reply_lost", "unreplicated", "nested", "node", "unreachable", "keep_partial", "why", "because"} {
		if given[name] && !slices.Contains(allowed, name) {
			p := v.at.pos(f(name) + ":key")
			v.add(f(name), p, M("lesson.field-not-applicable", "Field", name, "Action", string(s.Do)), "field %q does not apply to %s", name, s.Do)
			given[name] = false
		}
	}
	required := requiredFields[s.Do]
	if slices.Contains(allowed, "actor") {
		required = append(slices.Clone(required), "actor")
	}
	for _, name := range required {
		if name == "value" && !v.at.loaded {
			continue // a write of "" is a write; only a file can leave the field out
		}
		if !given[name] && v.checked(f(name)) {
			p := v.at.pos(path) // the step's mapping
			if p == (Pos{}) {
				p = s.Pos
			}
			v.missing(f(name), p, string(s.Do), name)
			given[name] = false
		}
	}
	if s.Expect != "" && v.checked(f("expect")) && !slices.Contains(OutcomesFor(s.Do), s.Expect) {
		want := joinOutcomes(OutcomesFor(s.Do))
		v.add(f("expect"), Pos{}, M("lesson.unknown-outcome", "Outcome", string(s.Expect), "Action", string(s.Do), "Want", want), "unknown outcome %q for %s (want one of %s)", s.Expect, s.Do, want)
	}
	for j, name := range s.ExpectViolations {
		if !slices.Contains(Invariants, name) {
			want := strings.Join(Invariants, ", ")
			p := fmt.Sprintf("%s[%d]", f("expect_violation"), j+1)
			v.add(p, Pos{}, M("lesson.unknown-invariant", "Invariant", name, "Want", want), "unknown invariant %q (want one of %s)", name, want)
		}
	}
	v.why(path, s, given["why"], given["because"])
	v.text(f("misconception"), s.Misconception)
	if given["lease"] {
		v.duration(f("lease"), "lease", s.Lease)
	}
	if given["by"] {
		v.duration(f("by"), "by", s.By)
	}
	// A step that names no lock of its own has the lesson's, checked there.
	if slices.Contains(allowed, "lock") && (given["lock"] || !v.at.loaded && s.Lock != v.l.Lock) {
		v.lockName(f("lock"), "lock", s.Lock)
	}
	if given["child"] && v.checked(f("child")) && !actorIDPattern.MatchString(s.Child) {
		v.add(f("child"), Pos{}, M("lesson.child-id", "ID", s.Child), "child id %q: want a letter, then letters, digits, '_' or '-'", s.Child)
	}
	if given["context"] && v.checked(f("context")) && s.Context != "inherit" && s.Context != "lost" {
		v.add(f("context"), Pos{}, M("lesson.fork-context", "Got", s.Context), "context: want inherit or lost, got %q", s.Context)
	}
}

// actorLife is an actor's state as the validator replays the steps.
type actorLife int

const (
	lifeUnborn actorLife = iota // declared as a fork child, not yet forked
	lifeRunning
	lifePaused
	lifeCrashed
	lifeExited
	lifeUnknown // took a step with an unknown action: no longer checked
)

// lifecycles replays the steps' effect on actor lifecycles and reports
// every step that the runner could not carry out. After a step with an
// unknown action, that step's actor is no longer checked, as the replay
// cannot tell what the step would have done to it.
func (v *validator) lifecycles() {
	l := v.l
	childPos := func(i int) Pos {
		if p := v.at.pos(fmt.Sprintf("steps[%d].child", i+1)); p != (Pos{}) {
			return p
		}
		return l.Steps[i].Pos
	}
	forkAt := map[string]int{} // fork child: 1-based number of its first fork step
	for i, s := range l.Steps {
		if s.Do == ActFork && s.Child != "" && s.Child == s.Actor {
			v.add(fmt.Sprintf("steps[%d].child", i+1), childPos(i), M("lesson.fork-self", "Step", i+1, "Actor", s.Child), "step %d: actor %q cannot fork itself; name a new child", i+1, s.Child)
			continue
		}
		if s.Do == ActFork && s.Child != "" && forkAt[s.Child] == 0 {
			forkAt[s.Child] = i + 1
		}
	}
	life := map[string]actorLife{}
	for i, a := range l.Actors {
		if a.ID == "" {
			continue
		}
		if _, dup := life[a.ID]; dup {
			v.add(fmt.Sprintf("actors[%d].id", i+1), a.Pos, M("lesson.duplicate-actor", "ID", a.ID), "duplicate actor id %q", a.ID)
			continue
		}
		life[a.ID] = lifeRunning
	}
	// A fork child, declared under actors or not, exists only from its fork on.
	for c := range forkAt {
		life[c] = lifeUnborn
	}
	for i, s := range l.Steps {
		n := i + 1
		path := fmt.Sprintf("steps[%d].actor", n)
		if _, ok := stepFields[s.Do]; !ok {
			if _, ok := life[s.Actor]; ok {
				life[s.Actor] = lifeUnknown
			}
			continue
		}
		if s.Do == ActAdvance || s.Do == ActClockJump || s.Do == ActFailover || s.Do == ActRestart {
			continue
		}
		p := s.ActorPos
		if p == (Pos{}) {
			p = s.Pos
		}
		st, known := life[s.Actor]
		var m Msg
		var format string
		switch {
		case s.Actor == "", st == lifeUnknown:
			// Reported as a missing field, or an unknown action.
		case !known:
			m, format = M("lesson.unknown-actor", "Step", n, "Actor", s.Actor), "step %d: unknown actor %q (declare it under actors, or create it with fork)"
		case st == lifeUnborn:
			// Declared or not, a fork child exists only from its fork on:
			// name that step, so a declared child is not taken for a
			// running actor.
			m = M("lesson.actor-before-its-fork", "Step", n, "Actor", s.Actor, "Fork", forkAt[s.Actor])
			format = "step %d: actor %q acts before it exists: it is a fork child, created by the fork at step " + fmt.Sprint(forkAt[s.Actor])
		case st == lifeCrashed:
			m, format = M("lesson.actor-crashed", "Step", n, "Actor", s.Actor), "step %d: actor %q has crashed and can take no further step"
		case st == lifeExited:
			m, format = M("lesson.actor-exited", "Step", n, "Actor", s.Actor), "step %d: actor %q has exited and can take no further step"
		case st == lifePaused && s.Do != ActResume:
			m, format = M("lesson.actor-paused", "Step", n, "Actor", s.Actor), "step %d: actor %q is paused; only resume may come next for it"
		case st == lifeRunning && s.Do == ActResume:
			m, format = M("lesson.actor-not-paused", "Step", n, "Actor", s.Actor), "step %d: actor %q is not paused, so it cannot resume"
		}
		if s.Actor == "" || st == lifeUnknown || format != "" {
			if format != "" {
				v.add(path, p, m, format, n, s.Actor)
			}
			// A fork that cannot run still brings its child to life, so that
			// the child's own steps are not reported as well.
			if st, ok := life[s.Child]; ok && s.Do == ActFork && st == lifeUnborn {
				life[s.Child] = lifeRunning
			}
			continue
		}
		switch s.Do {
		case ActPause:
			life[s.Actor] = lifePaused
		case ActResume:
			life[s.Actor] = lifeRunning
		case ActCrash:
			life[s.Actor] = lifeCrashed
		case ActExit:
			life[s.Actor] = lifeExited
		case ActFork:
			if s.Child == "" || s.Child == s.Actor {
				continue
			}
			if st, ok := life[s.Child]; ok && st != lifeUnborn {
				v.add(fmt.Sprintf("steps[%d].child", n), childPos(i), M("lesson.fork-child-exists", "Step", n, "Child", s.Child), "step %d: fork child %q already exists", n, s.Child)
				continue
			}
			life[s.Child] = lifeRunning
		}
	}
}

// replica checks the steps that need a replica: failover and unreplicated
// steps only in a lesson with `replica: true`, at most one failover, and no
// unreplicated step after it (the promoted replica has no replica of its
// own).
func (v *validator) replica() {
	l := v.l
	failover := 0 // 1-based number of the first failover step
	for i, s := range l.Steps {
		n := i + 1
		if s.Do == ActFailover {
			switch {
			case !l.Replica && (l.Nodes != 0 || v.at.has("nodes")):
				v.add(fmt.Sprintf("steps[%d].do", n), s.Pos, M("lesson.failover-nodes", "Step", n), "step %d: a lesson with nodes has no replica to fail over to; restart a node with do: restart and node: N instead", n)
			case !l.Replica:
				v.add(fmt.Sprintf("steps[%d].do", n), s.Pos, M("lesson.failover-no-replica", "Step", n), "step %d: failover needs a replica to promote; add replica: true to the lesson", n)
			case failover > 0:
				v.add(fmt.Sprintf("steps[%d].do", n), s.Pos, M("lesson.failover-twice", "Step", n, "First", failover), "step %d: a lesson fails over at most once (step %d already did)", n, failover)
			}
			if failover == 0 {
				failover = n
			}
		}
		if !s.Unreplicated || !slices.Contains(stepFields[s.Do], "unreplicated") {
			continue // a field that does not apply is reported by step
		}
		path := fmt.Sprintf("steps[%d].unreplicated", n)
		p := v.at.pos(path)
		if p == (Pos{}) {
			p = s.Pos
		}
		switch {
		case !l.Replica:
			v.add(path, p, M("lesson.unreplicated-no-replica", "Step", n), "step %d: unreplicated needs a replica that misses the write; add replica: true to the lesson", n)
		case failover > 0:
			v.add(path, p, M("lesson.unreplicated-after-failover", "Step", n, "Failover", failover), "step %d: unreplicated after the failover at step %d: the promoted replica has no replica of its own", n, failover)
		}
	}
}

// nodes checks a lesson with nodes (`nodes: N`, Redlock's independent
// primaries) and the steps that need one: nodes from MinNodes to MaxNodes,
// with a variant whose calls stand alone on each node (not a two-step
// release, whose DEL follows a GET of one server), without a replica, fencing or writes (the
// resource and the fencing counter would need a server of their own);
// restart and unreachable only in such a lesson, each naming nodes from 1
// to N, and an unreachable list naming a node once.
func (v *validator) nodes() {
	l := v.l
	has := l.Nodes != 0 || v.at.has("nodes")
	if has && v.checked("nodes") {
		info, known := LessonVariant(l)
		switch {
		case l.Nodes < MinNodes || l.Nodes > MaxNodes:
			v.add("nodes", Pos{}, M("lesson.nodes-range", "Got", l.Nodes, "Min", MinNodes, "Max", MaxNodes), "nodes: want %d to %d independent Redis servers, got %d", MinNodes, MaxNodes, l.Nodes)
		case known && info.TwoStepRelease:
			v.add("nodes", Pos{}, M("lesson.nodes-variant", "Variant", l.Variant), "nodes: the %s variant's release is a GET, then a DEL in a later step, which a majority of nodes cannot share", l.Variant)
		case l.Replica:
			v.add("nodes", Pos{}, M("lesson.nodes-replica"), "nodes: Redlock's nodes are independent primaries; a lesson has either nodes or replica: true")
		case l.Cluster:
			v.add("nodes", Pos{}, M("lesson.nodes-cluster"), "nodes: Redlock's nodes are independent primaries, not one Redis Cluster; a lesson has either nodes or cluster: true")
		case l.Fencing:
			v.add("nodes", Pos{}, M("lesson.nodes-fencing"), "nodes: a fencing counter on several nodes would need a server of its own; leave fencing out")
		}
	}
	inRange := func(path string, p Pos, n, step int) {
		if has && (n < 1 || n > l.Nodes) && v.checked(path) {
			v.add(path, p, M("lesson.node-range", "Step", step, "Got", n, "Nodes", l.Nodes), "step %d: node %d: the lesson has nodes 1 to %d", step, n, l.Nodes)
		}
	}
	for i, s := range l.Steps {
		n := i + 1
		path := fmt.Sprintf("steps[%d]", n)
		switch {
		case s.Do == ActRestart && !has:
			v.add(path+".do", s.Pos, M("lesson.restart-no-nodes", "Step", n), "step %d: restart needs nodes to restart; add nodes: 3 to the lesson", n)
		case s.Do == ActRestart && v.present(path+".node", s.Node != 0):
			inRange(path+".node", Pos{}, s.Node, n)
		case s.Do == ActClockJump && (v.at.has(path+".node") || s.Node != 0) && !has:
			v.add(path+".node", v.posOr(path+".node", s.Pos), M("lesson.clock-jump-node-no-nodes", "Step", n), "step %d: a clock jump on one node needs nodes; add nodes: 3 to the lesson, or leave node out to jump the server's clock", n)
		case s.Do == ActClockJump && v.present(path+".node", s.Node != 0):
			inRange(path+".node", Pos{}, s.Node, n)
		case s.Do == ActAcquire && s.KeepPartial && !has:
			v.add(path+".keep_partial", v.posOr(path+".keep_partial", s.Pos), M("lesson.keep-partial-no-nodes", "Step", n), "step %d: keep_partial keeps the nodes a failed majority took; add nodes: 3 to the lesson", n)
		case (s.Do == ActWrite || s.Do == ActFinishWrite) && has:
			v.add(path+".do", s.Pos, M("lesson.nodes-write", "Step", n), "step %d: a lesson on several nodes has no resource to write to", n)
		case s.Do == ActLongScript && has:
			// The long script's renew call busies one server; the model
			// has no node for it (it would block every node as one).
			v.add(path+".do", s.Pos, M("lesson.nodes-long-script", "Step", n), "step %d: a long script busies one server; a lesson on several nodes has no node for it", n)
		}
		if len(s.Unreachable) == 0 || !slices.Contains(stepFields[s.Do], "unreachable") {
			continue // a field that does not apply is reported by step
		}
		if !has {
			p := v.at.pos(path + ".unreachable")
			if p == (Pos{}) {
				p = s.Pos
			}
			v.add(path+".unreachable", p, M("lesson.unreachable-no-nodes", "Step", n), "step %d: unreachable names nodes; add nodes: 3 to the lesson", n)
			continue
		}
		for j, node := range s.Unreachable {
			p := fmt.Sprintf("%s.unreachable[%d]", path, j+1)
			inRange(p, Pos{}, node, n)
			if slices.Contains(s.Unreachable[:j], node) {
				v.add(p, Pos{}, M("lesson.unreachable-twice", "Step", n, "Node", node), "step %d: unreachable names node %d twice", n, node)
			}
		}
		if l.Nodes >= MinNodes && l.Nodes <= MaxNodes && allNodes(s.Unreachable, l.Nodes) {
			p := v.at.pos(path + ".unreachable")
			if p == (Pos{}) {
				p = s.Pos
			}
			v.add(path+".unreachable", p, M("lesson.unreachable-all", "Step", n), "step %d: unreachable names every node: no node answers, and there is nothing to teach; leave at least one node reachable", n)
		}
	}
}

// allNodes reports whether list names every node from 1 to n.
func allNodes(list []int, n int) bool {
	for node := 1; node <= n; node++ {
		if !slices.Contains(list, node) {
			return false
		}
	}
	return true
}

// posOr is the position of the value at path in the file, or p when the
// lesson was not read from one (or the path has none).
func (v *validator) posOr(path string, p Pos) Pos {
	if q := v.at.pos(path); q != (Pos{}) {
		return q
	}
	return p
}
