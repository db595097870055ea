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

// durationSyntax is what time.ParseDuration reads; a match it still refuses
// is out of range.
var durationSyntax = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

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

// maxKeys bounds the mapping keys of one file, counted on the lexer's
// tokens before the parse: the largest course lesson has about 120 (a
// generated lesson of 2,000 steps, as TestRunCancelled runs, about 6,000), and
// goccy/go-yaml parses many keys in time quadratic in their number (25,000
// unknown keys in 239 KB took 1.7 s, and their problems made a 4.8 MB page;
// issue 17, hardening finding 6).
const maxKeys = 10000

// tooManyKeys returns the token of the first mapping key past maxKeys.
func tooManyKeys(tokens token.Tokens) *token.Token {
	n := 0
	for _, tk := range tokens {
		if tk == nil || tk.Position == nil || tk.Type != token.MappingValueType {
			continue
		}
		if n++; n > maxKeys {
			return tk
		}
	}
	return nil
}

// maxProblems bounds the problems one file reports: the first ones, then a
// last line that says how many more there are.
const maxProblems = 50

// CapProblems returns the first maxProblems of errs and, when there are
// more, a last problem (at the first one left out) that says how many.
func CapProblems(errs LoadErrors) LoadErrors {
	if len(errs) <= maxProblems {
		return errs
	}
	more := len(errs) - maxProblems
	last := errs[maxProblems]
	out := append(errs[:maxProblems:maxProblems], LoadError{File: last.File, Pos: last.Pos, Path: last.Path,
		Msg: fmt.Sprintf("and %d more problems", more), Problem: M("lesson.more-problems", "N", more)})
	return out
}

// LoadFile reads and parses the lesson at path with the lesson format's
// locales. See Load.
func LoadFile(path string) (*Lesson, error) { return Options{}.LoadFile(path) }

// Load parses src with the lesson format's locales; see Options.Load.
func Load(file string, src []byte) (*Lesson, error) { return Options{}.Load(file, src) }

// LoadFile reads and parses the lesson at path. See Load.
func (o Options) LoadFile(path string) (*Lesson, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, first
		}
		return nil, &ReadError{Path: path, Err: err}
	}
	if o.Variant == nil {
		dir := filepath.Dir(path)
		o.Variant = func(written string) (*VariantDef, error) {
			return LoadVariantFile(filepath.Join(dir, filepath.FromSlash(written)))
		}
	}
	return o.Load(path, src)
}

// Load parses src, the text of the lesson file named file (used in messages
// and for the default id), and checks it with the validator (Validate's
// rules, at the positions the file wrote each value). On any problem it
// returns a LoadErrors listing every problem found, each as
// FILE:LINE:COL: message; the error wraps ErrInvalidLesson. The decoder
// itself only parses: it reports what does not read as a lesson (YAML
// syntax, types, unknown or duplicate fields).
func (o Options) Load(file string, src []byte) (*Lesson, error) {
	// Editors on Windows often save UTF-8 with a byte order mark.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	d := &decoder{file: file, at: srcPos{loaded: true, at: map[string]Pos{}, bad: map[string]bool{}, written: map[string]string{}}}
	l, parsed := d.lesson(src)
	if parsed && IsVariantPath(l.Variant) && !d.at.bad["variant"] {
		if errs := o.variantFile(l, d.at.pos("variant")); len(errs) > 0 {
			d.errs = append(d.errs, errs...)
			d.at.bad["variant"] = true // reported in the variant file
		}
	}
	if parsed {
		// Validate even when decoding found problems, so that one run
		// reports every problem in the file (the validator skips what the
		// decoder could not make sense of).
		d.errs = append(d.errs, o.validate(l, d.at)...)
	}
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i].Pos, d.errs[j].Pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		for i := range d.errs {
			if d.errs[i].File == "" {
				d.errs[i].File = file // a variant file's problems keep its name
			}
		}
		return nil, CapProblems(d.errs)
	}
	return l, nil
}

// variantFile loads the variant file a lesson names (written at p) into
// l.VariantDef, returning its problems (each in the variant file), or one
// at p when no variant file can be read here.
func (o Options) variantFile(l *Lesson, p Pos) LoadErrors {
	if o.Variant == nil {
		return LoadErrors{{Pos: p, Path: "variant", Msg: fmt.Sprintf("variant %s: a variant file can be named only by a lesson read from a file", l.Variant),
			Problem: M("variant.no-file-access", "Variant", l.Variant)}}
	}
	def, err := o.Variant(l.Variant)
	if err != nil {
		var es LoadErrors
		if errors.As(err, &es) {
			return es
		}
		m := M("variant.unreadable", "File", l.Variant, "Reason", err.Error())
		var coded Coded
		if errors.As(err, &coded) && coded.Message().ID != "" {
			m = coded.Message() // the resolver says why in the reader's language (a web import)
		}
		return LoadErrors{{Pos: p, Path: "variant", Msg: err.Error(), Problem: m}}
	}
	l.VariantDef = def
	return nil
}

// decoder walks the YAML syntax tree that goccy/go-yaml builds, collecting
// every problem with its position rather than stopping at the first.
type decoder struct {
	file string
	errs LoadErrors
	at   srcPos // where each value was written, for the validator
}

// errorf records a problem decoding the field at path (which the validator
// then leaves alone), at node n: m for people, format and args in English.
func (d *decoder) errorf(n ast.Node, path string, m Msg, format string, args ...any) {
	d.errs = append(d.errs, LoadError{Pos: posOf(n), Path: path, Msg: fmt.Sprintf(format, args...), Problem: m})
	if path != "" {
		d.at.bad[path] = true
	}
}

// saw records where the file wrote the field at path: its value, and its key
// (path + ":key").
func (d *decoder) saw(path string, kv keyValue) {
	d.at.at[path] = posOf(kv.value)
	d.at.at[path+":key"] = posOf(kv.keyNode)
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
		d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: fmt.Sprintf("file is %d bytes; lessons may be at most %d", len(src), maxLessonBytes), Problem: M("lesson.too-large", "Size", len(src), "Max", maxLessonBytes)})
		return l, false
	}
	tokens := lexer.Tokenize(string(src))
	if tk := tooDeep(tokens); tk != nil {
		d.errs = append(d.errs, LoadError{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf("lists and mappings nest more than %d deep here; a lesson needs a few levels", maxNesting), Problem: M("lesson.too-deep", "Max", maxNesting)})
		return l, false
	}
	if tk := tooManyKeys(tokens); tk != nil {
		d.errs = append(d.errs, LoadError{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf("more than %d mapping keys; a lesson needs a few hundred at most", maxKeys), Problem: M("lesson.too-many-keys", "Max", maxKeys)})
		return l, false
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		d.syntaxError(err)
		return l, false
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: "want exactly one YAML document holding a mapping", Problem: M("lesson.one-document")})
		return l, false
	}
	fields, ok := d.mapping(f.Docs[0].Body, "lesson", "")
	if !ok {
		return l, false
	}
	d.at.top = posOf(f.Docs[0].Body)
	base := strings.TrimSuffix(filepath.Base(d.file), filepath.Ext(d.file))
	l.ID = base
	l.Lock = "lock"
	d.at.idFromFile = !hasField(fields, "id")
	plain := fieldsOf{
		strs:      map[string]*string{"id": &l.ID, "source": &l.Source, "group": &l.Group, "variant": &l.Variant, "lock": &l.Lock},
		texts:     map[string]*Text{"title": &l.Title, "summary": &l.Summary, "takeaway": &l.Takeaway, "note": &l.Note},
		bools:     map[string]*bool{"fencing": &l.Fencing, "replica": &l.Replica, "cluster": &l.Cluster, "check_then_write": &l.CheckThenWrite},
		durations: map[string]*time.Duration{"lease": &l.Lease, "fencing_counter_ttl": &l.FencingCounterTTL},
	}
	d.decodeFields(fields, "lesson", plain, func(kv keyValue) bool {
		switch kv.key {
		case "seed":
			s := d.str(kv)
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				d.errorf(kv.value, kv.path, M("lesson.seed", "Got", s), "seed: want a whole number from 0 to 2^64-1, got %q", s)
			}
			l.Seed = n
		case "nodes":
			l.Nodes = d.wholeNumber(kv)
		case "actors":
			for i, item := range d.sequence(kv) {
				l.Actors = append(l.Actors, d.actor(item, fmt.Sprintf("actors[%d]", i+1)))
			}
		case "steps":
			for i, item := range d.sequence(kv) {
				l.Steps = append(l.Steps, d.step(item, fmt.Sprintf("steps[%d]", i+1)))
			}
		default:
			return false
		}
		return true
	})
	if l.Seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(l.ID))
		l.Seed = h.Sum64()
	}
	// Steps decoded before `lock:` was seen got the default "lock"; fix them.
	for i := range l.Steps {
		if l.Steps[i].Lock == "" && !d.at.has(fmt.Sprintf("steps[%d].lock", i+1)) {
			l.Steps[i].Lock = l.Lock
		}
	}
	return l, true
}

func (d *decoder) syntaxError(err error) {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
		p := ye.GetToken().Position
		d.errs = append(d.errs, LoadError{Pos: Pos{p.Line, p.Column}, Msg: "YAML syntax: " + ye.GetMessage(), Problem: M("lesson.yaml-syntax", "Detail", ye.GetMessage())})
		return
	}
	d.errs = append(d.errs, LoadError{Pos: Pos{1, 1}, Msg: "YAML syntax: " + err.Error(), Problem: M("lesson.yaml-syntax", "Detail", err.Error())})
}

// keyValue is one entry of a YAML mapping.
type keyValue struct {
	key     string
	path    string // the field's path in the lesson ("steps[3].lock")
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

// mapping decodes mapping n, called what in messages, whose fields have
// paths prefix + key.
func (d *decoder) mapping(n ast.Node, what, prefix string) ([]keyValue, bool) {
	n = unwrap(n)
	var values []*ast.MappingValueNode
	switch t := n.(type) {
	case *ast.MappingNode:
		values = t.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{t}
	case *ast.AliasNode:
		d.errorf(n, strings.TrimSuffix(prefix, "."), M("lesson.alias", "Field", what), "%s: YAML aliases are not supported in lessons; write the value out", what)
		return nil, false
	default:
		d.errorf(n, strings.TrimSuffix(prefix, "."), M("lesson.want-mapping", "Field", what, "Got", d.describe(n)), "%s: want a mapping (key: value lines), got %s", what, describe(n))
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
			d.errorf(mv.Key, "", M("lesson.key-not-word", "Field", what), "%s: keys must be plain words", what)
			continue
		}
		if seen[k] {
			d.errorf(mv.Key, "", M("lesson.duplicate-key", "Field", what, "Key", k), "%s: duplicate key %q", what, k)
			continue
		}
		seen[k] = true
		v := mv.Value
		if v == nil {
			v = mv
		}
		v = placeEmpty(v, mv.Key.GetToken())
		out = append(out, keyValue{key: k, path: prefix + k, keyNode: mv.Key, value: v})
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

// describe says what n is, in English: "a list", "nothing", "\"x\"".
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

// describe says what n is as a message code of the catalogue ("lesson.got.*").
func (d *decoder) describe(n ast.Node) Msg {
	switch unwrap(n).(type) {
	case *ast.SequenceNode:
		return M("lesson.got.list")
	case *ast.MappingNode, *ast.MappingValueNode:
		return M("lesson.got.mapping")
	case *ast.NullNode, nil:
		return M("lesson.got.nothing")
	case *ast.AliasNode:
		return M("lesson.got.alias")
	}
	if s, ok := scalar(n); ok {
		return M("lesson.got.value", "Value", s)
	}
	return M("lesson.got.other")
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
		d.errorf(kv.value, kv.path, M("lesson.want-value", "Field", kv.key, "Got", d.describe(kv.value)), "%s: want a single value, got %s", kv.key, describe(kv.value))
	}
	return s, ok
}

func (d *decoder) boolean(kv keyValue) bool {
	if b, ok := unwrap(kv.value).(*ast.BoolNode); ok {
		return b.Value
	}
	d.errorf(kv.value, kv.path, M("lesson.want-bool", "Field", kv.key, "Got", d.describe(kv.value)), "%s: want true or false, got %s", kv.key, describe(kv.value))
	return false
}

// duration reads a Go duration; the validator checks its value.
func (d *decoder) duration(kv keyValue) time.Duration {
	s, ok := scalar(kv.value)
	if !ok {
		d.errorf(kv.value, kv.path, M("lesson.want-duration", "Field", kv.key, "Got", d.describe(kv.value)), "%s: want a duration such as 30s or 1500ms, got %s", kv.key, describe(kv.value))
		return 0
	}
	d.at.written[kv.path] = s
	v, err := time.ParseDuration(s)
	if err != nil {
		if durationSyntax.MatchString(s) {
			d.errorf(kv.value, kv.path, M("lesson.duration-too-long", "Field", kv.key, "Got", s), "%s: duration %s is too long (Go durations end at about 2562047h)", kv.key, s)
			return 0
		}
		d.errorf(kv.value, kv.path, M("lesson.duration-syntax", "Field", kv.key, "Got", s), "%s: want a duration such as 30s or 1500ms (Go syntax, with a unit), got %q", kv.key, s)
		return 0
	}
	return v
}

// eachItem calls f with each item of kv's sequence as a field of its own,
// at path kv.path[N] (N from 1), its position recorded for errors.
func (d *decoder) eachItem(kv keyValue, f func(item keyValue)) {
	for i, n := range d.sequence(kv) {
		p := fmt.Sprintf("%s[%d]", kv.path, i+1)
		d.at.at[p] = posOf(n)
		f(keyValue{key: kv.key, path: p, keyNode: n, value: n})
	}
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
	d.errorf(kv.value, kv.path, M("lesson.want-list", "Field", kv.key, "Got", d.describe(kv.value)), "%s: want a list, got %s", kv.key, describe(kv.value))
	return nil
}

// text decodes a text field: a plain string or a map from locale to string
// (the validator checks the locales).
func (d *decoder) text(kv keyValue) Text {
	if s, ok := scalar(kv.value); ok {
		return Plain(s)
	}
	fields, ok := d.mapping(kv.value, kv.key, kv.path+".")
	if !ok {
		return nil
	}
	t := Text{}
	for _, f := range fields {
		d.at.at[f.path] = posOf(f.keyNode)
		t[Locale(f.key)] = d.str(f)
	}
	return t
}

func (d *decoder) actor(n ast.Node, path string) ActorSpec {
	a := ActorSpec{Pos: posOf(n)}
	fields, ok := d.mapping(n, "actor", path+".")
	if !ok {
		d.at.bad[path+".id"] = true
		return a
	}
	plain := fieldsOf{
		strs:  map[string]*string{"instance": &a.Instance, "request_id": &a.RequestID},
		texts: map[string]*Text{"name": &a.Name},
	}
	d.decodeFields(fields, "actor", plain, func(kv keyValue) bool {
		if kv.key != "id" {
			return false
		}
		a.ID = d.str(kv)
		a.Pos = posOf(kv.value)
		return true
	})
	return a
}

// step decodes the step at path. After an unknown action it decodes only
// the actor (so that the validator stops checking that actor's later
// steps): which fields belong to the step is unknown.
func (d *decoder) step(n ast.Node, path string) Step {
	s := Step{Pos: posOf(n)}
	d.at.at[path] = posOf(n)
	fields, ok := d.mapping(n, "step", path+".")
	if !ok {
		d.at.bad[path+".do"] = true
		return s
	}
	if len(fields) > 0 {
		s.Pos = posOf(fields[0].keyNode)
	}
	for _, kv := range fields {
		if kv.key == "do" {
			d.saw(kv.path, kv)
			do, ok := d.scalarStr(kv)
			s.Do = Action(do)
			if _, known := stepFields[s.Do]; !known || !ok {
				for _, a := range fields {
					if a.key == "actor" {
						s.Actor, _ = scalar(a.value)
					}
				}
				return s
			}
		}
	}
	plain := fieldsOf{
		strs:      map[string]*string{"lock": &s.Lock, "value": &s.Value, "child": &s.Child, "context": &s.Context},
		texts:     map[string]*Text{"say": &s.Say, "why": &s.Why, "misconception": &s.Misconception},
		bools:     map[string]*bool{"reply_lost": &s.ReplyLost, "nested": &s.Nested, "unreplicated": &s.Unreplicated, "keep_partial": &s.KeepPartial},
		durations: map[string]*time.Duration{"lease": &s.Lease, "by": &s.By},
	}
	d.decodeFields(fields, "step", plain, func(kv keyValue) bool {
		switch kv.key {
		case "do": // decoded above
		case "expect":
			s.Expect = Outcome(d.str(kv))
		case "expect_violation":
			s.ExpectViolations = d.violations(kv)
		case "because":
			d.eachItem(kv, func(item keyValue) { s.Because = append(s.Because, d.text(item)) })
		case "actor":
			s.Actor = d.str(kv)
			s.ActorPos = posOf(kv.value)
		case "node":
			s.Node = d.wholeNumber(kv)
		case "unreachable":
			d.eachItem(kv, func(item keyValue) { s.Unreachable = append(s.Unreachable, d.wholeNumber(item)) })
		default:
			return false
		}
		return true
	})
	return s
}

// wholeNumber reads a field written as a whole number (nodes, node, an
// entry of unreachable); the validator checks its range. A value that is
// not one is reported here, and reads as 0.
func (d *decoder) wholeNumber(kv keyValue) int {
	s, ok := d.scalarStr(kv)
	if !ok {
		return 0
	}
	// Written as a number, as a boolean field must be written as one: a
	// quoted "3" is a string.
	_, isInt := unwrap(kv.value).(*ast.IntegerNode)
	n, err := strconv.Atoi(s)
	if !isInt || err != nil || n < 0 || n > 1000 {
		d.errorf(kv.value, kv.path, M("lesson.whole-number", "Field", kv.key, "Got", s), "%s: want a whole number, got %q", kv.key, s)
		return 0
	}
	return n
}

// violations reads expect_violation: a name or a list of names (the
// validator checks the names; a value that is not a name is reported here).
func (d *decoder) violations(kv keyValue) []string {
	var names []ast.Node
	if _, ok := scalar(kv.value); ok {
		names = []ast.Node{kv.value}
	} else {
		names = d.sequence(kv)
	}
	var out []string
	for i, n := range names {
		p := fmt.Sprintf("%s[%d]", kv.path, len(out)+1)
		s, ok := scalar(n)
		if !ok {
			want := strings.Join(Invariants, ", ")
			d.errorf(n, fmt.Sprintf("%s#%d", kv.path, i+1), M("lesson.unknown-invariant", "Invariant", d.describe(n), "Want", want), "unknown invariant %s (want one of %s)", describe(n), want)
			continue
		}
		d.at.at[p] = posOf(n)
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
