package backend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// TestRouteStringsKeepsEveryScript: every Lua script of the repository (the
// built-in variants' and the examples' own locks) is routed (luaindex.go)
// without a failure, and what is sent parses, with the same lines: a
// script routeStrings could not route would not run on redis-server at
// all, and an error's line must stay the script's.
func TestRouteStringsKeepsEveryScript(t *testing.T) {
	var files []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".lua") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d Lua files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if strings.HasPrefix(src, "{{/*") {
			// A prelude's text/template (backend/lua/guard.lua, ...): Lua
			// once rendered, and put before a script, not routed; every
			// test that runs a user's script runs its rendering.
			continue
		}
		out, def, ok := routeStrings(src)
		if !ok {
			t.Errorf("%s: not routed", f)
			continue
		}
		if strings.Count(out, "\n") != strings.Count(src, "\n") || strings.Contains(def, "\n") {
			t.Errorf("%s: routed, its lines moved", f)
		}
		if _, err := parse.Parse(strings.NewReader(def+out), f); err != nil {
			t.Errorf("%s: routed, it does not parse: %v\n%s", f, err, out)
		}
	}
}
