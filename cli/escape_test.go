package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEscapeWriter: control characters, bidirectional overrides and bytes
// that are not UTF-8 come out escaped; newlines, tabs and CJK text as they
// are, also when a rune is split between two writes.
func TestEscapeWriter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain 中文\tok\n":         "plain 中文\tok\n",
		"\x1b]0;pwned\x07":       `\x1b]0;pwned\x07`,
		"a\rcheck ok\x1b[2J":     `a\x0dcheck ok\x1b[2J`,
		"\u009b31m \u202eevil":   `\x9b31m \u202eevil`,
		"bad \xff byte \x7f end": `bad \xff byte \x7f end`,
	} {
		if got := escapeString(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	w := newEscapeWriter(&b)
	cjk := []byte("鎖")
	w.Write(cjk[:1])
	w.Write(cjk[1:])
	if b.String() != "鎖" {
		t.Errorf("a rune split across writes: %q", b.String())
	}
}

// TestRunEscapesLessonText runs a lesson whose title, actor name and
// narration carry terminal escape sequences (a new window title, a cleared
// screen, a carriage return that overwrites the line with a forged check):
// no control character but newline and tab reaches the output.
func TestRunEscapesLessonText(t *testing.T) {
	t.Parallel()
	f := writeFile(t, "evil.yaml", `id: evil
title: "Evil\e]0;pwned\a title"
variant: token-count
lease: 30s
actors:
  - id: A
    name: "A\e[2J"
steps:
  - actor: A
    do: acquire
    expect: ACQUIRED
    say: "text\rcheck expect ACQUIRED: ok\e[K"
`)
	for _, lang := range []string{"en", "zh-TW"} {
		code, out, stderr := runCLI(t, f, "--lang", lang)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		for i, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("%s: control character %U at %d in:\n%s", lang, r, i, out)
			}
		}
		if !strings.Contains(out, `\x1b]0;pwned\x07`) || !strings.Contains(out, `\x0dcheck expect`) {
			t.Errorf("%s: the escapes are not shown:\n%s", lang, out)
		}
	}
}

// TestRunCancelled: a run stops within a second or two of its context's
// end (Ctrl-C in main), however large the lesson, with no keys left.
func TestRunCancelled(t *testing.T) {
	var y strings.Builder
	y.WriteString("id: big\nvariant: token-count\nlease: 30s\nfencing: true\nactors:\n  - id: A\nsteps:\n")
	for i := range 2000 {
		fmt.Fprintf(&y, "  - {actor: A, do: acquire, lock: l%d}\n", i)
	}
	f := writeFile(t, "big.yaml", y.String())
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, []string{f}, &out, &errOut) }()
	time.Sleep(500 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != ExitInvalid || !strings.Contains(errOut.String(), "context canceled") {
			t.Fatalf("exit %d, stderr %q", code, errOut.String())
		}
	// A hang, not a timing: a step ends at once on a cancelled context, and
	// a run that ignored it would end with 0 (the whole lesson), not with
	// "context canceled". The bound only has to pass a loaded machine's
	// -race run (CI saw 5 s passed once) and still end a hung test.
	case <-time.After(60 * time.Second):
		t.Fatal("the run went on for more than 60 s after its context ended")
	}
}
