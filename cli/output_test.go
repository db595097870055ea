package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lockstep/catalog"
	"lockstep/sim"
)

// ownFile is a file of examples/testdata/own (issue 33's locks).
func ownFile(name string) string {
	return filepath.Join("..", "examples", "testdata", "own", name)
}

// jsonLines decodes each line of out as one JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var o map[string]any
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("not a JSON line: %v: %.200s", err, sc.Text())
		}
		objs = append(objs, o)
	}
	return objs
}

// helpFlags splits a command's -h output into its synopsis (the lines
// before the flags' defaults) and the flags it defines.
func helpFlags(help string) (synopsis string, defined []string) {
	lines := strings.Split(help, "\n")
	def := regexp.MustCompile(`^  -(\S+)`)
	for i, l := range lines {
		if def.MatchString(l) {
			for _, d := range lines[i:] {
				if m := def.FindStringSubmatch(d); m != nil {
					defined = append(defined, m[1])
				}
			}
			return strings.Join(lines[:i], "\n"), defined
		}
	}
	return help, nil
}

// names reports whether synopsis names flag f (-f or --f).
func names(synopsis, f string) bool {
	return regexp.MustCompile(`(^|[^\w-])--?` + regexp.QuoteMeta(f) + `([^\w-]|$)`).MatchString(synopsis)
}

// TestHelpNamesEveryFlag: the usage line of every command's -h names
// every flag the command defines (--allow-custom-scripts was missing from
// the lines for run and search, the proxy's limits from plain lockstep's),
// and plain lockstep's usage, which has a line per command, names every
// flag of each command on its line.
func TestHelpNamesEveryFlag(t *testing.T) {
	t.Parallel()
	noCtx := func(f func([]string, io.Writer, io.Writer) int) command {
		return func(_ context.Context, args []string, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
	}
	commands := map[string]command{"run": Run, "search": Search, "doctor": Doctor, "proxy": Proxy, "lessons": noCtx(Lessons)}
	_, _, serveHelp := call(Serve, "-h")
	serveSyn, serveFlags := helpFlags(serveHelp)
	lineOf := map[string]string{}
	for _, l := range strings.Split(serveSyn, "\n") {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "usage:")); len(f) >= 2 && f[0] == "lockstep" && !strings.HasPrefix(f[1], "-") {
			lineOf[f[1]] = l
		}
	}
	for _, f := range serveFlags {
		if first := strings.Split(serveSyn, "\n       lockstep ")[0]; !names(first, f) {
			t.Errorf("lockstep -h: the usage does not name -%s", f)
		}
	}
	for name, cmd := range commands {
		_, _, help := call(cmd, "-h")
		syn, defined := helpFlags(help)
		if len(defined) == 0 {
			t.Fatalf("%s -h lists no flags:\n%s", name, help)
		}
		for _, f := range defined {
			if !names(syn, f) {
				t.Errorf("lockstep %s -h: the usage line does not name --%s:\n%s", name, f, syn)
			}
			if !names(lineOf[name], f) {
				t.Errorf("lockstep -h: the line of %s does not name --%s: %q", name, f, lineOf[name])
			}
		}
	}
}

// TestRunReportsEveryFile: of two lesson files, the first stopped by its
// script's Lua error (examples/testdata/own/lua-error, line 7), the
// second fine, run says the first's error and still runs the second,
// exit 2; with --json the first is a JSON object naming its file and the
// error, the second its frames.
func TestRunReportsEveryFile(t *testing.T) {
	t.Parallel()
	bad, good := ownFile("lua-error.lesson.yaml"), ownFile("count-key.lesson.yaml")
	code, stdout, stderr := runCLI(t, bad, good)
	if code != ExitInvalid || !strings.Contains(stderr, "lua-error/acquire.lua:7") || !strings.Contains(stdout, "(count-key-lesson)") {
		t.Fatalf("exit %d, want %d, the error and the second file's frames\nstdout: %.300s\nstderr: %s", code, ExitInvalid, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "--json", bad, good)
	objs := jsonLines(t, stdout)
	if code != ExitInvalid || len(objs) != 2 {
		t.Fatalf("--json: exit %d, %d objects, want %d and 2", code, len(objs), ExitInvalid)
	}
	errs, _ := objs[0]["errors"].([]any)
	if objs[0]["file"] != bad || len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0].(map[string]any)["message"]), "lua-error/acquire.lua:7") {
		t.Errorf("first object %v: want the file and its Lua error", objs[0])
	}
	if objs[1]["lesson"] != "count-key-lesson" || objs[1]["frames"] == nil {
		t.Errorf("second object: lesson %v, want count-key-lesson with frames", objs[1]["lesson"])
	}
}

// TestSearchReportsEveryFile: search --json on a file that breaks the
// search format prints its problems as a JSON object (file, each error's
// line and column), as run --json does, not nothing; a file whose lock
// stops with a Lua error is said for that file, and the next file is
// still searched.
func TestSearchReportsEveryFile(t *testing.T) {
	t.Parallel()
	bad := writeFile(t, "bad.search.yaml", "variant: token-count\nlease: 30s\ndepth: x\nactors: [{id: A}]\n")
	code, stdout, stderr := call(Search, "--json", bad)
	objs := jsonLines(t, stdout)
	if code != ExitInvalid || len(objs) != 1 || objs[0]["file"] != bad {
		t.Fatalf("exit %d, stdout objects %v, want %d and one object for %s\nstderr: %s", code, objs, ExitInvalid, bad, stderr)
	}
	errs, _ := objs[0]["errors"].([]any)
	if len(errs) == 0 || errs[0].(map[string]any)["line"] != float64(3) || errs[0].(map[string]any)["col"] != float64(8) {
		t.Errorf("errors %v, want depth's at 3:8 first", errs)
	}

	dir := t.TempDir()
	rel, err := filepath.Rel(dir, mustAbs(t, ownFile("lua-error.variant.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	luaErr := filepath.Join(dir, "lua.search.yaml")
	if err := os.WriteFile(luaErr, []byte("variant: "+filepath.ToSlash(rel)+"\nlease: 30s\ndepth: 1\nactors: [{id: A}]\nmoves: [acquire]\ninvariants: [overlapping-holders]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fine := writeFile(t, "fine.search.yaml", "variant: token-count\nlease: 30s\ndepth: 1\nactors: [{id: A}]\nmoves: [acquire]\ninvariants: [overlapping-holders]\n")
	code, stdout, stderr = call(Search, "--json", luaErr, fine)
	objs = jsonLines(t, stdout)
	if code != ExitInvalid || len(objs) != 2 || objs[0]["file"] != luaErr || objs[1]["file"] != fine || objs[1]["violations"] == nil {
		t.Fatalf("exit %d, objects %v; want %d, the first file's error and the second's report\nstderr: %s", code, objs, ExitInvalid, stderr)
	}
	if line := strings.TrimSpace(stderr); strings.Count(line, luaErr) != 1 || !strings.Contains(line, "lua-error/acquire.lua:7") {
		t.Errorf("stderr %q: want the file named once and the Lua error's line", line)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestMissingVariantFile: a lesson naming a variant file that is not
// there is told so, naming the path, with no line or column of a file
// that does not exist (it was 1:1), in each language and in --json.
func TestMissingVariantFile(t *testing.T) {
	t.Parallel()
	lesson := writeFile(t, "m.lesson.yaml", "id: m\nvariant: ./nope.variant.yaml\nlease: 30s\nactors: [{id: A}]\nsteps:\n  - {actor: A, do: acquire}\n")
	missing := filepath.Join(filepath.Dir(lesson), "nope.variant.yaml")
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range sim.Locales {
		code, _, stderr := runCLI(t, "--lang", string(loc), lesson)
		if want := cat.Render(loc, sim.M("variant.not-found", "File", missing)); code != ExitInvalid || strings.TrimSpace(stderr) != want {
			t.Errorf("%s: exit %d, %q; want %q", loc, code, strings.TrimSpace(stderr), want)
		}
	}
	_, stdout, _ := runCLI(t, "--json", lesson)
	objs := jsonLines(t, stdout)
	if len(objs) != 1 {
		t.Fatalf("--json: %d objects", len(objs))
	}
	e := objs[0]["errors"].([]any)[0].(map[string]any)
	if e["file"] != missing || e["line"] != float64(0) || e["col"] != float64(0) {
		t.Errorf("--json error %v: want file %s with no line or column", e, missing)
	}
}

// TestSearchErrorNamesFileOnce: an error package search wraps twice
// ("search: F: search: F: ...", as expandNode's inside Run's) is said
// after the file's name once.
func TestSearchErrorNamesFileOnce(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	const f = "dir/x.search.yaml"
	cause := errors.New("store disagrees with the simulated clock")
	wrapped := fmt.Errorf("search: %s: %w", f, fmt.Errorf("search: %s: A acquire after 2 steps: %w", f, cause))
	if got, want := searchError(cat, sim.English, f, wrapped), f+": A acquire after 2 steps: "+cause.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
