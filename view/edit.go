package view

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Edit takes a panel's HTML as a page last got it to the HTML of another
// step: what a following student's page gets instead of the whole panel
// (a class's shared frames, web/class_frames.go), since one move of a
// lesson changes a few attributes and words of a panel's 0.5 to 8 KiB.
//
// Len is the length of the HTML the edit applies to, Ops what to do with
// it from the start: a positive number keeps that many characters, a
// negative one drops that many, a string is inserted, a pair [at, n]
// inserts a copy of what the page holds or has built (editcopy.go); what
// is left after the last op is kept. Lengths count UTF-16 code units, as a JavaScript
// string does (static/player.js, applyEdit), so the page applies an edit
// with slices of the string it holds.
type Edit struct {
	Len int   `json:"len"`
	Ops []any `json:"ops"`
}

// EditFrom is the Edit that turns old into new, and whether it is
// shorter on the wire than new itself; when it is not, the page had better
// get new. It diffs twice: the elements (a '<' and what follows up to the
// next), then, within each run of elements that changed, the tokens (a run
// of ASCII characters between markup characters, or one other character),
// so that each diff is short and cheap (tokenDiff); the same strings give
// the same result. Two changes with fewer than editJoin bytes kept between
// them become one: the numbers and quotes of three ops cost more than the
// few characters sent again.
func EditFrom(old, new string) (Edit, bool) {
	em := editEmitter{e: Edit{Len: utf16Len(old), Ops: []any{}}}
	ea, eb := elements(old), elements(new)
	at := 0
	for _, c := range tokenDiff(ea, eb, maxElementD) {
		em.keep(ea[at:c.start])
		a, b := tokens(strings.Join(ea[c.start:c.end], "")), tokens(strings.Join(eb[c.replStart:c.replEnd], ""))
		ta := 0
		for _, d := range tokenDiff(a, b, maxTokenD) {
			em.keep(a[ta:d.start])
			em.change(a[d.start:d.end], b[d.replStart:d.replEnd])
			ta = d.end
		}
		em.keep(a[ta:])
		at = c.end
	}
	em.flush() // what is kept after the last change is implied
	size := em.e.withCopies(old, new)
	return em.e, size < len(new)
}

// editEmitter turns keeps and changes, in order, into an Edit's ops.
type editEmitter struct {
	e    Edit
	size int // about what the ops take in JSON
	// the change not yet emitted: drop UTF-16 units, insert ins
	drop int
	ins  strings.Builder
	// what is kept after it, not yet emitted: keep UTF-16 units, keepBytes
	// bytes, kept its tokens while fewer than editJoin bytes
	keep16, keepBytes int
	kept              []string
}

func (m *editEmitter) keep(ts []string) {
	for _, t := range ts {
		m.keep16 += utf16Len(t)
		m.keepBytes += len(t)
		if m.keepBytes < editJoin {
			m.kept = append(m.kept, t)
		}
	}
}

func (m *editEmitter) change(drop, ins []string) {
	if m.keepBytes > 0 && m.keepBytes < editJoin && (m.drop > 0 || m.ins.Len() > 0) {
		// Join this change to the one before: drop what is kept and
		// insert it again.
		m.drop += m.keep16
		for _, t := range m.kept {
			m.ins.WriteString(t)
		}
	} else {
		m.flush()
		if m.keep16 > 0 {
			m.e.Ops, m.size = append(m.e.Ops, m.keep16), m.size+8
		}
	}
	m.keep16, m.keepBytes, m.kept = 0, 0, m.kept[:0]
	m.drop += utf16Sum(drop)
	for _, t := range ins {
		m.ins.WriteString(t)
	}
}

// flush emits the pending change.
func (m *editEmitter) flush() {
	if m.drop > 0 {
		m.e.Ops, m.size = append(m.e.Ops, -m.drop), m.size+8
	}
	if m.ins.Len() > 0 {
		m.e.Ops, m.size = append(m.e.Ops, m.ins.String()), m.size+m.ins.Len()+8
	}
	m.drop = 0
	m.ins.Reset()
}

// elements splits s before each '<'.
func elements(s string) []string {
	out := make([]string, 0, strings.Count(s, "<")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s[1:], '<') + 1
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// change replaces tokens start to end of the old HTML by tokens replStart
// to replEnd of the new.
type change struct{ start, end, replStart, replEnd int }

// tokenDiff is the changes that take tokens a to tokens b, in order: the
// common start and end aside, a shortest edit script by Myers' greedy
// algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986) on
// one integer per distinct token, or, past maxD tokens changed, one
// change of everything between the common start and end (the page had
// better get that panel whole). Ours, not a library's: sergi/go-diff
// (runes through strings, its clean-ups) took 2.5 ms of a move's CPU and
// x/tools' approximate LCS (go-udiff) made the diagram's edits 4x larger
// (docs/performance.md); a move of a class diffs every changed panel,
// once per language, before its students get it.
func tokenDiff(a, b []string, maxD int) []change {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	a, b = a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	ids := make(map[string]int32, len(a)+len(b))
	ia, ib := tokenIDs(a, ids), tokenIDs(b, ids)
	out, ok := myers(ia, ib, maxD)
	if !ok {
		out = []change{{0, len(a), 0, len(b)}}
	}
	for k := range out {
		out[k].start += pre
		out[k].end += pre
		out[k].replStart += pre
		out[k].replEnd += pre
	}
	return out
}

// maxElementD and maxTokenD bound the elements, and the tokens of a run of
// elements, dropped and inserted that tokenDiff looks for: its work and
// memory grow with their square.
const (
	maxElementD = 200
	maxTokenD   = 100
)

// myers is a shortest edit script from a to b as changes, false when it
// is longer than maxD.
func myers(a, b []int32, maxD int) ([]change, bool) {
	n, m := len(a), len(b)
	dmax := min(n+m, maxD)
	off := dmax + 1
	v := make([]int, 2*dmax+3)
	// trace holds, for each step d > 0, v's diagonals -(d-1)..d-1 before
	// it, at trace[(d-1)*(d-1):]: one buffer for all steps.
	var trace []int
	for d := 0; d <= dmax; d++ {
		if d > 0 {
			trace = append(trace, v[off-(d-1):off+d]...)
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: drop a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, d, n, m), true
			}
		}
	}
	return nil, false
}

// backtrack walks myers' trace back from (n, m) at step d to the changes.
func backtrack(trace []int, d, x, y int) []change {
	var rev []change // one token each, last first
	for ; d > 0; d-- {
		w := trace[(d-1)*(d-1):] // diagonal k at w[k+d-1]
		k := x - y
		var pk int
		if k == -d || k != d && w[k-1+d-1] < w[k+1+d-1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := w[pk+d-1]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
		}
		if x == px { // down: b[py] inserted
			rev = append(rev, change{x, x, py, py + 1})
		} else { // right: a[px] dropped
			rev = append(rev, change{px, px + 1, y, y})
		}
		x, y = px, py
	}
	var out []change
	for i := len(rev) - 1; i >= 0; i-- {
		c := rev[i]
		if k := len(out) - 1; k >= 0 && out[k].end == c.start && out[k].replEnd == c.replStart {
			out[k].end, out[k].replEnd = c.end, c.replEnd
			continue
		}
		out = append(out, c)
	}
	return out
}

// tokenIDs maps each token to an integer, the same token to the same one
// (ids: those seen so far).
func tokenIDs(ts []string, ids map[string]int32) []int32 {
	out := make([]int32, len(ts))
	for k, t := range ts {
		id, ok := ids[t]
		if !ok {
			id = int32(len(ids))
			ids[t] = id
		}
		out[k] = id
	}
	return out
}

// editJoin: two changes closer than this many bytes are joined (EditFrom).
const editJoin = 8

// tokens splits s into tokens: a run of ASCII characters but '<', '>',
// '"', '=' and space, or any one other character.
func tokens(s string) []string {
	out := make([]string, 0, len(s)/4)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			j = i + n
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c != '<' && c != '>' && c != '"' && c != ' ' && c != '=' && c < utf8.RuneSelf
}

// utf16Sum is the length of ts joined, in UTF-16 code units.
func utf16Sum(ts []string) int {
	n := 0
	for _, t := range ts {
		n += utf16Len(t)
	}
	return n
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// Apply applies e to old, as the page does: for tests.
func (e Edit) Apply(old string) (string, bool) {
	u := utf16.Encode([]rune(old))
	if len(u) != e.Len {
		return "", false
	}
	var out []uint16
	at := 0
	for _, op := range e.Ops {
		if f, ok := op.(float64); ok { // decoded from JSON
			op = int(f)
		}
		switch o := op.(type) {
		case int:
			if o > 0 {
				if at+o > len(u) {
					return "", false
				}
				out = append(out, u[at:at+o]...)
				at += o
			} else {
				at -= o
				if at > len(u) {
					return "", false
				}
			}
		case string:
			out = append(out, utf16.Encode([]rune(o))...)
		default:
			from, n, ok := copyOp(op)
			switch {
			case !ok || from < 0 || n < 0:
				return "", false
			case from+n <= len(u):
				out = append(out, u[from:from+n]...)
			case from >= len(u) && from-len(u)+n <= len(out):
				out = append(out, out[from-len(u):from-len(u)+n]...)
			default:
				return "", false
			}
		}
	}
	out = append(out, u[at:]...)
	return string(utf16.Decode(out)), true
}
