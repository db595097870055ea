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

func TestWrapLabelBreaksWell(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want []string
	}{
		{"首次获取，设定租约", 16, []string{"首次获取，", "设定租约"}},
		{"继续重入或部分释放", 16, []string{"继续重入", "或部分释放"}},
		{"re-enter again, or release part", 16, []string{"re-enter again,", "or release part"}},
		{"released to 0, or lease ends", 34, []string{"released to 0, or lease ends"}},
		{"释放到 0，或租约到期", 16, []string{"释放到 0，", "或租约到期"}},
	} {
		got := wrapLabel(c.in, c.max)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapLabel(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
