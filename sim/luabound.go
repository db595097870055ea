package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/yuin/gopher-lua/parse"
)

// MaxScriptTurns bounds how many loop turns and function calls one run of a
// custom script (a variant file's) may make before it is stopped with an
// error: a lock script needs a handful, and 100,000 take some milliseconds.
// Redis itself stops nothing: a script that never ends blocks the server
// for every client until SCRIPT KILL, and miniredis (the embedded Redis)
// runs scripts in gopher-lua with no time limit, context or instruction
// hook it lets a caller set. So Lockstep counts in the script itself:
// bounded inserts a counter call at the head of every loop body (after
// each `do` and `repeat`), before every `goto`, and at the entry of every
// function, on the same lines, so that Lua errors keep their line numbers.
// The counter bounds what the script's own text does; code it compiles at
// run time (loadstring, load) would not be counted, so package backend's
// key guard refuses it, and a single built-in call (a backtracking
// pattern) is not counted: the time limit and the memory watch of the Lua
// sandbox (package backend, ScriptTimeLimit) stop that.
const MaxScriptTurns = 100000

// TurnCounterPrefix starts the name of the turn counter bounded inserts
// (the rest is from the source's hash): package backend finds its calls
// by it, to check redis-server's Lua heap at each turn too.
const TurnCounterPrefix = "__lockstep_turn_"

// scriptBoundMarker starts the error a bounded script raises.
const scriptBoundMarker = "lockstep: script stopped after"

// bounded returns src with the turn counter inserted (and its returned
// redis.call made a plain call: plainReturns), or src unchanged when
// it does not scan (compileLua reports that).
func bounded(src, name string) string {
	// Lua ends a line at \n, \r, \r\n or \n\r; the offsets below count \n
	// only, so the text run has \n alone (the same lines: a script with
	// CR line endings once ran without its counter, a fresh-eyes attack on
	// issue 37).
	src = luaNewlines(src)
	sum := sha256.Sum256([]byte(name + "\x00" + src))
	turn := TurnCounterPrefix + hex.EncodeToString(sum[:8])
	sc := parse.NewScanner(strings.NewReader(src), name)
	lx := &parse.Lexer{}
	// Byte offsets of the start of every line, to place insertions.
	lineStart := []int{0, 0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	var at []insertion
	var toks []scanned // every token, for plainReturns
	offset := func(p int, line, col int) int {
		if line < 1 || line >= len(lineStart) {
			return -1
		}
		return lineStart[line] + col + p
	}
	awaitParams := false
	for {
		tk, err := sc.Scan(lx)
		if err != nil {
			return src
		}
		if tk.Type <= 0 {
			break
		}
		lx.PrevTokenType = tk.Type
		toks = append(toks, scanned{typ: tk.Type, str: tk.Str, off: offset(0, tk.Pos.Line, tk.Pos.Column-1)})
		count := " " + turn + "() "
		switch {
		case tk.Type == parse.TDo || tk.Type == parse.TRepeat:
			at = append(at, insertion{offset(len(tk.Str), tk.Pos.Line, tk.Pos.Column-1), count})
		case tk.Type == parse.TGoto:
			at = append(at, insertion{offset(0, tk.Pos.Line, tk.Pos.Column-1), count})
		case tk.Type == parse.TFunction:
			awaitParams = true
		case awaitParams && tk.Str == ")":
			at = append(at, insertion{offset(1, tk.Pos.Line, tk.Pos.Column-1), count})
			awaitParams = false
		}
	}
	at = append(at, plainReturns(toks)...)
	sort.SliceStable(at, func(i, j int) bool { return at[i].off < at[j].off })
	// The count lives in a closure, out of the script's reach, and the
	// function that counts has a name made from the hash of the source: a
	// script cannot name it (Lua 5.1 without the debug library has no way
	// to list locals), so it can neither reset the count nor replace the
	// function (issue 37: a script that set the count back to 0 ran on).
	var b strings.Builder
	fmt.Fprintf(&b, "local %s do local n = 0 %s = function() n = n + 1 if n > %d then error('%s %d loop turns and calls') end end end ", turn, turn, MaxScriptTurns, scriptBoundMarker, MaxScriptTurns)
	prev := 0
	for _, in := range at {
		if in.off < prev || in.off > len(src) {
			// Never run a script without its counter.
			return unboundable
		}
		b.WriteString(src[prev:in.off])
		b.WriteString(in.text)
		prev = in.off
	}
	b.WriteString(src[prev:])
	return b.String()
}

// unboundable is what runs in place of a script bounded could not place
// its counter in: an error, never the script without its bound.
const unboundable = "error('lockstep: the script could not be given its turn bound, so it was not run')"

// luaNewlines returns src with each of Lua's line ends (\n, \r, \r\n,
// \n\r) as one \n, so that lines keep their numbers.
func luaNewlines(src string) string {
	if !strings.ContainsRune(src, '\r') {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\n' && c != '\r' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('\n')
		if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') && src[i+1] != c {
			i++
		}
	}
	return b.String()
}

// insertion is text bounded inserts at byte offset off of the source.
type insertion struct {
	off  int
	text string
}

// scanned is a token of the source and its byte offset.
type scanned struct {
	typ int
	str string
	off int
}

// oneValueCalls are the functions whose call plainReturns makes a plain
// one: each returns one value, so the parentheses change no result.
var oneValueCalls = map[string]bool{"redis.call": true, "redis.pcall": true, "string.rep": true, "table.concat": true}

// plainReturns puts parentheses around the call in every `return
// redis.call(...)` (and redis.pcall, string.rep, table.concat) that ends
// its block, which Lua would make a tail call: a tail call drops the
// script's own frame, so an error the call raises (the key guard's
// refusal, Redis's WRONGTYPE; package backend) could not name the
// script's line. `return (f(...))` is a plain call with the same one
// value. It returns the insertions, on the same lines.
func plainReturns(toks []scanned) []insertion {
	var at []insertion
	for i := 0; i+5 < len(toks); i++ {
		if toks[i].typ != parse.TReturn || toks[i+1].typ != parse.TIdent || toks[i+2].typ != '.' ||
			toks[i+3].typ != parse.TIdent || !oneValueCalls[toks[i+1].str+"."+toks[i+3].str] || toks[i+4].typ != '(' {
			continue
		}
		depth, j := 0, i+4
		for ; j < len(toks); j++ {
			if toks[j].typ == '(' {
				depth++
			} else if toks[j].typ == ')' {
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j >= len(toks) {
			continue
		}
		if j+1 < len(toks) {
			switch next := toks[j+1]; {
			case next.typ == parse.TEnd, next.typ == parse.TElse, next.typ == parse.TElseIf, next.typ == parse.TUntil, next.typ == ';':
			default:
				continue // more follows the call: not a tail call
			}
		}
		at = append(at, insertion{toks[i+1].off, "("}, insertion{toks[j].off + 1, ")"})
	}
	return at
}

// ScriptWasStopped reports whether errText, a script's error reply, is
// the error of a script stopped by MaxScriptTurns.
func ScriptWasStopped(errText string) bool { return strings.Contains(errText, scriptBoundMarker) }

// RunSource is the text a store sends to Redis for s: its Source, and for a
// custom script the Source with the turn counter of MaxScriptTurns.
func (s *Script) RunSource() string {
	if s.run != "" {
		return s.run
	}
	return s.Source
}

// ScriptStoppedError is a custom script stopped by MaxScriptTurns.
type ScriptStoppedError struct {
	Script string
	Max    int
}

func (e *ScriptStoppedError) Error() string {
	return fmt.Sprintf("sim: script %s was stopped after %d loop turns and calls: it runs too long (or forever)", e.Script, e.Max)
}

// Message makes ScriptStoppedError a Coded error: variant.script-stopped.
func (e *ScriptStoppedError) Message() Msg {
	return M("variant.script-stopped", "Script", e.Script, "Max", e.Max)
}
