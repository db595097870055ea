package view

import (
	"strings"
	"testing"
)

func TestWrapLabel(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"released to 0, or lease ends", "释放到 0，或租约到期", "re-enter again, or release part", "繼續重入或部分釋放", "x"} {
		lines := wrapLabel(s, 16)
		joined := strings.Join(lines, "")
		if strings.ReplaceAll(joined, " ", "") != strings.ReplaceAll(s, " ", "") {
			t.Errorf("%q wrapped into %q loses text", s, lines)
		}
		for _, line := range lines {
			if textUnits(line) > 16 && len(lines) > 1 {
				t.Errorf("%q: line %q too long", s, line)
			}
		}
	}
}
