package view

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Edit takes a panel's HTML as a page last got it to the HTML of another
// step: what a following student's page gets instead of the whole panel
// (a class's shared frames, web/class_frames.go), since one move of a
// lesson changes a few attributes and words of a panel's 0.5 to 8 KiB.
//
// Len is the length of the HTML the edit applies to, Ops what to do with
// it from the start: a positive number keeps that many characters, a
// negative one drops that many, a string is inserted; what is left after
// the last op is kept. Lengths count UTF-16 code units, as a JavaScript
// string does (static/player.js, applyEdit), so the page applies an edit
// with slices of the string it holds.
type Edit struct {
	Len int   `json:"len"`
	Ops []any `json:"ops"`
}

// EditFrom is the Edit that turns old into new, and whether it is
// shorter on the wire than new itself; when it is not, the page had better
// get new. The diff runs on tokens, not characters (a run of ASCII
// characters between markup characters, or one other character), with the
// Myers-based LCS of golang.org/x/tools' diff (go-udiff's lcs package),
// whose work is bounded by the lengths and which gives the same result for
// the same strings: a class's move diffs each changed panel once per
// language, for every student (web/class_frames.go). Two changes with
// fewer than editJoin bytes kept between them become one: the numbers
// and quotes of three ops cost more than the few characters sent again.
func EditFrom(old, new string) (Edit, bool) {
	a, b := tokens(old), tokens(new)
	e := Edit{Len: utf16Len(old), Ops: []any{}}
	size := 0 // about what the ops take in JSON
	var ins strings.Builder
	drop, at := 0, 0 // at: the next token of a not yet kept or dropped
	flush := func() {
		if drop > 0 {
			e.Ops, size = append(e.Ops, -drop), size+8
		}
		if ins.Len() > 0 {
			e.Ops, size = append(e.Ops, ins.String()), size+ins.Len()+8
		}
		drop = 0
		ins.Reset()
	}
	for _, d := range tokenDiff(a, b) {
		kept := a[at:d.start]
		if n := textLen(kept); n > 0 && n < editJoin && (drop > 0 || ins.Len() > 0) {
			// Join this change to the one before: drop what is kept and
			// insert it again.
			for _, t := range kept {
				drop += utf16Len(t)
				ins.WriteString(t)
			}
		} else {
			flush()
			if k := utf16Sum(kept); k > 0 {
				e.Ops, size = append(e.Ops, k), size+8
			}
		}
		drop += utf16Sum(a[d.start:d.end])
		for _, t := range b[d.replStart:d.replEnd] {
			ins.WriteString(t)
		}
		at = d.end
	}
	flush()
	// Trailing keep is implied.
	return e, size < len(new)
}

// change replaces tokens start to end of the old HTML by tokens replStart
// to replEnd of the new.
type change struct{ start, end, replStart, replEnd int }

// tokenDiff is the changes that take tokens a to tokens b, in order: a
// Myers diff (sergi/go-diff, no time limit: the same strings give the same
// changes) of one rune per distinct token.
func tokenDiff(a, b []string) []change {
	ids := make(map[string]rune, len(a)/2)
	ra, rb := tokenIDs(a, ids), tokenIDs(b, ids)
	d := diffmatchpatch.New()
	d.DiffTimeout = 0
	var out []change
	i, j := 0, 0
	for _, df := range d.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(df.Text)
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			i, j = i+n, j+n
			continue
		case diffmatchpatch.DiffDelete:
			if k := len(out) - 1; k >= 0 && out[k].end == i && out[k].replEnd == j {
				out[k].end += n
			} else {
				out = append(out, change{i, i + n, j, j})
			}
			i += n
		case diffmatchpatch.DiffInsert:
			if k := len(out) - 1; k >= 0 && out[k].end == i && out[k].replEnd == j {
				out[k].replEnd += n
			} else {
				out = append(out, change{i, i, j, j + n})
			}
			j += n
		}
	}
	return out
}

// tokenIDs maps each token to a rune, the same token to the same rune
// (ids: those seen so far), skipping the surrogates, which are no runes.
func tokenIDs(ts []string, ids map[string]rune) []rune {
	out := make([]rune, len(ts))
	for k, t := range ts {
		r, ok := ids[t]
		if !ok {
			r = rune(len(ids))
			if r >= 0xD800 {
				r += 0x800
			}
			ids[t] = r
		}
		out[k] = r
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

// textLen is the length of ts joined, in bytes.
func textLen(ts []string) int {
	n := 0
	for _, t := range ts {
		n += len(t)
	}
	return n
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
			return "", false
		}
	}
	out = append(out, u[at:]...)
	return string(utf16.Decode(out)), true
}
