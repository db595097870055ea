package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchNamesVariantFile: a problem of the variant file a search file
// names, or of one of its scripts, is reported at that file's own name,
// line and column, not under the search file's name (issue 33).
func TestSearchNamesVariantFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"s.search.yaml": "variant: ./bad.variant.yaml\nlease: 30s\nactors:\n  - {id: A}\n  - {id: B}\n",
		"bad.variant.yaml": "name: bad\nlock: {type: string}\nowner: grant-token\n# reentry is misspelt\nreentry: sometimes\n" +
			"acquire:\n  script: bad/acquire.lua\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
			"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n",
		"bad/acquire.lua": "-- acquire\nlocal x = 1\nif x then return end end\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := searchCLI(t, filepath.Join(dir, "s.search.yaml"))
	if code != ExitInvalid {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := []string{filepath.Join(dir, "bad.variant.yaml") + ":5:10: ", filepath.Join(dir, "bad", "acquire.lua") + ":3:"}
	if len(lines) != len(want) {
		t.Fatalf("stderr %q, want %d lines", stderr, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start with %q", i+1, lines[i], w)
		}
	}
}
