package sim

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// seedRef matches a source document named by its seed number or file
// ("seed 001", "004_9ef5ee932af18c81.txt"), which the Lua panel's reader
// cannot follow.
var seedRef = regexp.MustCompile(`(?i)\bseeds?\b|\b00\d_[0-9a-f]{16}\b`)

// TestScriptCommentsNameNoSeed checks the comments of every embedded Lua
// script, which the player's Lua panel shows: none names a source document
// by its seed number or file; a comment says the rule itself or names the
// source by what it is (the interview card, the Node.js design, the Java
// design) (issue 39).
func TestScriptCommentsNameNoSeed(t *testing.T) {
	t.Parallel()
	n := 0
	err := fs.WalkDir(luaFiles, "lua", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
			return err
		}
		src, err := luaFiles.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(string(src), "\n") {
			if _, comment, ok := strings.Cut(line, "--"); ok && seedRef.MatchString(comment) {
				t.Errorf("%s:%d names a seed: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil || n < 20 {
		t.Fatalf("walked %d scripts (%v): the walk misses files", n, err)
	}
}
