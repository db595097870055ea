package view

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Copies in an Edit: what a move inserts is often HTML the page holds
// already, elsewhere in the panel or earlier in the new HTML: a command
// panel of 18 calls of one script draws its Lua source (1.7 KiB) 18
// times, and a call's script comes back after a step of another. An
// insert's run of at least copyMin bytes found there goes as a copy op,
// [at, n]: n UTF-16 units from position at of the old HTML followed by
// the new HTML built so far (at ≥ the old HTML's length: from the new,
// at minus that length); a copy is never of both, and never of new HTML
// not built yet. Runs are found as LZ77 finds them (Ziv and Lempel,
// 1977): a table of the last position of each copyHashLen bytes, checked
// and extended byte by byte; the same strings give the same ops.

// copyMin is the shortest run sent as a copy: a copy op costs about 12
// bytes of JSON, and a run of HTML as many or more, its quotes escaped.
// Shorter copies shrink the plain message and grow the deflated one (the
// runs deflate would have found are numbers now): a follower's message of
// stale-owner (BenchmarkFollowerFrameBytes, columns packed) is 4,237 B
// plain and 1,780 deflated at 32, 3,781 and 1,872 at 16, 3,688 and 1,927
// at 12 (5,120 and 1,775 without copies).
const copyMin = 16

// copyHashLen is the bytes hashed to find a run; copyTableBits the size
// of the tables of positions (2^bits int32s each, old and new).
const (
	copyHashLen   = 8
	copyTableBits = 14
)

// copyHash hashes s[i:i+copyHashLen].
func copyHash(s string, i int) uint32 {
	_ = s[i+copyHashLen-1]
	v := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	return uint32((v * 0x9E3779B97F4A7C15) >> (64 - copyTableBits))
}

// utf16Offsets maps byte offsets of one string to UTF-16 offsets; nil
// for an ASCII string (the same).
type utf16Offsets []int32

func newUTF16Offsets(s string) utf16Offsets {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii {
		return nil
	}
	out := make(utf16Offsets, len(s)+1)
	n := int32(0)
	for i, r := range s {
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			w = 1
		}
		for k := 0; k < w && i+k < len(s); k++ {
			out[i+k] = n
		}
		if r == utf8.RuneError {
			n++
		} else {
			n += int32(utf16.RuneLen(r))
		}
	}
	out[len(s)] = n
	return out
}

func (o utf16Offsets) at(b int) int {
	if o == nil {
		return b
	}
	return int(o[b])
}

// withCopies rewrites e, an edit from old to new, so that its inserts
// carry copies (above), and returns about what it takes in JSON.
func (e *Edit) withCopies(old, new string) int {
	oldU, newU := newUTF16Offsets(old), newUTF16Offsets(new)
	old16 := oldU.at(len(old))
	var oldTab, newTab [1 << copyTableBits]int32
	for i := range oldTab {
		oldTab[i], newTab[i] = -1, -1
	}
	for i := 0; i+copyHashLen <= len(old); i++ {
		if utf8.RuneStart(old[i]) {
			oldTab[copyHash(old, i)] = int32(i)
		}
	}
	indexed := 0 // new's positions below it are in newTab
	indexNew := func(upTo int) {
		for ; indexed+copyHashLen <= upTo; indexed++ {
			if utf8.RuneStart(new[indexed]) {
				newTab[copyHash(new, indexed)] = int32(indexed)
			}
		}
	}
	ops := make([]any, 0, len(e.Ops))
	size := 20
	lit := func(s string) {
		if s != "" {
			ops, size = append(ops, s), size+len(s)+8
		}
	}
	oldB, outB := 0, 0
	for _, op := range e.Ops {
		switch o := op.(type) {
		case int:
			ops, size = append(ops, o), size+8
			if o > 0 {
				n := advance16(old, oldB, o) - oldB
				oldB += n
				outB += n
			} else {
				oldB = advance16(old, oldB, -o)
			}
		case string:
			end := outB + len(o)
			start := outB
			for p := outB; p+copyHashLen <= end; {
				if !utf8.RuneStart(new[p]) {
					p++
					continue
				}
				indexNew(p)
				h := copyHash(new, p)
				best, bestAt, fromNew := 0, 0, false
				if c := int(oldTab[h]); c >= 0 {
					if n := commonPrefix(old[c:], new[p:end]); n > best {
						best, bestAt, fromNew = n, c, false
					}
				}
				if c := int(newTab[h]); c >= 0 {
					if n := commonPrefix(new[c:p], new[p:end]); n > best {
						best, bestAt, fromNew = n, c, true
					}
				}
				for best > 0 && p+best < len(new) && !utf8.RuneStart(new[p+best]) {
					best--
				}
				if best < copyMin {
					p++
					continue
				}
				lit(new[start:p])
				var at int
				if fromNew {
					at = old16 + newU.at(bestAt)
				} else {
					at = oldU.at(bestAt)
				}
				ops, size = append(ops, []int{at, newU.at(p+best) - newU.at(p)}), size+14
				p += best
				start = p
			}
			lit(new[start:end])
			outB = end
		}
	}
	e.Ops = ops
	return size
}

// advance16 is the byte offset in s after n UTF-16 units from byte b.
func advance16(s string, b, n int) int {
	for n > 0 && b < len(s) {
		if s[b] < utf8.RuneSelf {
			b, n = b+1, n-1
			continue
		}
		r, w := utf8.DecodeRuneInString(s[b:])
		b += w
		if r == utf8.RuneError {
			n--
		} else {
			n -= utf16.RuneLen(r)
		}
	}
	return b
}

// commonPrefix is the length in bytes of a and b's common start.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && a[i:i+8] == b[i:i+8] {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// copyOp reads a copy op as decoded from JSON or made by withCopies.
func copyOp(op any) (at, n int, ok bool) {
	switch o := op.(type) {
	case []int:
		if len(o) == 2 {
			return o[0], o[1], true
		}
	case []any:
		if len(o) == 2 {
			a, ok1 := o[0].(float64)
			b, ok2 := o[1].(float64)
			return int(a), int(b), ok1 && ok2
		}
	}
	return 0, 0, false
}
