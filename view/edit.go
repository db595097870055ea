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
// get new. The diff (sergi/go-diff's, cleaned up for size) runs on tokens,
// not characters: a word or number, or one other character, each mapped
// to one rune, so that a 30 KiB timeline takes milliseconds, not the
// hundreds a character diff takes, and the result depends on the two
// strings only (no time limit).
func EditFrom(old, new string) (Edit, bool) {
	d := diffmatchpatch.New()
	d.DiffTimeout = 0
	var toks []string
	ids := map[string]rune{}
	a, b := tokenRunes(old, ids, &toks), tokenRunes(new, ids, &toks)
	diffs := d.DiffMainRunes(a, b, false)
	diffs = d.DiffCleanupEfficiency(diffs)
	e := Edit{Len: utf16Len(old), Ops: []any{}}
	size, keep := 0, 0 // size: about what the ops take in JSON
	for _, df := range diffs {
		var text strings.Builder
		for _, r := range df.Text {
			text.WriteString(toks[tokenIndex(r)])
		}
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			keep += utf16Len(text.String())
		case diffmatchpatch.DiffDelete:
			if keep > 0 {
				e.Ops, size = append(e.Ops, keep), size+8
				keep = 0
			}
			e.Ops, size = append(e.Ops, -utf16Len(text.String())), size+8
		case diffmatchpatch.DiffInsert:
			if keep > 0 {
				e.Ops, size = append(e.Ops, keep), size+8
				keep = 0
			}
			e.Ops, size = append(e.Ops, text.String()), size+len(text.String())+8
		}
	}
	return e, size < len(new)
}

// tokenRunes splits s into tokens (a run of ASCII characters but
// '<', '>', '"', '=' and space, or any one other character) and returns one rune per token: the same
// token, the same rune (ids, toks: the tokens seen so far).
func tokenRunes(s string, ids map[string]rune, toks *[]string) []rune {
	var out []rune
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			j = i + n
		}
		t := s[i:j]
		r, ok := ids[t]
		if !ok {
			r = tokenRune(len(*toks))
			ids[t] = r
			*toks = append(*toks, t)
		}
		out = append(out, r)
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c != '<' && c != '>' && c != '"' && c != ' ' && c != '=' && c < utf8.RuneSelf
}

// tokenRune and tokenIndex map a token's index to a rune and back,
// skipping the surrogates, which are not runes.
func tokenRune(i int) rune {
	if i >= 0xD800 {
		i += 0x800
	}
	return rune(i)
}

func tokenIndex(r rune) int {
	if r >= 0xE000 {
		return int(r) - 0x800
	}
	return int(r)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
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
