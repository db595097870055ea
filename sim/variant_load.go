package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// maxVariantBytes bounds a variant file (and each of its scripts): a few
// dozen lines each.
const maxVariantBytes = 256 << 10

// VariantFileSuffix ends the name of every variant file.
const VariantFileSuffix = ".variant.yaml"

// IsVariantPath reports whether a lesson's or search file's `variant:`
// names a variant file rather than a built-in variant: a path ending in
// .variant.yaml.
func IsVariantPath(s string) bool { return strings.HasSuffix(s, VariantFileSuffix) }

// ReadFunc reads the file at path (a variant file, or a script it names).
type ReadFunc func(path string) ([]byte, error)

// LoadVariantFile reads the variant file at p and the scripts it names
// (relative to it) from the file system. See LoadVariant.
func LoadVariantFile(p string) (*VariantDef, error) {
	return LoadVariant(p, nil, os.ReadFile)
}

// LoadVariant parses the variant file named file (src, or read(file) when
// src is nil), reads the .lua files it names through read (paths relative
// to file), and checks it with ValidateVariant. It returns LoadErrors
// (wrapping ErrInvalidLesson), each at FILE:LINE:COL, for every problem; a
// script's Lua error is at the script's own file and line.
func LoadVariant(file string, src []byte, read ReadFunc) (*VariantDef, error) {
	return loadVariant(file, src, read, false)
}

func loadVariant(file string, src []byte, read ReadFunc, builtin bool) (*VariantDef, error) {
	if src == nil {
		b, err := read(file)
		if err != nil {
			// A file that cannot be read has no line to point at: the
			// problem names the path alone (not 1:1 of a file that is
			// not there).
			if errors.Is(err, fs.ErrNotExist) {
				return nil, LoadErrors{{File: file, Msg: fmt.Sprintf("%s: file not found", file),
					Problem: M("variant.not-found", "File", file)}}
			}
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, LoadErrors{{File: file, Msg: fmt.Sprintf("cannot read the variant file: %v", err),
				Problem: M("variant.unreadable", "File", file, "Reason", err.Error())}}
		}
		src = b
	}
	texts := map[string]string{file: string(src)}
	if read != nil && !builtin {
		inner := read
		read = func(p string) ([]byte, error) {
			b, err := inner(p)
			if err == nil {
				texts[p] = string(b)
			}
			return b, err
		}
	}
	vd := &variantDecoder{file: file, read: read, builtin: builtin}
	def := vd.decode(src)
	if def != nil {
		def.Builtin = builtin
		if !builtin {
			def.Texts = texts
		}
	}
	errs := vd.errs
	if def != nil {
		errs = append(errs, validateVariant(def, vd.bad)...)
	}
	if len(errs) > 0 {
		for i := range errs {
			if errs[i].File == "" {
				errs[i].File = file
			}
		}
		sort.SliceStable(errs, func(i, j int) bool {
			a, b := errs[i], errs[j]
			if a.File != b.File {
				return a.File == file
			}
			return a.Pos.Line < b.Pos.Line || a.Pos.Line == b.Pos.Line && a.Pos.Col < b.Pos.Col
		})
		return nil, CapProblems(errs)
	}
	return def, nil
}

// variantDecoder parses a variant file: it reports what does not read as
// one (YAML, shapes, unknown fields, unreadable scripts) and leaves every
// rule to the validator.
type variantDecoder struct {
	file string
	read ReadFunc
	// builtin: a file of sim/variants, whose scripts are the embedded ones.
	builtin bool
	errs    LoadErrors
	// src is the variant file's text (the indentation of inline scripts).
	src []byte
	// bad holds the paths of fields that did not decode: the validator
	// does not report them again.
	bad map[string]bool
}

func (vd *variantDecoder) errorf(p Pos, path string, m Msg, format string, args ...any) {
	vd.errs = append(vd.errs, LoadError{Pos: p, Path: path, Msg: fmt.Sprintf(format, args...), Problem: m})
	if path != "" {
		vd.bad[path] = true
	}
}

func (vd *variantDecoder) decode(src []byte) *VariantDef {
	vd.bad, vd.src = map[string]bool{}, src
	entries, errs := ParseYAMLMapping(src, maxVariantBytes, "variant file")
	if len(errs) > 0 {
		for _, e := range errs {
			if e.Problem.ID == "" {
				e.Problem = M("lesson.yaml-syntax", "Detail", e.Msg)
			}
			vd.errs = append(vd.errs, e)
		}
		return nil
	}
	d := &VariantDef{File: vd.file, at: map[string]Pos{}}
	if len(entries) > 0 {
		d.at[""] = entries[0].KeyPos
	}
	for _, e := range entries {
		d.at[e.Key+":key"] = e.KeyPos
		d.at[e.Key] = posOf(e.Value)
		switch e.Key {
		case "name":
			d.Name = vd.str(e.Value, e.Key)
		case "source":
			d.Source = vd.str(e.Value, e.Key)
		case "owner":
			d.Owner = vd.str(e.Value, e.Key)
		case "reentry":
			d.Reentry = vd.str(e.Value, e.Key)
		case "lock":
			for _, f := range vd.fields(e.Value, "lock") {
				d.at["lock."+f.Key] = posOf(f.Value)
				switch f.Key {
				case "type":
					d.Lock.Type = KeyType(vd.str(f.Value, "lock.type"))
				case "layout":
					d.Lock.Layout = vd.str(f.Value, "lock.layout")
				case "count":
					d.Lock.Count = vd.str(f.Value, "lock.count")
				default:
					vd.unknown(f, "lock")
				}
			}
		case "keys":
			for _, f := range vd.fields(e.Value, "keys") {
				k := ExtraKey{ID: f.Key}
				p := "keys." + f.Key
				d.at[p] = f.KeyPos
				for _, g := range vd.fields(f.Value, p) {
					d.at[p+"."+g.Key] = posOf(g.Value)
					switch g.Key {
					case "name":
						k.Name = vd.str(g.Value, p+".name")
					case "role":
						k.Role = vd.str(g.Value, p+".role")
					case "type":
						k.Type = KeyType(vd.str(g.Value, p+".type"))
					default:
						vd.unknown(g, "key")
					}
				}
				d.Keys = append(d.Keys, k)
			}
		case "acquire":
			d.Acquire = vd.script(d, e, "acquire")
		case "release":
			d.Release = vd.script(d, e, "release")
		case "renew":
			d.Renew = vd.script(d, e, "renew")
		case "finish_release":
			d.FinishRelease = vd.script(d, e, "finish_release")
		default:
			vd.unknown(e, "variant")
		}
	}
	return d
}

func (vd *variantDecoder) unknown(e YAMLEntry, in string) {
	vd.errorf(e.KeyPos, "", M("lesson.unknown-field", "Field", e.Key, "In", in), "unknown field %q in %s", e.Key, in)
}

func (vd *variantDecoder) fields(n ast.Node, path string) []YAMLEntry {
	if _, ok := unwrap(n).(*ast.NullNode); ok {
		return nil
	}
	fs, errs := YAMLMapping(n, path)
	for _, e := range errs {
		vd.errs = append(vd.errs, e)
	}
	if len(errs) > 0 {
		vd.bad[path] = true
	}
	return fs
}

func (vd *variantDecoder) str(n ast.Node, path string) string {
	s, ok := scalar(n)
	if !ok {
		vd.errorf(posOf(n), path, M("lesson.want-value", "Field", path, "Got", (&decoder{}).describe(n)), "%s: want a single value, got %s", path, describe(n))
	}
	return s
}

func (vd *variantDecoder) list(n ast.Node, path string) []ast.Node {
	items, errs := YAMLSequence(n, path)
	vd.errs = append(vd.errs, errs...)
	if len(errs) > 0 {
		vd.bad[path] = true
	}
	return items
}

// script decodes one script section at path.
func (vd *variantDecoder) script(d *VariantDef, e YAMLEntry, role string) *ScriptDef {
	s := &ScriptDef{}
	var source *string
	var sourcePos Pos
	col0 := 0 // the columns of the variant file before an inline script's text
	for _, f := range vd.fields(e.Value, role) {
		p := role + "." + f.Key
		d.at[p] = posOf(f.Value)
		d.at[p+":key"] = f.KeyPos
		switch f.Key {
		case "script":
			s.Path = vd.str(f.Value, p)
		case "source":
			src := vd.str(f.Value, p)
			source, sourcePos = &src, posOf(f.Value)
			if lit, ok := unwrap(f.Value).(*ast.LiteralNode); ok && lit.Start != nil && lit.Start.Position != nil {
				// A block scalar's text starts on the line after its '|'.
				sourcePos = Pos{lit.Start.Position.Line + 1, 1}
				col0 = blockIndent(vd.src, sourcePos.Line)
			}
		case "keys", "argv":
			var refs []ValueRef
			for _, n := range vd.list(f.Value, p) {
				refs = append(refs, vd.value(n, p))
			}
			if f.Key == "keys" {
				s.Keys = refs
			} else {
				s.Args = refs
			}
		case "array_reply":
			for _, n := range vd.list(f.Value, p) {
				s.ArrayReply = append(s.ArrayReply, vd.str(n, p))
			}
		case "replies":
			s.Replies = vd.replies(f.Value, p)
		case "every":
			if role != "renew" {
				vd.unknown(f, role)
				continue
			}
			d.RenewEvery = vd.period(f.Value, p)
		case "boolean_reading":
			if role != "release" {
				vd.unknown(f, role)
				continue
			}
			b, ok := YAMLBool(f.Value)
			if !ok {
				vd.errorf(posOf(f.Value), p, M("lesson.want-bool", "Field", f.Key, "Got", (&decoder{}).describe(f.Value)), "%s: want true or false", f.Key)
			}
			d.BooleanReading = b
		default:
			vd.unknown(f, role)
		}
	}
	name := d.Name
	if name == "" {
		name = strings.TrimSuffix(path.Base(filepath.ToSlash(vd.file)), VariantFileSuffix)
	}
	scriptName := name + "/" + strings.ReplaceAll(role, "_", "-")
	switch {
	case source != nil && s.Path != "":
		vd.errorf(d.at[role+".source:key"], role+".source", M("variant.script-twice", "Script", role), "%s: give script or source, not both", role)
	case source != nil:
		s.Script = &Script{Name: scriptName, Source: *source, Custom: true, file: vd.file, line0: sourcePos.Line - 1, col0: col0,
			run: bounded(*source, scriptName)}
	case s.Path != "":
		s.Script = vd.scriptFile(s.Path, scriptName, d.at[role+".script"], role+".script")
	}
	return s
}

// scriptFile reads a script named by a variant file. A built-in variant's
// scripts are the embedded ones under sim/lua (the same *Script values
// the Go adapters use).
func (vd *variantDecoder) scriptFile(rel, name string, p Pos, fieldPath string) *Script {
	full := path.Join(path.Dir(filepath.ToSlash(vd.file)), filepath.ToSlash(rel))
	if vd.builtin {
		b, _ := strings.CutPrefix(full, "lua/")
		if s := scripts[strings.TrimSuffix(b, ".lua")]; s != nil {
			return s
		}
	}
	if vd.read == nil {
		vd.errorf(p, fieldPath, M("variant.script-unreadable", "Path", rel, "Reason", "no file access here: write the script inline with source"), "%s: cannot read %s: no file access here", fieldPath, rel)
		return nil
	}
	if !strings.HasSuffix(rel, ".lua") {
		vd.errorf(p, fieldPath, M("variant.script-not-lua", "Path", rel), "%s: %s: a script file's name ends in .lua", fieldPath, rel)
		return nil
	}
	src, err := vd.read(filepath.FromSlash(full))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		m := M("variant.script-unreadable", "Path", rel, "Reason", err.Error())
		var coded Coded
		if errors.As(err, &coded) && coded.Message().ID != "" {
			m = coded.Message() // the reader says why in the reader's language (SentScripts)
		}
		vd.errorf(p, fieldPath, m, "%s: cannot read %s: %v", fieldPath, rel, err)
		return nil
	}
	if len(src) > maxVariantBytes {
		vd.errorf(p, fieldPath, M("variant.script-too-large", "Path", rel, "Max", maxVariantBytes), "%s: %s is larger than %d bytes", fieldPath, rel, maxVariantBytes)
		return nil
	}
	return &Script{Name: name, Source: string(src), Custom: true, file: filepath.FromSlash(full), run: bounded(string(src), name)}
}

// value decodes one KEYS or ARGV entry: a name, or {literal: text}.
func (vd *variantDecoder) value(n ast.Node, path string) ValueRef {
	ref := ValueRef{Pos: posOf(n)}
	if s, ok := scalar(n); ok {
		ref.Name = s
		return ref
	}
	fs, errs := YAMLMapping(n, path)
	if len(errs) > 0 || len(fs) != 1 || fs[0].Key != "literal" {
		vd.errorf(posOf(n), "", M("variant.value-shape", "Field", path), "%s: want a value name or {literal: text}", path)
		ref.Name = "\x00bad"
		return ref
	}
	ref.Literal, ref.IsLiteral = vd.str(fs[0].Value, path), true
	return ref
}

// replies decodes a reply map: pattern: outcome.
func (vd *variantDecoder) replies(n ast.Node, path string) []ReplyRule {
	d := &decoder{}
	kvs, _ := d.mapping(n, path, path+".")
	vd.errs = append(vd.errs, d.errs...)
	if len(d.errs) > 0 {
		vd.bad[path] = true
	}
	var out []ReplyRule
	for _, kv := range kvs {
		r := ReplyRule{Pos: posOf(kv.keyNode)}
		r.Match = replyPattern(kv.keyNode)
		r.Outcome = vd.str(kv.value, path)
		out = append(out, r)
	}
	return out
}

// replyPattern reads a reply map's key: a quoted key is always a string;
// nil and false are Redis's nil reply; an integer is that integer;
// integer, string, owner and error are what their names say; any other
// word is that string.
func replyPattern(n ast.Node) ReplyMatch {
	s, _ := scalar(n)
	tk := unwrap(n).GetToken()
	if tk != nil && (tk.Type == token.DoubleQuoteType || tk.Type == token.SingleQuoteType) {
		return ReplyMatch{Kind: MatchString, Str: s}
	}
	switch s {
	case "nil", "false":
		return ReplyMatch{Kind: MatchNil}
	case "integer":
		return ReplyMatch{Kind: MatchAnyInt}
	case "string":
		return ReplyMatch{Kind: MatchAnyString}
	case "owner":
		return ReplyMatch{Kind: MatchOwner}
	case "error":
		return ReplyMatch{Kind: MatchError}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ReplyMatch{Kind: MatchInt, Int: i}
	}
	return ReplyMatch{Kind: MatchString, Str: s}
}

// period decodes renew.every: lease/N or a duration.
func (vd *variantDecoder) period(n ast.Node, path string) Period {
	s := vd.str(n, path)
	if rest, ok := strings.CutPrefix(s, "lease/"); ok {
		k, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			vd.errorf(posOf(n), path, M("variant.period", "Got", s), "%s: want lease/N or a duration such as 10s, got %q", path, s)
		}
		return Period{LeaseDiv: k}
	}
	dur, err := time.ParseDuration(s)
	if err != nil || dur <= 0 || dur%time.Millisecond != 0 {
		vd.errorf(posOf(n), path, M("variant.period", "Got", s), "%s: want lease/N or a duration such as 10s, got %q", path, s)
	}
	return Period{MS: dur.Milliseconds()}
}

// blockIndent is the indentation, in columns, of a YAML block scalar whose
// text starts at line (1-based) of src: that of its first line that is not
// blank, which YAML takes as the block's. A Lua error at a script's column
// c is at column blockIndent+c of the variant file.
func blockIndent(src []byte, line int) int {
	lines := strings.Split(string(src), "\n")
	for i := line - 1; i >= 0 && i < len(lines); i++ {
		text := strings.TrimRight(lines[i], "\r")
		if trimmed := strings.TrimLeft(text, " "); trimmed != "" {
			return len(text) - len(trimmed)
		}
	}
	return 0
}
