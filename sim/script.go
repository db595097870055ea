package sim

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// luaFiles holds the lock scripts. They are teaching material: the player
// shows them, so they live as plain .lua files rather than Go strings.
//
//go:embed lua
var luaFiles embed.FS

// Script is one Lua script a variant runs on Redis.
type Script struct {
	// Name is the script's path under sim/lua without ".lua", e.g.
	// "token-count/acquire".
	Name   string
	Source string
	// Custom is true for a script a user's variant file brought (not one
	// of sim/lua): a real Redis runs it only where the operator allows.
	Custom bool
	// file is the .lua file a custom script came from ("" when inline), and
	// line0 the line of the variant file before an inline script's first,
	// col0 the columns before its text (the block's indentation), so that a
	// Lua error names the user's own line and column.
	file  string
	line0 int
	col0  int
	// run is what a store sends for a custom script (RunSource).
	run string
}

// branchTag marks a return statement with the outcomes it can produce:
// `return 0 -- [BUSY]`.
var branchTag = regexp.MustCompile(`\[([A-Z_]+)\]`)

// BranchLines returns the 1-based lines of code tagged with outcome o (a
// return, or the assignment of the answer), so a viewer can highlight the
// branch that produced a reply. It returns nil when no line carries the tag.
func (s *Script) BranchLines(o Outcome) []int {
	var lines []int
	for i, line := range strings.Split(s.Source, "\n") {
		code, comment, ok := strings.Cut(line, "--")
		if !ok || strings.TrimSpace(code) == "" {
			continue
		}
		for _, m := range branchTag.FindAllStringSubmatch(comment, -1) {
			if Outcome(m[1]) == o {
				lines = append(lines, i+1)
			}
		}
	}
	return lines
}

var scripts = loadScripts()

func loadScripts() map[string]*Script {
	out := map[string]*Script{}
	err := fs.WalkDir(luaFiles, "lua", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
			return err
		}
		src, err := luaFiles.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "lua/"), ".lua")
		out[name] = &Script{Name: name, Source: string(src)}
		return nil
	})
	if err != nil {
		panic(fmt.Sprintf("sim: embedded scripts: %v", err))
	}
	return out
}

// ScriptByName returns the embedded script with the given name, or nil.
func ScriptByName(name string) *Script { return scripts[name] }

// AllScripts returns every embedded script, sorted by name.
func AllScripts() []*Script {
	out := make([]*Script, 0, len(scripts))
	for _, s := range scripts {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func mustScript(name string) *Script {
	s := scripts[name]
	if s == nil {
		panic("sim: no embedded script " + name)
	}
	return s
}
