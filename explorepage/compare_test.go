package explorepage

import "testing"

// TestCompareDefaultsNeverSelf checks that Compare opened without a or b
// runs two different variants.
func TestCompareDefaultsNeverSelf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ own, a, b string }{
		{"token-count", "", ""}, {"hash-refresh", "", ""}, {"token-count", "", "token-count"},
		{"hash-refresh", "", "hash-refresh"}, {"token-count", "token-count", ""}, {"setnx-del", "", ""},
	} {
		a, b := compareDefaults(c.own, c.a, c.b)
		if a == b || (c.a != "" && a != c.a) || (c.b != "" && b != c.b) {
			t.Errorf("compareDefaults(%q, %q, %q) = %q, %q", c.own, c.a, c.b, a, b)
		}
	}
}
