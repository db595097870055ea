package sim

import (
	"strings"
	"testing"
)

// TestBoundedPlainReturns: a returned redis.call (and redis.pcall,
// string.rep, table.concat) that ends its block is made a plain call,
// `return (redis.call(...))`, so that an error it raises can name the
// script's line (Lua drops the frame of a tail call); a call followed by
// more of the expression, or another function's, is left as it is, and
// the lines stay.
func TestBoundedPlainReturns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ src, want string }{ // want "": unchanged
		{"return redis.call('GET', KEYS[1])", "return (redis.call('GET', KEYS[1]))"},
		{"if x then\nreturn redis.pcall('GET', ')')\nend", "return (redis.pcall('GET', ')'))\nend"},
		{"return string.rep(f(1), (2))", "return (string.rep(f(1), (2)))"},
		{"return redis.call('GET', KEYS[1]) .. 'x'", ""},
		{"return redis.call('GET', KEYS[1]), 1", ""},
		{"return f(redis.call('GET', KEYS[1]))", ""},
		{"return other.call('GET')", ""},
	} {
		got := bounded(c.src, "t")
		if c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q: got %q, want %q in it", c.src, got, c.want)
		}
		if c.want == "" && !strings.HasSuffix(got, " "+c.src) {
			t.Errorf("%q: got %q, want the return unchanged", c.src, got)
		}
		if strings.Count(got, "\n") != strings.Count(c.src, "\n") {
			t.Errorf("%q: lines changed: %q", c.src, got)
		}
	}
}
