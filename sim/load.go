package sim

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

var (
	lessonIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)
	actorIDPattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	// durationSyntax is what time.ParseDuration reads; a match it still
	// refuses is out of range.
	durationSyntax  = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)
	lockNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9:._-]*$`)
)

// maxLessonBytes bounds what Load reads: lessons are hand-written files, and
// the web player accepts pasted ones.
const maxLessonBytes = 1 << 20

// maxNesting bounds how deeply lists and mappings may nest in one line or
// in flow style ([...], {...}); a lesson needs four or five levels. The bound
// is there because goccy/go-yaml parses such nesting in time and memory
// quadratic in its depth: 32 KB of '[' take seconds and over a gigabyte.
const maxNesting = 32

// tooDeep returns the first token at which flow collections and the block
// entries ('-', '?') that share a line nest more than maxNesting deep, or nil.
func tooDeep(tokens token.Tokens) *token.Token {
	flow, entries, line := 0, 0, 0
	for _, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		if tk.Position.Line != line {
			line, entries = tk.Position.Line, 0
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType:
			entries++
		}
		if flow+entries > maxNesting {
			return tk
		}
	}
	return nil
}

// LoadFile reads and parses the lesson at path. See Load.
func LoadFile(path string) (*Lesson, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, first
		}
		return nil, fmt.Errorf("sim: %s: cannot read the lesson file: %w", path, err)
	}
	return Load(path, src)
}

// Load parses src, the text of the lesson file named file (used in messages
// and for the default id), and validates it against the lesson format. On any
// problem it returns a LoadErrors listing every problem found, each as
// FILE:LINE:COL: message; the error wraps ErrInvalidLesson.
func Load(file string, src []byte) (*Lesson, error) {
	// Editors on Windows often save UTF-8 with a byte order mark.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	d := &decoder{file: file, at: srcPos{child: map[int]Pos{}, unreplicated: map[int]Pos{}}}
	l, parsed := d.lesson(src)
	if parsed {
		// Replay the steps even when decoding found problems, so that one
		// run reports every problem in the file (validate skips what the
		// decoder could not make sense of).
		d.errs = append(d.errs, validate(l, d.at)...)
	}
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i].Pos, d.errs[j].Pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		for i := range d.errs {
			d.errs[i].File = file
		}
		return nil, d.errs
	}
	return l, nil
}

// decoder walks the YAML syntax tree that goccy/go-yaml builds, collecting
// every problem with its position rather than stopping at the first.
type decoder struct {
	file string
	errs LoadErrors
	at   srcPos // positions Lesson does not keep, for validate's messages
}

func (d *decoder) errorf(n ast.Node, format string, args ...any) {
	d.errs = append(d.errs, LoadError{Pos: posOf(n), Msg: fmt.Sprintf(format, args...)})
}

func posOf(n ast.Node) Pos {
	// goccy/go-yaml gives a block mapping (and a mapping entry) the position
	// of its first ':'; a message about the whole mapping, such as a missing
	// field, should point at the start of its first key instead.
	switch t := n.(type) {
	case *ast.MappingNode:
		if !t.IsFlowStyle && len(t.Values) > 0 && t.Values[0] != nil && t.Values[0].Key != nil {
			return posOf(t.Values[0].Key)
		}
	case *ast.MappingValueNode:
		if t.Key != nil {
			return posOf(t.Key)
		}
	}
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return Pos{1, 1}
	}
	p := n.GetToken().Position
	return Pos{Line: p.Line, Col: p.Column}
}

// lesson decodes src into a Lesson, reporting problems as it goes. It returns
// false when src is not a YAML mapping at all, so there are no steps to check.
func (d *decoder) lesson(src []byte) (*Lesson, bool) {
	l := &Lesson{File: d.file}
	if len(src) > maxLessonBytes {
		d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: fmt.Sprintf("file is %d bytes; lessons may be at most %d", len(src), maxLessonBytes)})
		return l, false
	}
	tokens := lexer.Tokenize(string(src))
	if tk := tooDeep(tokens); tk != nil {
		d.errs = append(d.errs, LoadError{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf("lists and mappings nest more than %d deep here; a lesson needs a few levels", maxNesting)})
		return l, false
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		d.syntaxError(err)
		return l, false
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: "want exactly one YAML document holding a mapping"})
		return l, false
	}
	fields, ok := d.mapping(f.Docs[0].Body, "lesson")
	if !ok {
		return l, false
	}
	base := strings.TrimSuffix(filepath.Base(d.file), filepath.Ext(d.file))
	l.ID = base
	l.Lock = "lock"
	var leaseSeen, variantSeen, stepsSeen bool
	for _, kv := range fields {
		switch kv.key {
		case "id":
			var ok bool
			if l.ID, ok = d.scalarStr(kv); ok && !lessonIDPattern.MatchString(l.ID) {
				d.errorf(kv.value, "id %q: want lowercase letters, digits and '-'", l.ID)
			}
		case "title":
			l.Title = d.text(kv)
		case "summary":
			l.Summary = d.text(kv)
		case "takeaway":
			l.Takeaway = d.text(kv)
		case "source":
			l.Source = d.str(kv)
		case "group":
			l.Group = d.str(kv)
			if !slices.Contains(Groups, l.Group) {
				d.errorf(kv.value, "unknown group %q (want one of %s)", l.Group, strings.Join(Groups, ", "))
			}
		case "variant":
			variantSeen = true
			var ok bool
			if l.Variant, ok = d.scalarStr(kv); !ok {
				break
			}
			if _, known := variants[l.Variant]; !known {
				d.errorf(kv.value, "unknown variant %q (want one of %s)", l.Variant, strings.Join(Variants(), ", "))
			}
		case "lease":
			leaseSeen = true
			l.Lease = d.duration(kv)
		case "fencing":
			l.Fencing = d.boolean(kv)
			d.at.fencing = posOf(kv.value)
		case "lock":
			l.Lock = d.lockName(kv)
		case "replica":
			l.Replica = d.boolean(kv)
		case "seed":
			s := d.str(kv)
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				d.errorf(kv.value, "seed: want a whole number from 0 to 2^64-1, got %q", s)
			}
			l.Seed = n
		case "actors":
			for _, item := range d.sequence(kv) {
				l.Actors = append(l.Actors, d.actor(item))
			}
		case "steps":
			stepsSeen = true
			for _, item := range d.sequence(kv) {
				l.Steps = append(l.Steps, d.step(item, l))
			}
			if len(l.Steps) == 0 {
				d.errorf(kv.value, "steps: a lesson needs at least one step")
			}
		default:
			d.errorf(kv.keyNode, "unknown field %q in lesson", kv.key)
		}
	}
	top := f.Docs[0].Body
	if !hasField(fields, "id") && !lessonIDPattern.MatchString(l.ID) {
		d.errorf(top, "id %q (the file name): want lowercase letters, digits and '-'; add an id field", l.ID)
	}
	if !variantSeen {
		d.errorf(top, "missing required field \"variant\"")
	}
	if !leaseSeen {
		d.errorf(top, "missing required field \"lease\"")
	}
	if !stepsSeen {
		d.errorf(top, "missing required field \"steps\"")
	}
	if l.Seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(l.ID))
		l.Seed = h.Sum64()
	}
	// Steps decoded before `lock:` was seen got the default "lock"; fix them.
	for i := range l.Steps {
		if l.Steps[i].Lock == "" {
			l.Steps[i].Lock = l.Lock
		}
	}
	return l, true
}

func (d *decoder) syntaxError(err error) {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
		p := ye.GetToken().Position
		d.errs = append(d.errs, LoadError{Pos: Pos{p.Line, p.Column}, Msg: "YAML syntax: " + ye.GetMessage()})
		return
	}
	d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: "YAML syntax: " + err.Error()})
}

// keyValue is one entry of a YAML mapping.
type keyValue struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// unwrap removes the wrappers that do not change a node's meaning here.
func unwrap(n ast.Node) ast.Node {
	for {
		switch t := n.(type) {
		case *ast.TagNode:
			n = t.Value
		case *ast.AnchorNode:
			n = t.Value
		default:
			return n
		}
	}
}

func (d *decoder) mapping(n ast.Node, what string) ([]keyValue, bool) {
	n = unwrap(n)
	var values []*ast.MappingValueNode
	switch t := n.(type) {
	case *ast.MappingNode:
		values = t.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{t}
	case *ast.AliasNode:
		d.errorf(n, "%s: YAML aliases are not supported in lessons; write the value out", what)
		return nil, false
	default:
		d.errorf(n, "%s: want a mapping (key: value lines), got %s", what, describe(n))
		return nil, false
	}
	seen := map[string]bool{}
	out := make([]keyValue, 0, len(values))
	for _, mv := range values {
		if mv == nil || mv.Key == nil {
			continue
		}
		k, ok := scalar(mv.Key)
		if !ok {
			d.errorf(mv.Key, "%s: keys must be plain words", what)
			continue
		}
		if seen[k] {
			d.errorf(mv.Key, "%s: duplicate key %q", what, k)
			continue
		}
		seen[k] = true
		v := mv.Value
		if v == nil {
			v = mv
		}
		v = placeEmpty(v, mv.Key.GetToken())
		out = append(out, keyValue{key: k, keyNode: mv.Key, value: v})
	}
	return out, true
}

// placeEmpty returns n, but when n is an empty value (`by:` or `-` with
// nothing after it), a copy positioned at token at (the key or the '-'): such
// a value has no token of its own, and goccy/go-yaml places it at no
// consistent column, at times past the end of the line.
func placeEmpty(n ast.Node, at *token.Token) ast.Node {
	nn, ok := n.(*ast.NullNode)
	if !ok || nn.Token == nil || nn.Token.Type != token.ImplicitNullType {
		return n
	}
	tk := nn.Token.Clone()
	tk.Position = nil
	if at != nil && at.Position != nil {
		p := *at.Position
		tk.Position = &p
	}
	return ast.Null(tk)
}

func hasField(fields []keyValue, key string) bool {
	return slices.ContainsFunc(fields, func(kv keyValue) bool { return kv.key == key })
}

func describe(n ast.Node) string {
	switch unwrap(n).(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.NullNode, nil:
		return "nothing"
	case *ast.AliasNode:
		return "a YAML alias (not supported in lessons; write the value out)"
	}
	if s, ok := scalar(n); ok {
		return fmt.Sprintf("%q", s)
	}
	return "something else"
}

// scalar returns the text of a scalar node as written (unquoted).
func scalar(n ast.Node) (string, bool) {
	switch t := unwrap(n).(type) {
	case *ast.StringNode:
		return t.Value, true
	case *ast.LiteralNode:
		if t.Value == nil {
			return "", true
		}
		return t.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return t.GetToken().Value, true
	}
	return "", false
}

func (d *decoder) str(kv keyValue) string {
	s, _ := d.scalarStr(kv)
	return s
}

// scalarStr is str that also reports whether the value was a scalar, so that
// callers check only values that were written as one (and a list or a mapping
// is reported once, not also as a bad name).
func (d *decoder) scalarStr(kv keyValue) (string, bool) {
	s, ok := scalar(kv.value)
	if !ok {
		d.errorf(kv.value, "%s: want a single value, got %s", kv.key, describe(kv.value))
	}
	return s, ok
}

func (d *decoder) boolean(kv keyValue) bool {
	if b, ok := unwrap(kv.value).(*ast.BoolNode); ok {
		return b.Value
	}
	d.errorf(kv.value, "%s: want true or false, got %s", kv.key, describe(kv.value))
	return false
}

func (d *decoder) duration(kv keyValue) time.Duration {
	s, ok := scalar(kv.value)
	if !ok {
		d.errorf(kv.value, "%s: want a duration such as 30s or 1500ms, got %s", kv.key, describe(kv.value))
		return 0
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		if durationSyntax.MatchString(s) {
			d.errorf(kv.value, "%s: duration %s is too long (Go durations end at about 2562047h)", kv.key, s)
			return 0
		}
		d.errorf(kv.value, "%s: want a duration such as 30s or 1500ms (Go syntax, with a unit), got %q", kv.key, s)
		return 0
	}
	if v <= 0 {
		d.errorf(kv.value, "%s: duration must be greater than zero, got %s", kv.key, s)
		return 0
	}
	if v%time.Millisecond != 0 {
		d.errorf(kv.value, "%s: Redis leases count whole milliseconds, got %s", kv.key, s)
		return 0
	}
	return v
}

// ValidLockName reports whether s may name a lock in a lesson file: an
// ASCII letter or digit, then letters, digits and : . _ - (the loader's
// rule; explore mode's forms and share codes use it too).
func ValidLockName(s string) bool { return lockNamePattern.MatchString(s) }

func (d *decoder) lockName(kv keyValue) string {
	s, ok := d.scalarStr(kv)
	switch {
	case !ok:
	case s == "":
		d.errorf(kv.value, "%s: lock name must not be empty", kv.key)
	case !lockNamePattern.MatchString(s):
		d.errorf(kv.value, "%s: lock name %q may hold letters, digits and : . _ -", kv.key, s)
	}
	return s
}

func (d *decoder) sequence(kv keyValue) []ast.Node {
	switch t := unwrap(kv.value).(type) {
	case *ast.SequenceNode:
		if len(t.Entries) != len(t.Values) {
			return t.Values
		}
		values := make([]ast.Node, len(t.Values))
		for i, v := range t.Values {
			values[i] = v
			if e := t.Entries[i]; e != nil {
				values[i] = placeEmpty(v, e.Start)
			}
		}
		return values
	case *ast.NullNode:
		return nil
	}
	d.errorf(kv.value, "%s: want a list, got %s", kv.key, describe(kv.value))
	return nil
}

// text decodes a text field: a plain string or a map from locale to string.
func (d *decoder) text(kv keyValue) Text {
	if s, ok := scalar(kv.value); ok {
		return Plain(s)
	}
	fields, ok := d.mapping(kv.value, kv.key)
	if !ok {
		return nil
	}
	t := Text{}
	for _, f := range fields {
		if !ValidLocale(f.key) {
			d.errorf(f.keyNode, "%s: unknown locale %q (want en, zh-CN or zh-TW)", kv.key, f.key)
			continue
		}
		t[Locale(f.key)] = d.str(f)
	}
	return t
}

func (d *decoder) actor(n ast.Node) ActorSpec {
	a := ActorSpec{Pos: posOf(n)}
	fields, ok := d.mapping(n, "actor")
	if !ok {
		return a
	}
	idSeen := false
	for _, kv := range fields {
		switch kv.key {
		case "id":
			idSeen = true
			var ok bool
			a.ID, ok = d.scalarStr(kv)
			a.Pos = posOf(kv.value)
			if ok && !actorIDPattern.MatchString(a.ID) {
				d.errorf(kv.value, "actor id %q: want a letter, then letters, digits, '_' or '-'", a.ID)
			}
		case "name":
			a.Name = d.text(kv)
		case "instance":
			a.Instance = d.str(kv)
		case "request_id":
			a.RequestID = d.str(kv)
		default:
			d.errorf(kv.keyNode, "unknown field %q in actor", kv.key)
		}
	}
	if !idSeen {
		d.errorf(n, "actor: missing required field \"id\"")
	}
	return a
}

// stepFields says which fields each action takes, beyond the ones every step
// may carry (do, say, expect, expect_violation).
var stepFields = map[Action][]string{
	ActAcquire: {"actor", "lease", "lock", "unreplicated"},
	ActRelease: {"actor", "lock", "reply_lost", "unreplicated"},
	ActWrite:   {"actor", "value", "lock", "unreplicated"},
	ActPause:   {"actor"},
	ActResume:  {"actor"},
	ActCrash:   {"actor"},
	ActFork:    {"actor", "child", "context"},
	ActAdvance: {"by"},
	// Additions to the spec:
	ActFinishRelease: {"actor", "lock"},
	ActExit:          {"actor"},
	ActClockJump:     {"by"},
	ActFailover:      {},
}

func (d *decoder) step(n ast.Node, l *Lesson) Step {
	s := Step{Pos: posOf(n)}
	fields, ok := d.mapping(n, "step")
	if !ok {
		return s
	}
	if len(fields) > 0 {
		s.Pos = posOf(fields[0].keyNode)
	}
	present := map[string]keyValue{}
	for _, kv := range fields {
		present[kv.key] = kv
	}
	doKV, ok := present["do"]
	if !ok {
		d.errorf(n, "step: missing required field \"do\"")
		return s
	}
	do, ok := d.scalarStr(doKV)
	if !ok {
		return s
	}
	s.Do = Action(do)
	allowed, known := stepFields[s.Do]
	if !known {
		// Keep the actor, so that validate stops checking its later steps.
		if a, ok := present["actor"]; ok {
			s.Actor, _ = scalar(a.value)
		}
		d.errorf(doKV.value, "unknown action %q (want one of %s)", s.Do, joinActions())
		return s
	}
	for _, kv := range fields {
		switch kv.key {
		case "do":
		case "say":
			s.Say = d.text(kv)
		case "expect":
			e, ok := d.scalarStr(kv)
			s.Expect = Outcome(e)
			if ok && !slices.Contains(OutcomesFor(s.Do), s.Expect) {
				d.errorf(kv.value, "unknown outcome %q for %s (want one of %s)", s.Expect, s.Do, joinOutcomes(OutcomesFor(s.Do)))
			}
		case "expect_violation":
			s.ExpectViolations = d.violations(kv)
		case "actor", "lease", "lock", "value", "child", "context", "by", "reply_lost", "unreplicated":
			if !slices.Contains(allowed, kv.key) {
				d.errorf(kv.keyNode, "field %q does not apply to %s", kv.key, s.Do)
				continue
			}
			switch kv.key {
			case "actor":
				s.Actor = d.str(kv)
				s.ActorPos = posOf(kv.value)
			case "lease":
				s.Lease = d.duration(kv)
			case "lock":
				s.Lock = d.lockName(kv)
			case "value":
				s.Value = d.str(kv)
			case "child":
				var ok bool
				s.Child, ok = d.scalarStr(kv)
				// Steps are decoded in order, so this one will be l.Steps[len(l.Steps)].
				d.at.child[len(l.Steps)] = posOf(kv.value)
				if ok && !actorIDPattern.MatchString(s.Child) {
					d.errorf(kv.value, "child id %q: want a letter, then letters, digits, '_' or '-'", s.Child)
				}
			case "context":
				var ok bool
				s.Context, ok = d.scalarStr(kv)
				if ok && s.Context != "inherit" && s.Context != "lost" {
					d.errorf(kv.value, "context: want inherit or lost, got %q", s.Context)
				}
			case "by":
				s.By = d.duration(kv)
			case "reply_lost":
				s.ReplyLost = d.boolean(kv)
			case "unreplicated":
				s.Unreplicated = d.boolean(kv)
				// Steps are decoded in order, so this one will be l.Steps[len(l.Steps)].
				d.at.unreplicated[len(l.Steps)] = posOf(kv.value)
			}
		default:
			d.errorf(kv.keyNode, "unknown field %q in step", kv.key)
		}
	}
	required := map[Action][]string{
		ActWrite:     {"value"},
		ActFork:      {"child", "context"},
		ActAdvance:   {"by"},
		ActClockJump: {"by"},
	}
	for _, f := range allowed {
		if f == "actor" {
			required[s.Do] = append(required[s.Do], "actor")
		}
	}
	for _, f := range required[s.Do] {
		if _, ok := present[f]; !ok {
			d.errorf(n, "%s: missing required field %q", s.Do, f)
		}
	}
	return s
}

func (d *decoder) violations(kv keyValue) []string {
	var names []ast.Node
	if _, ok := scalar(kv.value); ok {
		names = []ast.Node{kv.value}
	} else {
		names = d.sequence(kv)
	}
	var out []string
	for _, n := range names {
		s, ok := scalar(n)
		if !ok || !slices.Contains(Invariants, s) {
			d.errorf(n, "unknown invariant %s (want one of %s)", describe(n), strings.Join(Invariants, ", "))
			continue
		}
		out = append(out, s)
	}
	return out
}

func joinActions() string {
	s := make([]string, len(Actions))
	for i, a := range Actions {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

func joinOutcomes(os []Outcome) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}
