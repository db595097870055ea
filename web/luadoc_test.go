package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lockstep/sim"
	"lockstep/view"
)

// TestLuaDocsTranslated: every note a Lua script gives on its KEYS and
// ARGV has a translation in both Chinese message files, so the command
// panel shows no English beside Chinese narration.
func TestLuaDocsTranslated(t *testing.T) {
	t.Parallel()
	root := filepath.Join(repoRoot(t), "sim", "lua")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for param, doc := range view.ScriptDocs(string(src)) {
			n++
			for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese} {
				if got := view.LuaDoc(tr(loc), doc); got == doc {
					t.Errorf("%s %s: %q has no %s translation (add \"Lua: %s\" to catalog/ui.%s.toml)", path, param, doc, loc, doc, loc)
				}
			}
			if got := view.LuaDoc(tr(sim.English), doc); got != doc {
				t.Errorf("%s %s: English shows %q", path, param, got)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found only %d notes under %s", n, root)
	}
}
