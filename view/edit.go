package view

import (
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

// EditFrom is the Edit that turns old into new (a character diff by
// sergi/go-diff, cleaned up for size), and whether it is shorter on the
// wire than new itself; when it is not, the page had better get new.
func EditFrom(old, new string) (Edit, bool) {
	d := diffmatchpatch.New()
	d.DiffTimeout = 0 // a class's frame is drawn once per step and language
	diffs := d.DiffMain(old, new, false)
	diffs = d.DiffCleanupEfficiency(diffs)
	e := Edit{Len: utf16Len(old), Ops: []any{}}
	size, keep := 0, 0 // size: about what the ops take in JSON
	for _, df := range diffs {
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			keep += utf16Len(df.Text)
		case diffmatchpatch.DiffDelete:
			if keep > 0 {
				e.Ops, size = append(e.Ops, keep), size+8
				keep = 0
			}
			e.Ops, size = append(e.Ops, -utf16Len(df.Text)), size+8
		case diffmatchpatch.DiffInsert:
			if keep > 0 {
				e.Ops, size = append(e.Ops, keep), size+8
				keep = 0
			}
			e.Ops, size = append(e.Ops, df.Text), size+len(df.Text)+8
		}
	}
	return e, size < len(new)
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
