package sim

import (
	"strings"
	"testing"
)

// TestBoundedCRLineEndings: a script whose lines end in \r, \r\n or \n\r
// (each a line end to Lua) gets its counter in every loop and keeps its
// line numbers (a fresh-eyes attack on issue 37: with CR line endings the
// counter's offsets came out wrong and the script ran without it).
func TestBoundedCRLineEndings(t *testing.T) {
	for _, nl := range []string{"\r", "\r\n", "\n\r", "\n"} {
		src := strings.Join([]string{"local x = 1", "while true do x = x + 1 end", "return x"}, nl)
		out := bounded(src, "acquire.lua")
		if out == unboundable || !strings.Contains(out, "do __lockstep_turn_") {
			t.Errorf("%q: the loop has no counter: %q", nl, out)
		}
		if got := strings.Count(out, "\n"); got != 2 {
			t.Errorf("%q: %d lines ends in %q, want 2 (one per line end)", nl, got, out)
		}
		if strings.ContainsRune(out, '\r') {
			t.Errorf("%q: a CR is left in %q", nl, out)
		}
	}
}
