package benchtable

import (
	"strings"
	"testing"
)

// TestPrint: the header lines, a blank line, the column names and each
// row's cells under them, in the order added.
func TestPrint(t *testing.T) {
	t.Parallel()
	tb := &Table{Header: []string{"lockstep bench, a run"}}
	tb.Add("1", "step round trip", "p50 800 µs", "floor 100 µs", "8.0x", "≤ 3x", Yes(false))
	tb.Add("4", "memory", MiB(3<<20), "", "", "", Yes(true))
	var b strings.Builder
	tb.Print(&b)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 6 || lines[0] != "lockstep bench, a run" || lines[1] != "" {
		t.Fatalf("printed:\n%s", b.String())
	}
	if got := strings.Fields(lines[2]); strings.Join(got, " ") != "# measure value reference (same run) ratio target met" {
		t.Errorf("column names %q", lines[2])
	}
	col := strings.Index(lines[2], "value")
	for _, l := range lines[4:] {
		if len(l) <= col || l[col-1] != ' ' {
			t.Errorf("row %q does not put its value under the column", l)
		}
	}
	if !strings.Contains(lines[4], "NO") || !strings.Contains(lines[5], "3.0 MiB") || !strings.HasSuffix(lines[5], "yes") {
		t.Errorf("rows:\n%s\n%s", lines[4], lines[5])
	}
}
