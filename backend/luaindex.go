package backend

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"text/template"

	"github.com/yuin/gopher-lua/parse"
)

// On redis-server every string value shares one metatable whose __index is
// the real string library, and Redis makes both read-only: `s:rep(1e9)`,
// `("x").rep`, `s["r" .. "ep"]` reached the library's unbounded functions
// past the key guard's shadow `string` (a fresh-eyes attack on issue 37:
// one backtracking `s:find` held redis-server for 24.2 s, and during one C
// call Redis reads no command, so not even SCRIPT KILL reaches it).
// routeStrings closes that at the source: every index of a value the
// script computes (`e.k`, `e[k]`) is sent as a call of IX(e, k), and every
// method call `e:k(args)` as MC(e, 'k')(ML(), args), where IX and MC look a
// string's field up in the guard's shadow string table (whose find, match,
// gmatch, gsub, format and rep are bounded, luaguard.go) and anything
// else's as Lua would. ML hands MC's receiver to the call's first argument,
// so the receiver is evaluated once and the bounded function is called
// from the script's own line (its errors name that line). What is left as
// it was: the target of an assignment (`t.k = v`, the last index only), a
// function's name (`function t.a:b()`), and the first index of a global
// table the script never rebinds (redis, string, table, math, KEYS, ARGV,
// _G, cjson, cmsgpack, bit, struct: every one of its names is followed by
// `.` or `[`), which is a table, never a string. IX, MC and ML are locals
// of the script's first line under names made from the source's hash, so
// the script cannot shadow them with its own.
//
// On a miniredis the string library is the script's own copy and is bounded
// in place (keyGuard), so nothing is rewritten there.

// routedTables are the globals whose first index routeStrings leaves as it
// is when the script never rebinds them.
var routedTables = map[string]bool{
	"redis": true, "string": true, "table": true, "math": true, "KEYS": true, "ARGV": true,
	"_G": true, "cjson": true, "cmsgpack": true, "bit": true, "struct": true,
}

// indexText is the routing's Lua (routeStrings), a text/template whose
// substitutions the file's opening comment lists.
//
//go:embed lua/index.lua
var indexText string

// indexTemplate is indexText parsed (missingkey=error).
var indexTemplate = template.Must(template.New("index.lua").Option("missingkey=error").Parse(indexText))

// routeStrings returns src with every index and method call routed as the
// comment above says, on the same lines, and the definitions of IX, MC and
// ML to put on the guard's line after the guard (no newline). It returns
// src and "" when src does not parse as gopher-lua parses it (Redis
// reports the syntax error), and ok false when gopher-lua parses it and
// routeStrings cannot: such a script must not run unrouted.
func routeStrings(src string) (out, def string, ok bool) {
	return route(src, false)
}

// plainCallReturns returns src with its chunk's `return f(...)` sent as
// `return (f(...))` (see block), and nothing else changed: on a miniredis,
// so that a bound's error raised in a method of a string value names the
// script's line there too. It returns src when src does not parse.
func plainCallReturns(src string) string {
	out, _, ok := route(src, true)
	if !ok {
		return src
	}
	return out
}

// route is routeStrings, or plainCallReturns with returnsOnly.
func route(src string, returnsOnly bool) (out, def string, ok bool) {
	toks, err := luaTokens(src)
	if err != nil {
		return src, "", true
	}
	sum := sha256.Sum256([]byte(src))
	h := hex.EncodeToString(sum[:8])
	p := &router{src: src, toks: toks, ix: "__lockstep_ix_" + h, mc: "__lockstep_mc_" + h, ml: "__lockstep_ml_" + h, returnsOnly: returnsOnly}
	p.findExempt()
	func() {
		defer func() {
			if recover() != nil {
				p.failed = true
			}
		}()
		p.block()
		if p.peek() != 0 {
			p.fail()
		}
	}()
	if p.failed {
		if _, err := parse.Parse(strings.NewReader(src), "script"); err != nil {
			return src, "", true
		}
		return src, "", false
	}
	if len(p.edits) == 0 {
		return src, "", true
	}
	sort.SliceStable(p.edits, func(i, j int) bool {
		a, b := p.edits[i], p.edits[j]
		return a.off < b.off || (a.off == b.off && a.pri < b.pri)
	})
	var b strings.Builder
	prev := 0
	for _, e := range p.edits {
		if e.off < prev || e.end < e.off || e.end > len(src) {
			return src, "", false
		}
		b.WriteString(src[prev:e.off])
		b.WriteString(e.text)
		prev = e.end
	}
	b.WriteString(src[prev:])
	if returnsOnly {
		return b.String(), "", true
	}
	def = renderLua(indexTemplate, map[string]string{"Index": p.ix, "Method": p.mc, "Last": p.ml})
	return b.String(), def, true
}

// luaTok is a token of a script and the bytes it spans.
type luaTok struct {
	typ      int
	str      string
	off, end int
}

// luaTokens scans src into tokens with their byte spans.
func luaTokens(src string) ([]luaTok, error) {
	sc := parse.NewScanner(strings.NewReader(src), "script")
	lx := &parse.Lexer{}
	lineStart := []int{0, 0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	var toks []luaTok
	for {
		tk, err := sc.Scan(lx)
		if err != nil {
			return nil, err
		}
		if tk.Type <= 0 {
			break
		}
		lx.PrevTokenType = tk.Type
		if tk.Pos.Line < 1 || tk.Pos.Line >= len(lineStart) {
			return nil, fmt.Errorf("backend: token at line %d", tk.Pos.Line)
		}
		off := lineStart[tk.Pos.Line] + tk.Pos.Column - 1
		end := off + len(tk.Str)
		switch {
		case tk.Type == parse.TString:
			end = luaStringEnd(src, off)
		case tk.Type < 256:
			end = off + 1 // one character ('.' comes without its text)
		}
		if off < 0 || end > len(src) || end < off {
			return nil, fmt.Errorf("backend: token out of the source")
		}
		toks = append(toks, luaTok{typ: tk.Type, str: tk.Str, off: off, end: end})
	}
	return toks, nil
}

// luaStringEnd returns the offset just past the string literal that starts
// at off: quoted, or a long bracket [==[ ... ]==].
func luaStringEnd(src string, off int) int {
	if off >= len(src) {
		return len(src)
	}
	if q := src[off]; q == '"' || q == '\'' {
		for i := off + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case q:
				return i + 1
			}
		}
		return len(src)
	}
	level := 0
	for i := off + 1; i < len(src) && src[i] == '='; i++ {
		level++
	}
	closing := "]" + strings.Repeat("=", level) + "]"
	if i := strings.Index(src[off+2+level:], closing); i >= 0 {
		return off + 2 + level + i + len(closing)
	}
	return len(src)
}

// luaEdit replaces src[off:end] with text (an insertion when off == end).
type luaEdit struct {
	off, end int
	text     string
	pri      int // among edits at one offset: 0 first, 2 last
}

// router is routeStrings' recursive-descent parser of Lua 5.1 (with
// gopher-lua's goto and labels), which notes the edits as it parses.
type router struct {
	src        string
	toks       []luaTok
	i          int
	edits      []luaEdit
	exempt     map[string]bool
	ix, mc, ml string
	failed     bool
	// returnsOnly: route no index, only make the chunk's returned calls
	// plain (plainCallReturns).
	returnsOnly bool
	depth       int // functions the parser is in
	// last is the chain suffixed parsed last: its first and last tokens,
	// and whether it ends in a call.
	last struct {
		from, to int
		call     bool
	}
}

type routeFail struct{}

func (p *router) fail() { panic(routeFail{}) }

func (p *router) peek() int {
	if p.i < len(p.toks) {
		return p.toks[p.i].typ
	}
	return 0
}

func (p *router) peekAt(n int) int {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n].typ
	}
	return 0
}

func (p *router) next() int {
	if p.i >= len(p.toks) {
		p.fail()
	}
	p.i++
	return p.i - 1
}

func (p *router) expect(typ int) int {
	if p.peek() != typ {
		p.fail()
	}
	return p.next()
}

// findExempt marks the routedTables the script names only before `.` or
// `[`: it never binds such a name (every binding puts something else after
// it), so the name is the global table.
func (p *router) findExempt() {
	p.exempt = map[string]bool{}
	bad := map[string]bool{}
	for i, t := range p.toks {
		if t.typ != parse.TIdent || !routedTables[t.str] {
			continue
		}
		if i > 0 && (p.toks[i-1].typ == '.' || p.toks[i-1].typ == ':') {
			continue
		}
		if i+1 < len(p.toks) && (p.toks[i+1].typ == '.' || p.toks[i+1].typ == '[') {
			p.exempt[t.str] = true
			continue
		}
		bad[t.str] = true
	}
	for n := range bad {
		delete(p.exempt, n)
	}
}

func (p *router) blockEnd() bool {
	switch p.peek() {
	case 0, parse.TEnd, parse.TElse, parse.TElseIf, parse.TUntil:
		return true
	}
	return false
}

func (p *router) block() {
	for !p.blockEnd() {
		if p.peek() == parse.TReturn {
			p.next()
			if !p.blockEnd() && p.peek() != ';' {
				from := p.i
				p.exprList()
				// The script's own `return f(...)` would be a tail call,
				// and an error the bounded function raises could not
				// name the script's line: at the chunk's level, where
				// Redis takes one value anyway, it is sent as
				// `return (f(...))`.
				if p.depth == 0 && p.last.call && p.last.from == from && p.last.to == p.i-1 {
					p.edits = append(p.edits, luaEdit{p.toks[from].off, p.toks[from].off, "(", 0},
						luaEdit{p.toks[p.i-1].end, p.toks[p.i-1].end, ")", 2})
				}
			}
			if p.peek() == ';' {
				p.next()
			}
			return
		}
		p.statement()
	}
}

func (p *router) statement() {
	switch p.peek() {
	case ';', parse.TBreak:
		p.next()
	case parse.TIf:
		p.next()
		p.exp()
		p.expect(parse.TThen)
		p.block()
		for p.peek() == parse.TElseIf {
			p.next()
			p.exp()
			p.expect(parse.TThen)
			p.block()
		}
		if p.peek() == parse.TElse {
			p.next()
			p.block()
		}
		p.expect(parse.TEnd)
	case parse.TWhile:
		p.next()
		p.exp()
		p.expect(parse.TDo)
		p.block()
		p.expect(parse.TEnd)
	case parse.TDo:
		p.next()
		p.block()
		p.expect(parse.TEnd)
	case parse.TFor:
		p.next()
		p.expect(parse.TIdent)
		if p.peek() == '=' {
			p.next()
			p.exprList()
		} else {
			for p.peek() == ',' {
				p.next()
				p.expect(parse.TIdent)
			}
			p.expect(parse.TIn)
			p.exprList()
		}
		p.expect(parse.TDo)
		p.block()
		p.expect(parse.TEnd)
	case parse.TRepeat:
		p.next()
		p.block()
		p.expect(parse.TUntil)
		p.exp()
	case parse.TFunction:
		p.next()
		p.expect(parse.TIdent)
		for p.peek() == '.' {
			p.next()
			p.expect(parse.TIdent)
		}
		if p.peek() == ':' {
			p.next()
			p.expect(parse.TIdent)
		}
		p.funcBody()
	case parse.TLocal:
		p.next()
		if p.peek() == parse.TFunction {
			p.next()
			p.expect(parse.TIdent)
			p.funcBody()
			return
		}
		p.expect(parse.TIdent)
		for p.peek() == ',' {
			p.next()
			p.expect(parse.TIdent)
		}
		if p.peek() == '=' {
			p.next()
			p.exprList()
		}
	case parse.TGoto:
		p.next()
		p.expect(parse.TIdent)
	case parse.T2Colon:
		p.next()
		p.expect(parse.TIdent)
		p.expect(parse.T2Colon)
	default:
		p.suffixed(true)
		if p.peek() == '=' || p.peek() == ',' {
			for p.peek() == ',' {
				p.next()
				p.suffixed(true)
			}
			p.expect('=')
			p.exprList()
		}
	}
}

func (p *router) funcBody() {
	p.depth++
	defer func() { p.depth-- }()
	p.expect('(')
	for p.peek() != ')' {
		if p.peek() == parse.T3Comma {
			p.next()
			break
		}
		p.expect(parse.TIdent)
		if p.peek() != ',' {
			break
		}
		p.next()
	}
	p.expect(')')
	p.block()
	p.expect(parse.TEnd)
}

func (p *router) exprList() {
	p.exp()
	for p.peek() == ',' {
		p.next()
		p.exp()
	}
}

func isBinop(t int) bool {
	switch t {
	case '+', '-', '*', '/', '%', '^', '<', '>', parse.T2Comma, parse.TEqeq, parse.TNeq, parse.TLte, parse.TGte, parse.TAnd, parse.TOr:
		return true
	}
	return false
}

func (p *router) exp() {
	p.operand()
	for isBinop(p.peek()) {
		p.next()
		p.operand()
	}
}

func (p *router) operand() {
	for p.peek() == parse.TNot || p.peek() == '-' || p.peek() == '#' {
		p.next()
	}
	switch p.peek() {
	case parse.TNumber, parse.TString, parse.TNil, parse.TTrue, parse.TFalse, parse.T3Comma:
		p.next()
	case parse.TFunction:
		p.next()
		p.funcBody()
	case '{':
		p.table()
	default:
		p.suffixed(false)
	}
}

// table parses a table constructor and returns the index of its `}`.
func (p *router) table() int {
	p.expect('{')
	for p.peek() != '}' {
		switch {
		case p.peek() == '[':
			p.next()
			p.exp()
			p.expect(']')
			p.expect('=')
			p.exp()
		case p.peek() == parse.TIdent && p.peekAt(1) == '=':
			p.next()
			p.next()
			p.exp()
		default:
			p.exp()
		}
		if p.peek() != ',' && p.peek() != ';' {
			break
		}
		p.next()
	}
	return p.expect('}')
}

// suffix kinds
const (
	sufField = iota
	sufIndex
	sufMethod
	sufCall
)

type suffix struct {
	kind int
	a, b int // field: '.', name; index: '[', ']'; method: ':', name
	args int // method: the first token of its arguments
	last int // method: the last token of its arguments
}

// suffixed parses a primary expression and its suffixes and notes their
// edits. assign: the chain starts a statement, so when an `=` or `,`
// follows it is an assignment's target and its last index stays.
func (p *router) suffixed(assign bool) {
	from := p.i
	start := p.toks[p.i].off
	exempt := false
	switch p.peek() {
	case parse.TIdent:
		exempt = p.exempt[p.toks[p.i].str]
		p.next()
	case '(':
		p.next()
		p.exp()
		p.expect(')')
	default:
		p.fail()
	}
	var sufs []suffix
	for {
		switch p.peek() {
		case '.':
			a := p.next()
			b := p.expect(parse.TIdent)
			sufs = append(sufs, suffix{kind: sufField, a: a, b: b})
		case '[':
			a := p.next()
			p.exp()
			b := p.expect(']')
			sufs = append(sufs, suffix{kind: sufIndex, a: a, b: b})
		case ':':
			a := p.next()
			b := p.expect(parse.TIdent)
			args := p.i
			last := p.args()
			sufs = append(sufs, suffix{kind: sufMethod, a: a, b: b, args: args, last: last})
		case '(', parse.TString, '{':
			p.args()
			sufs = append(sufs, suffix{kind: sufCall})
		default:
			p.route(start, exempt, sufs, assign && (p.peek() == '=' || p.peek() == ','))
			p.last.from, p.last.to = from, p.i-1
			p.last.call = len(sufs) > 0 && (sufs[len(sufs)-1].kind == sufCall || sufs[len(sufs)-1].kind == sufMethod)
			return
		}
	}
}

// args parses a call's arguments and returns the index of their last token.
func (p *router) args() int {
	switch p.peek() {
	case '(':
		p.next()
		if p.peek() != ')' {
			p.exprList()
		}
		return p.expect(')')
	case parse.TString:
		return p.next()
	case '{':
		return p.table()
	}
	p.fail()
	return 0
}

// route notes the edits of one chain that starts at offset start.
func (p *router) route(start int, exempt bool, sufs []suffix, target bool) {
	if p.returnsOnly {
		return
	}
	var wrap []string
	for n, s := range sufs {
		if s.kind == sufCall {
			continue
		}
		if s.kind != sufMethod && ((n == 0 && exempt) || (target && n == len(sufs)-1)) {
			continue
		}
		a, b := p.toks[s.a], p.toks[s.b]
		p.edits = append(p.edits, luaEdit{a.off, a.end, ",", 1})
		switch s.kind {
		case sufField:
			wrap = append(wrap, p.ix+"(")
			p.edits = append(p.edits, luaEdit{b.off, b.end, "'" + b.str + "')", 1})
		case sufIndex:
			wrap = append(wrap, p.ix+"(")
			p.edits = append(p.edits, luaEdit{b.off, b.end, ")", 1})
		case sufMethod:
			wrap = append(wrap, p.mc+"(")
			first := p.toks[s.args]
			if first.typ == '(' {
				text := "(" + p.ml + "()"
				if s.last != s.args+1 {
					text += ","
				}
				p.edits = append(p.edits, luaEdit{b.off, b.end, "'" + b.str + "')", 1}, luaEdit{first.off, first.end, text, 1})
			} else {
				end := p.toks[s.last].end
				p.edits = append(p.edits, luaEdit{b.off, b.end, "'" + b.str + "')(" + p.ml + "(),", 1}, luaEdit{end, end, ")", 1})
			}
		}
	}
	if len(wrap) == 0 {
		return
	}
	var b strings.Builder
	for i := len(wrap) - 1; i >= 0; i-- {
		b.WriteString(wrap[i])
	}
	p.edits = append(p.edits, luaEdit{start, start, b.String(), 1})
}
