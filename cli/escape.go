package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A lesson's texts (titles, narration, actor names, written values) are
// printed by `run` and `lessons`, and a lesson is anyone's file: control
// characters in it could retitle the terminal, clear the screen, move the
// cursor to forge a "check ... ok" line, or reorder text with bidirectional
// overrides (hardening finding 10). The command line therefore prints
// every such character escaped, on a terminal and elsewhere alike (a file
// or a pipe gets the same text): C0 controls but newline and tab, DEL, C1
// controls (ESC's one-byte form CSI is U+009B), the bidirectional
// embedding, override and isolate marks, and bytes that are not UTF-8.

// escapeWriter writes what it is given with control characters escaped as
// \xNN (\u2066 above 0xFF). A rune split across two Writes is held back
// until it is whole.
type escapeWriter struct {
	w       io.Writer
	pending []byte
}

func newEscapeWriter(w io.Writer) *escapeWriter { return &escapeWriter{w: w} }

// Write writes p escaped and reports len(p) on success.
func (e *escapeWriter) Write(p []byte) (int, error) {
	buf := append(e.pending, p...)
	e.pending = nil
	var out strings.Builder
	for len(buf) > 0 {
		if !utf8.FullRune(buf) {
			e.pending = append([]byte(nil), buf...)
			break
		}
		r, size := utf8.DecodeRune(buf)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&out, `\x%02x`, buf[0])
		case unsafeRune(r):
			if r <= 0xff {
				fmt.Fprintf(&out, `\x%02x`, r)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
		default:
			out.Write(buf[:size])
		}
		buf = buf[size:]
	}
	if _, err := io.WriteString(e.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unsafeRune reports whether r must not reach a terminal as it is.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escapeString returns s as escapeWriter would print it.
func escapeString(s string) string {
	var b strings.Builder
	newEscapeWriter(&b).Write([]byte(s))
	return b.String()
}
