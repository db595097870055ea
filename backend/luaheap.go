package backend

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"lockstep/sim"
)

// MaxScriptHeap bounds how far a user's script may grow redis-server's
// Lua heap by concatenation (the `..` operator), in bytes: 16 MiB, a
// quarter of the Lua sandbox's heap bound (DefaultSandboxHeap), since
// copying tens of MB on a loaded machine took seconds (doubling a string
// to 32 MiB took 6 s on a loaded 2-core machine, past ScriptTimeLimit),
// and a lock script's concatenations make bytes, not megabytes. The operator cannot
// be shadowed as string.rep is (luaguard.go), and redis-server bounds no
// script's memory: `local s = 'x' for i = 1, 40 do s = s .. s end`, forty
// counted turns, took a redis-server under a 3 GB address-space limit to
// 1.6 GB of Lua heap and "not enough memory" after 24 s, holding every
// client, and one without a limit to whatever the machine has (a
// fresh-eyes attack on issue 37). So on redis-server every `..` of a
// user's script is sent as `.. CHECK() ..` (heapBounded), where CHECK, a
// local of the guard's line under a name made from the source's hash,
// reads collectgarbage('count') and stops the script once the heap has
// grown by more than MaxScriptHeap divided by twice the number of
// operands a concatenation of the script could have: Lua evaluates every
// operand (every CHECK) of a chain before it concatenates, and the result
// and Lua's concatenation buffer each take the operands' sum. Near the
// bound it runs a full collection first, so garbage does not count. The
// Lua sandbox has its own heap watch (sandbox.go) and gopher-lua's
// collectgarbage counts nothing, so on a miniredis nothing is inserted.
const MaxScriptHeap = 16 << 20

// MaxScriptRunTime bounds how long a user's script runs on redis-server,
// checked inside the script with MaxScriptHeap's check (every
// timeCheckEvery checks, at a turn of the turn count or a `..`), against
// the server's TIME: a script that has written cannot be stopped by
// SCRIPT KILL (Redis answers UNKILLABLE), and each of its 100,000 turns
// may run a built-in the guard does not charge (comparing or copying
// strings of megabytes: minutes in all). Past it the script fails at its
// line with timeStoppedMarker's error; what it wrote stays (Redis runs a
// script whole or stops it where it is). 1 s is half the step's time
// (ScriptTimeLimit) and some hundreds of times what a lock script takes.
const MaxScriptRunTime = time.Second

// timeCheckEvery is how many of the heap checks pass between two reads of
// the server's time (one TIME call each).
const timeCheckEvery = 16

// nowName is the name of the guard's local that reads the server's time in
// ms (keyGuard), which the heap check uses.
const nowName = "__lockstep_now"

// timeStoppedMarker starts the error of a script stopped by
// MaxScriptRunTime.
const timeStoppedMarker = "lockstep: time:"

// heapStoppedMarker starts the error of a script stopped by MaxScriptHeap.
const heapStoppedMarker = "lockstep: memory:"

// heapBounded returns src with a call of the heap check inserted after
// every `..` token, on the same lines, and the check's definition to put
// on the guard's line (no newline). It returns src and "" when src has
// no `..` or does not scan (Redis reports the syntax error).
func heapBounded(src string) (out, def string) {
	sc := parse.NewScanner(strings.NewReader(src), "script")
	lx := &parse.Lexer{}
	lineStart := []int{0, 0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	type insert struct {
		off    int
		concat bool
	}
	var at []insert
	var prev3 [3]ast.Token // the three tokens before, latest last
	concats := 0
	for {
		tk, err := sc.Scan(lx)
		if err != nil {
			return src, ""
		}
		if tk.Type <= 0 {
			break
		}
		lx.PrevTokenType = tk.Type
		if tk.Pos.Line < 1 || tk.Pos.Line >= len(lineStart) {
			return src, ""
		}
		end := lineStart[tk.Pos.Line] + tk.Pos.Column - 1 + len(tk.Str)
		switch {
		case tk.Type == parse.T2Comma:
			at = append(at, insert{end, true})
			concats++
		case tk.Type == ')' && prev3[2].Type == '(' && prev3[1].Type == parse.TIdent &&
			strings.HasPrefix(prev3[1].Str, sim.TurnCounterPrefix) && prev3[0].Type != parse.TFunction &&
			prev3[0].Type != '.' && prev3[0].Type != ':':
			// A call of the turn counter (sim.MaxScriptTurns) that
			// sim inserted at a loop's turn or a function's entry: the
			// heap is checked there too, so that growth by other means
			// than `..` (string.format('%s%s', s, s) in a loop) is
			// stopped within one turn.
			at = append(at, insert{end, false})
		}
		prev3 = [3]ast.Token{prev3[1], prev3[2], tk}
	}
	if len(at) == 0 {
		return src, ""
	}
	sum := sha256.Sum256([]byte(src))
	name := "__lockstep_heap_" + hex.EncodeToString(sum[:8])
	var b strings.Builder
	prev := 0
	for _, in := range at {
		if in.off < prev || in.off > len(src) {
			return src, ""
		}
		b.WriteString(src[prev:in.off])
		if in.concat {
			b.WriteString(" " + name + "() ..")
		} else {
			b.WriteString(" " + name + "();")
		}
		prev = in.off
	}
	b.WriteString(src[prev:])
	// A chain has at most concats+1 operands; with each CHECK inserted,
	// twice as many operands as there were, the empty ones adding nothing.
	per := MaxScriptHeap / (2 * (concats + 1))
	def = renderLua(heapCheckTemplate, map[string]string{
		"Name": name, "Now": nowName, "Every": fmt.Sprint(timeCheckEvery), "RunMS": fmt.Sprint(MaxScriptRunTime.Milliseconds()),
		"Per": fmt.Sprint(per), "Heap": fmt.Sprint(MaxScriptHeap),
		"TimeStopped": timeStoppedMarker, "HeapStopped": heapStoppedMarker,
	})
	return b.String(), def
}

// heapCheckText is the heap and time check's Lua (heapBounded), a
// text/template whose substitutions the file's opening comment lists.
//
//go:embed lua/heapcheck.lua
var heapCheckText string

// heapCheckTemplate is heapCheckText parsed (missingkey=error).
var heapCheckTemplate = template.Must(template.New("heapcheck.lua").Option("missingkey=error").Parse(heapCheckText))

// collectSource is the script that gives a redis-server's Lua heap back
// after a user's script was stopped for memory (collectLuaHeap).
//
//go:embed lua/collect.lua
var collectSource string

var collectScript = redis.NewScript(collectSource)

// heapSpent reports whether a reply of replies is a user's script stopped
// for memory on redis-server: by MaxScriptHeap, or by Lua's own "not
// enough memory" (an allocation the server refused).
func heapSpent(replies []sim.Reply) bool {
	for _, r := range replies {
		if r.Kind == sim.ReplyError && (strings.Contains(r.Str, heapStoppedMarker) || strings.Contains(r.Str, "not enough memory")) {
			return true
		}
	}
	return false
}

// collectLuaHeap runs collectScript on c: what a stopped script made is
// garbage, but redis-server collects its Lua heap only in small steps
// every 50 scripts, and keeps Lua's concatenation buffer at its largest
// size until full collections halve it, one at a time. Measured on
// redis-server 7.0.15: after a doubling script failed at 1.6 GB, one
// full collection left 131 MB of Lua heap; the script's 24 took it to
// 35 KB (RSS from 1.6 GB to 62 MB) in 0.24 s. A failure here is the
// operator's to see, not the step's.
func collectLuaHeap(ctx context.Context, c conn) error {
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		return collectScript.Eval(ctx, p, nil).Err()
	})
	if err != nil {
		return fmt.Errorf("backend: collecting the Lua heap after a script stopped for memory: %w", err)
	}
	return nil
}
