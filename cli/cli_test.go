package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
)

// command is the signature of Run, Search and Doctor.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// call runs cmd with args and returns its exit code, stdout and stderr.
func call(cmd command, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cmd(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func runCLI(t *testing.T, args ...string) (int, string, string) { return call(Run, args...) }

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunLessonsEmbeddedAndReal(t *testing.T) {
	files := lessontest.Files(t)
	code, emb, stderr := runCLI(t, files...)
	if code != ExitOK {
		t.Fatalf("embedded: exit %d\n%s", code, stderr)
	}
	srv := redistest.Start(t)
	code, real, stderr := runCLI(t, append([]string{"--redis", srv.URL}, files...)...)
	if code != ExitOK {
		t.Fatalf("real: exit %d\n%s", code, stderr)
	}
	strip := func(s string) string { // headers name the backend
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "### ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(emb) != strip(real) {
		t.Fatal("embedded and real frames differ")
	}
	if !strings.Contains(real, "Redis ") || !strings.Contains(emb, "embedded Redis") {
		t.Error("headers do not name the backend")
	}
}

func TestRunFlagsAnywhereJSONAndLang(t *testing.T) {
	t.Parallel()
	files := lessontest.Files(t)
	code, out, stderr := runCLI(t, files[0], "--json", "--lang", "zh-CN")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Lesson string `json:"lesson"`
		Frames []struct {
			Index int               `json:"index"`
			Say   map[string]string `json:"say"`
		} `json:"frames"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output is not one JSON object per lesson: %v", err)
	}
	if doc.Lesson == "" || len(doc.Frames) < 2 || doc.Frames[1].Say["zh-CN"] == "" {
		t.Fatalf("unexpected JSON: %+v", doc)
	}
	code, out, _ = runCLI(t, "--lang", "zh-TW", files[0])
	if code != ExitOK || !strings.Contains(out, "鎖") {
		t.Fatalf("--lang zh-TW: exit %d, no Traditional Chinese narration", code)
	}
	if code, _, stderr := runCLI(t, files[0], "--lang", "fr"); code != ExitInvalid || !strings.Contains(stderr, "--lang") {
		t.Fatalf("--lang fr: exit %d, %s", code, stderr)
	}
}

// TestRunJSONViolationText: --json keeps each violation's message code and
// fills its text in the --lang language (sim/frame.go's Violation.Detail).
func TestRunJSONViolationText(t *testing.T) {
	var stale string
	for _, f := range lessontest.Files(t) {
		if strings.HasSuffix(f, "03a-stale-owner.yaml") {
			stale = f
		}
	}
	code, out, stderr := runCLI(t, stale, "--json", "--lang", "zh-TW")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Frames []struct {
			Violations []struct {
				Name   string `json:"name"`
				Detail struct {
					ID   string         `json:"id"`
					Args map[string]any `json:"args"`
					Text string         `json:"text"`
				} `json:"detail"`
			} `json:"violations"`
		} `json:"frames"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, f := range doc.Frames {
		for _, v := range f.Violations {
			seen = true
			if !strings.HasPrefix(v.Detail.ID, "violation."+v.Name) || len(v.Detail.Args) == 0 || !strings.Contains(v.Detail.Text, "鎖") {
				t.Errorf("violation %s: detail %+v", v.Name, v.Detail)
			}
		}
	}
	if !seen {
		t.Fatal("the stale-owner lesson reported no violation")
	}
}

func TestRunFailedExpectation(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.yaml", `variant: token-count
lease: 30s
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: B, do: acquire, expect: ACQUIRED}
  - actor: B
    do: release
    expect_violation: wrong-owner-release
`)
	code, _, stderr := runCLI(t, p)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"FAIL " + p + ":6: step 2: want ACQUIRED, got BUSY", "FAIL " + p + ":7: step 3: expected violation wrong-owner-release not reported (reported: leaked-hold)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, out, stderr := runCLI(t, "--lang", "zh-CN", p)
	if code != ExitFailed {
		t.Fatalf("zh-CN: exit %d, want 1\n%s", code, stderr)
	}
	if want := "FAIL " + p + ":6：第 2 步：期望 ACQUIRED，实际 BUSY"; !strings.Contains(stderr, want) {
		t.Errorf("zh-CN stderr lacks %q:\n%s", want, stderr)
	}
	// The check line names only what failed: the outcome, not an empty
	// list of missing violations.
	if want := "check expect ACQUIRED: FAILED (want ACQUIRED, got BUSY)"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if want := "内嵌 Redis（miniredis）"; !strings.Contains(out, want) {
		t.Errorf("zh-CN header lacks %q:\n%s", want, out)
	}
}

// TestRunStepOverLimit: a step refused by a bound (sim.LimitError) is named
// by its number, in the --lang language, with the bound in plain words and
// no package prefixes.
func TestRunStepOverLimit(t *testing.T) {
	p := writeFile(t, "long.yaml", `variant: watchdog
lease: 30s
actors: [{id: A}]
steps:
  - {actor: A, do: acquire}
  - {do: advance, by: 24h}
`)
	for _, tc := range []struct{ lang, want string }{
		{"en", "lockstep: " + p + ": step 2 (advance) could not run: the step would make the watchdog renew a lease at least 8640 times, more than the 1000 renewals one step may run"},
		{"zh-CN", "lockstep: " + p + "：第 2 步（advance）无法运行：这一步会让看门狗续期至少 8640 次，超过一步最多可做的 1000 次续期"},
	} {
		code, _, stderr := runCLI(t, "--lang", tc.lang, p)
		if code != ExitInvalid {
			t.Fatalf("%s: exit %d, want 2\n%s", tc.lang, code, stderr)
		}
		if !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "sim:") {
			t.Errorf("%s: stderr\n%s\nwant it to hold %q and no \"sim:\"", tc.lang, stderr, tc.want)
		}
	}
}

// TestRunInvalidFile: the loader's problems come as FILE:LINE:COL: message,
// one per line, in the --lang language; a file that cannot be read is named
// with the reason.
func TestRunInvalidFile(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "bad.yaml", `variant: token-count
lease: 0s
actors: [{id: A}]
steps:
  - {actor: Z, do: acquire}
  - {actor: A, do: jump}
`)
	actions := "acquire, release, write, pause, resume, crash, fork, advance, finish-release, exit, clock-jump, failover, long-script, restart, finish-write"
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"en", []string{
			p + `:2:8: lease: duration must be greater than zero, got 0s`,
			p + `:5:13: unknown actor "Z" (declare it under actors, or create it with fork)`,
			p + `:6:20: unknown action "jump" (want one of ` + actions + `)`,
		}},
		{"zh-CN", []string{
			p + ":2:8: lease：时长必须大于零，实际是 0s",
			p + ":5:13: 未知的参与者 Z（请在 actors 中声明，或用 fork 创建）",
			p + ":6:20: 未知的动作“jump”（可选：" + actions + "）",
		}},
	} {
		code, out, stderr := runCLI(t, p, "--lang", c.lang)
		if code != ExitInvalid || out != "" {
			t.Fatalf("%s: exit %d, stdout %q", c.lang, code, out)
		}
		if got := strings.Split(strings.TrimSpace(stderr), "\n"); !slices.Equal(got, c.want) {
			t.Errorf("%s: stderr:\n%s\nwant:\n%s", c.lang, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
	if code, _, stderr := runCLI(t, filepath.Join(t.TempDir(), "none.yaml"), "--lang", "zh-TW"); code != ExitInvalid || !strings.Contains(stderr, "無法讀取課程檔案") {
		t.Errorf("a missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestRunUnreachableRedis(t *testing.T) {
	files := lessontest.Files(t)
	code, _, stderr := runCLI(t, "--redis", "redis://127.0.0.1:1", files[0])
	if code != ExitInvalid || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, _ := runCLI(t); code != ExitInvalid {
		t.Fatalf("no files: exit %d", code)
	}
}

func TestLessonsList(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := Lessons(nil, &out, &errOut); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, id := range []string{"nested-reentry", "missed-release", "stale-owner"} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("lessons list lacks %s:\n%s", id, out.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if code := Lessons([]string{"my.yaml"}, &out, &errOut); code != ExitInvalid || out.Len() > 0 || !strings.Contains(errOut.String(), `unexpected argument "my.yaml"`) {
		t.Errorf("lessons with a file: exit %d, stdout %q, stderr %q; want a usage error", code, out.String(), errOut.String())
	}
}

// TestRunJSONInvalidFile: with --json, a file that cannot be loaded is one
// JSON object on stdout, each problem placed by line and column, exit 2.
func TestRunJSONInvalidFile(t *testing.T) {
	p := writeFile(t, "bad.yaml", "variant: token-count\nlease: 0s\nsteps: [{do: advance, by: 1s}]\n")
	code, out, stderr := runCLI(t, "--json", "--lang", "zh-TW", p)
	if code != ExitInvalid {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	var got struct {
		File   string `json:"file"`
		Errors []struct {
			Line, Col     int
			Path, Message string
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is no JSON object: %v\n%s", err, out)
	}
	if got.File != p || len(got.Errors) != 1 || got.Errors[0].Line != 2 || got.Errors[0].Col != 8 || got.Errors[0].Path != "lease" || got.Errors[0].Message == "" {
		t.Fatalf("got %+v", got)
	}
}

// TestRunJSONVariantFileError: a problem in the variant file a lesson names
// is placed in that file, not in the lesson (their lines differ).
func TestRunJSONVariantFileError(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../examples/variants/redisson-rlock.variant.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "  script: redisson-rlock/acquire.lua\n  keys: [lock]", "  script: redisson-rlock/acquire.lua\n  keys: [lock, bogus]", 1)
	if bad == string(src) {
		t.Fatal("the example's acquire keys moved; update the test")
	}
	if err := os.CopyFS(filepath.Join(dir, "redisson-rlock"), os.DirFS("../examples/variants/redisson-rlock")); err != nil {
		t.Fatal(err)
	}
	variant := filepath.Join(dir, "my.variant.yaml")
	if err := os.WriteFile(variant, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	lesson := filepath.Join(dir, "my-lesson.yaml")
	body := "variant: ./my.variant.yaml\nlease: 30s\nactors: [{id: A}]\nsteps: [{actor: A, do: acquire}]\n"
	if err := os.WriteFile(lesson, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "--json", lesson)
	if code != ExitInvalid {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	var got struct {
		File   string `json:"file"`
		Errors []struct {
			File      string
			Line, Col int
			Path      string
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is no JSON object: %v\n%s", err, out)
	}
	if got.File != lesson || len(got.Errors) != 1 || got.Errors[0].File != variant || got.Errors[0].Line != 15 || got.Errors[0].Path != "acquire.keys" {
		t.Fatalf("got %+v, want one problem in %s at line 15 (acquire.keys)", got, variant)
	}
}
