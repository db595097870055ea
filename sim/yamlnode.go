package sim

import (
	"bytes"
	"fmt"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
)

// This file lends the lesson loader's YAML walking to the other file formats
// that sit beside lessons (package search's search files), so that they
// parse YAML the same way, with the same guards and the same positions.

// YAMLEntry is one entry of a YAML mapping: its key, where the key stands,
// and the value's node.
type YAMLEntry struct {
	Key    string
	KeyPos Pos
	Value  ast.Node
}

// ParseYAMLMapping parses src, one YAML document holding a mapping, with the
// lesson loader's guards (a byte order mark is dropped; at most maxBytes
// bytes; nesting bounded), and returns its entries. Problems are LoadErrors
// without a file name; an empty result with no error never happens.
func ParseYAMLMapping(src []byte, maxBytes int, what string) ([]YAMLEntry, LoadErrors) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	d := &decoder{}
	if len(src) > maxBytes {
		return nil, LoadErrors{{Pos: Pos{1, 1}, Msg: fmt.Sprintf("file is %d bytes; a %s may be at most %d", len(src), what, maxBytes)}}
	}
	tokens := lexer.Tokenize(string(src))
	if tk := tooDeep(tokens); tk != nil {
		return nil, LoadErrors{{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf("lists and mappings nest more than %d deep here; a %s needs a few levels", maxNesting, what)}}
	}
	if tk := tooManyKeys(tokens); tk != nil {
		return nil, LoadErrors{{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf("more than %d mapping keys; a %s needs a few hundred at most", maxKeys, what), Problem: M("lesson.too-many-keys", "Max", maxKeys)}}
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		d.syntaxError(err)
		return nil, d.errs
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, LoadErrors{{Pos: Pos{1, 1}, Msg: "want exactly one YAML document holding a mapping"}}
	}
	return YAMLMapping(f.Docs[0].Body, what)
}

// YAMLMapping returns the entries of mapping n, reporting (and leaving out)
// duplicate and non-scalar keys; what names n in messages.
func YAMLMapping(n ast.Node, what string) ([]YAMLEntry, LoadErrors) {
	d := &decoder{}
	kvs, _ := d.mapping(n, what, "")
	out := make([]YAMLEntry, len(kvs))
	for i, kv := range kvs {
		out[i] = YAMLEntry{Key: kv.key, KeyPos: posOf(kv.keyNode), Value: kv.value}
	}
	return out, d.errs
}

// YAMLSequence returns the items of list n (none for an empty value), or an
// error naming key when n is not a list.
func YAMLSequence(n ast.Node, key string) ([]ast.Node, LoadErrors) {
	d := &decoder{}
	items := d.sequence(keyValue{key: key, value: n})
	return items, d.errs
}

// YAMLScalar returns the text of a scalar node as written (unquoted) and
// whether n is a scalar.
func YAMLScalar(n ast.Node) (string, bool) { return scalar(n) }

// YAMLBool returns the value of a true/false node and whether n is one.
func YAMLBool(n ast.Node) (bool, bool) {
	b, ok := unwrap(n).(*ast.BoolNode)
	if !ok {
		return false, false
	}
	return b.Value, true
}

// YAMLPos returns where node n starts, 1-based.
func YAMLPos(n ast.Node) Pos { return posOf(n) }

// YAMLDescribe names what n is for a message: "a list", "a mapping",
// "nothing" or the quoted scalar.
func YAMLDescribe(n ast.Node) string { return describe(n) }
