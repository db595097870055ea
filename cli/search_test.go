package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"lockstep/internal/redistest"
)

func searchCLI(t *testing.T, args ...string) (int, string, string) { return call(Search, args...) }

const searchTokenCount = `variant: token-count
lease: 30s
actors: [{id: A}, {id: B}]
moves: [acquire, release, write, pause, resume, crash]
advance: [31s]
depth: 5
`

const searchInstanceOwner = `variant: instance-owner
lease: 10s
actors: [{id: A, instance: svc-1}, {id: B, instance: svc-1}]
moves: [acquire, release, crash]
depth: 3
`

// Every lesson --out writes replays with lockstep run, exit 0, on the
// embedded Redis and on a real redis-server.
func TestSearchOutReplaysOnBothBackends(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	tc := writeFile(t, "tc.yaml", searchTokenCount)
	io := writeFile(t, "io.yaml", searchInstanceOwner)
	code, out, errOut := searchCLI(t, tc, io, "--out", dir)
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (invariants broken)\n%s\n%s", code, ExitFailed, out, errOut)
	}
	written, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	sort.Strings(written)
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	want := []string{"io.count-mismatch.yaml", "io.leaked-hold.yaml", "io.overlapping-holders.yaml", "io.wrong-owner-release.yaml",
		"tc.leaked-hold.yaml", "tc.overlapping-holders.yaml", "tc.stale-write.yaml"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("wrote %v, want %v", names, want)
	}
	for _, args := range [][]string{written, append(append([]string{}, written...), "--redis", srv.URL)} {
		if code, out, errOut := runCLI(t, args...); code != ExitOK {
			t.Errorf("lockstep run %v: exit %d\n%s\n%s", args[len(args)-1], code, out, errOut)
		}
	}
	// The same search on the real Redis writes the same lessons.
	dir2 := t.TempDir()
	code, out, errOut = searchCLI(t, tc, io, "--out", dir2, "--redis", srv.URL, "--lang", "zh-CN")
	if code != ExitFailed {
		t.Fatalf("real Redis: exit %d\n%s", code, errOut)
	}
	// The report names the real Redis in its language.
	if header, _, _ := strings.Cut(out, "\n"); !strings.Contains(header, " 上的 Redis ") || strings.Contains(header, " at ") {
		t.Errorf("zh-CN header %q: want the real Redis named in zh-CN", header)
	}
	for _, p := range written {
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dir2, filepath.Base(p)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs on the real Redis (%v)", filepath.Base(p), err)
		}
	}
}

func TestSearchExitCodesAndReport(t *testing.T) {
	t.Parallel()
	fenced := writeFile(t, "fenced.yaml", "variant: token-count\nlease: 30s\nfencing: true\nactors: [{id: A}, {id: B}]\ndepth: 4\ninvariants: [stale-write]\n")
	code, out, errOut := searchCLI(t, fenced)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[1] != "stale-write: none within depth 4" || !strings.Contains(lines[2], " states, ") {
		t.Errorf("report:\n%s", out)
	}
	if !strings.HasSuffix(lines[0], " · embedded Redis (miniredis)") {
		t.Errorf("header %q: want the backend named last", lines[0])
	}
	code, out, _ = searchCLI(t, fenced, "--lang", "zh-TW")
	if code != ExitOK || !strings.Contains(out, "stale-write：深度 4 以內沒有") {
		t.Errorf("zh-TW report (exit %d):\n%s", code, out)
	}
	// The backend is named in the report's language too.
	if header, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(header, " · 內嵌 Redis（miniredis）") {
		t.Errorf("zh-TW header %q: want the backend in zh-TW", header)
	}
	bad := writeFile(t, "bad.yaml", "variant: token-count\nlease: 0s\nactors: [{id: A}]\nmoves: [steal]\n")
	code, _, errOut = searchCLI(t, bad, fenced)
	want := bad + ":2:8: lease: duration must be greater than zero, got 0s\n" + bad + `:4:9: moves: unknown move "steal"`
	if code != ExitInvalid || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and\n%s", code, errOut, want)
	}
	if code, _, errOut := searchCLI(t, fenced, "--redis", "redis://127.0.0.1:1/0"); code != ExitInvalid || !strings.Contains(errOut, "127.0.0.1:1") {
		t.Errorf("unreachable Redis: exit %d, stderr %s", code, errOut)
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	if code, _, errOut := searchCLI(t, missing); code != ExitInvalid || !strings.Contains(errOut, missing+": cannot read the search file: no such file") {
		t.Errorf("missing file: exit %d, stderr %s", code, errOut)
	}
	if code, _, _ := searchCLI(t, fenced, "--lang", "fr"); code != ExitInvalid {
		t.Errorf("--lang fr: exit %d", code)
	}
}

func TestSearchJSON(t *testing.T) {
	t.Parallel()
	io := writeFile(t, "io.yaml", searchInstanceOwner)
	code, out, errOut := searchCLI(t, "--json", io)
	if code != ExitFailed {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var got struct {
		File        string `json:"file"`
		Variant     string `json:"variant"`
		Depth       int    `json:"depth"`
		Complete    *bool  `json:"complete"`
		End         string `json:"end"`
		States      int    `json:"states"`
		Transitions int    `json:"transitions"`
		ScriptCalls int    `json:"script_calls"`
		Violations  map[string]*struct {
			Steps  int    `json:"steps"`
			Lesson string `json:"lesson"`
		} `json:"violations"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.File != io || got.Variant != "instance-owner" || got.Depth != 3 || got.Complete == nil || got.End != "complete" || got.States < 2 || got.Transitions < got.States-1 || got.ScriptCalls == 0 {
		t.Errorf("report %+v", got)
	}
	if len(got.Violations) != 5 || got.Violations["stale-write"] != nil {
		t.Errorf("violations %v: want all five keys, stale-write null (no write move)", got.Violations)
	}
	if v := got.Violations["overlapping-holders"]; v == nil || v.Steps != 2 || !strings.Contains(v.Lesson, "expect_violation: overlapping-holders") {
		t.Errorf("overlapping-holders: %+v", v)
	}
}

// searchInvalidZhCN writes body to a file called name, searches it with
// --lang zh-CN and returns the file's path and what was printed on stderr;
// the test fails unless the exit code is ExitInvalid.
func searchInvalidZhCN(t *testing.T, name, body string) (string, string) {
	t.Helper()
	bad := writeFile(t, name, body)
	code, _, errOut := searchCLI(t, "--lang", "zh-CN", bad)
	if code != ExitInvalid {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	return bad, errOut
}

// TestSearchFileErrorsInLang: a search file's problem that has a message
// code is printed in the --lang language, placed FILE:LINE:COL.
func TestSearchFileErrorsInLang(t *testing.T) {
	bad, errOut := searchInvalidZhCN(t, "lock.yaml", "variant: token-count\nlease: 30s\nactors: [{id: A}]\nlock: \"a\\tb\"\n")
	if !strings.HasPrefix(errOut, bad+":4:7: ") || strings.Contains(errOut, "a lock name") {
		t.Errorf("stderr %q: want the lock-name rule in zh-CN at %s:4:7", errOut, bad)
	}
}

// TestSearchLibraryErrorsInLang: the YAML parser's own words (English)
// come quoted inside a sentence in the --lang language.
func TestSearchLibraryErrorsInLang(t *testing.T) {
	bad, errOut := searchInvalidZhCN(t, "broken.yaml", "variant: token-count\nlease: [30s\n")
	if !strings.HasPrefix(errOut, bad+":") || !strings.Contains(errOut, "YAML 语法：“") || strings.Contains(errOut, "go-yaml") || !strings.HasSuffix(strings.TrimSpace(errOut), "”") {
		t.Errorf("stderr %q: want a zh-CN sentence quoting the parser", errOut)
	}
}

// TestSearchShapeErrorsInLang: the shape rules of search/validate.go come
// as codes, so --lang zh-CN prints them in Chinese, each at its place.
func TestSearchShapeErrorsInLang(t *testing.T) {
	bad, errOut := searchInvalidZhCN(t, "shape.yaml", "variant: token-count\nlease: 30s\nactors: [{id: A}]\ndepth: 17\nmoves: [acquire, steal]\n")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := []string{bad + ":4:8: depth：需要 1 到 16 步，实际是 17", bad + ":5:18: moves：未知的动作“steal”"}
	if len(lines) != len(want) {
		t.Fatalf("stderr %q: want %d lines", errOut, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], w)
		}
	}
}

// TestSearchOutNamesVariantFromLesson: a search file that names a variant
// file relative to itself writes lessons (--out elsewhere) that name it
// relative to themselves, and they run.
func TestSearchOutNamesVariantFromLesson(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../examples/variants/redisson-rlock-broken.search.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "found")
	code, stdout, errOut := searchCLI(t, root, "--out", out)
	if code != ExitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	written, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(written) == 0 {
		t.Fatal("no lesson written")
	}
	for _, p := range written {
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), "variant: ../") && !strings.Contains(string(b), `variant: "../`) {
			t.Errorf("%s names its variant file %q", filepath.Base(p), strings.SplitN(strings.SplitN(string(b), "variant: ", 2)[1], "\n", 2)[0])
		}
		if code, o, e := runCLI(t, p); code != ExitOK {
			t.Errorf("lockstep run %s: exit %d\n%s\n%s", filepath.Base(p), code, o, e)
		}
	}
}
