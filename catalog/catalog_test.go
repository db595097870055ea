package catalog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"lockstep/internal/catalogtest"
	"lockstep/sim"
)

func TestRenderArgs(t *testing.T) {
	t.Parallel()
	c := catalogtest.New(t)
	if got, want := c.Locales(), []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("locales %v, want %v", got, want)
	}
	cases := []struct {
		loc  sim.Locale
		m    sim.Msg
		want string
	}{
		{sim.English, sim.M("violation.overlapping-holders", "Actors", sim.List{"A", "B", "C"}, "Lock", "order:42"),
			"A, B and C each believe they hold lock order:42, yet they run in different execution contexts: mutual exclusion is broken."},
		{sim.SimplifiedChinese, sim.M("violation.overlapping-holders", "Actors", sim.List{"A", "B"}, "Lock", "x"),
			"A、B 都以为自己持有锁 x，但它们属于不同的执行上下文：互斥已经失效。"},
		{sim.English, sim.M("violation.leaked-hold.at-end", "Actor", "A", "Holds", int64(1), "Token", "t1", "Lock", "l"),
			"The lesson ends while Redis still keeps 1 hold for A's token t1 on lock l."},
		{sim.English, sim.M("violation.leaked-hold.at-end", "Actor", "A", "Holds", int64(2), "Token", "t1", "Lock", "l"),
			"The lesson ends while Redis still keeps 2 holds for A's token t1 on lock l."},
		{sim.TraditionalChinese, sim.M("narration.advance", "By", sim.Millis(1500)), "過去了 1.5 秒。"},
		{sim.English, sim.M("narration.advance", "By", sim.Millis(800)), "800 ms pass."},
		{sim.English, sim.M("drill.title", "Level", sim.M("drill.level.leases.title"), "Seed", "7"), "Drill · Leases and fencing #7"},
		{sim.SimplifiedChinese, sim.M("explore.fork-title", "Title", sim.Text{sim.English: "E", sim.SimplifiedChinese: "中"}, "At", 3), "如果……会怎样：“中”第 3 步之后"},
		{sim.English, sim.M("no.such.message"), "⟦no.such.message⟧"},
	}
	for _, c2 := range cases {
		if got := c.Render(c2.loc, c2.m); got != c2.want {
			t.Errorf("%s %s: got %q, want %q", c2.loc, c2.m.ID, got, c2.want)
		}
	}
	for _, l := range c.Locales() {
		if miss := c.MissingIn(l); len(miss) > 0 {
			t.Errorf("%s lacks %d messages: %v", l, len(miss), miss)
		}
	}
}

// TestErrors renders the typed errors of the loader, the validator and
// explore in a locale, with their places.
func TestErrors(t *testing.T) {
	t.Parallel()
	c := catalogtest.New(t)
	_, err := sim.Load("x.yaml", []byte("variant: nope\nlease: 30s\nsteps: [{do: advance, by: 1s}]\n"))
	if got, want := c.Error(sim.SimplifiedChinese, err), "x.yaml:1:10: 未知的锁变体“nope”（可选："; !strings.HasPrefix(got, want) {
		t.Errorf("loader error in zh-CN: %q, want it to start with %q", got, want)
	}
	l := &sim.Lesson{Variant: "token-count", Lease: time.Second, Lock: "lock", Actors: []sim.ActorSpec{{ID: "A"}},
		Steps: []sim.Step{{Actor: "A", Do: sim.ActCrash, Lock: "lock"}, {Actor: "A", Do: sim.ActAcquire, Lock: "lock"}}}
	if got, want := c.Error(sim.TraditionalChinese, sim.Validate(l)), "第 2 步：參與者 A 已經例外結束，不能再執行任何步驟"; got != want {
		t.Errorf("validator error in zh-TW: %q, want %q", got, want)
	}
	// A library's own words (gopher-lua's, the YAML parser's) come quoted
	// in a sentence of the reader's language, the library not named to a
	// learner (a fresh review of issue 38: "goccy/go-yaml", "gopher-lua").
	lua := sim.M("variant.lua-error", "Script", "acquire", "Detail", "unexpected EOF", "AtEnd", true, "Near", "")
	if got, want := c.Render(sim.SimplifiedChinese, lua), "脚本 acquire 无法编译：脚本在语句写完之前就结束了。Lua 语法：“unexpected EOF”"; got != want {
		t.Errorf("Lua error in zh-CN: %q, want %q", got, want)
	}
	if got, want := c.Render(sim.English, lua), "script acquire does not compile: unexpected EOF at the end of the script"; got != want {
		t.Errorf("Lua error in en: %q, want %q", got, want)
	}
	near := sim.M("variant.lua-error", "Script", "acquire", "Detail", "syntax error", "AtEnd", false, "Near", "keys")
	if got, want := c.Render(sim.TraditionalChinese, near), "腳本 acquire 無法編譯，出錯處靠近「keys」。Lua 語法：「syntax error」"; got != want {
		t.Errorf("Lua error in zh-TW: %q, want %q", got, want)
	}
	_, err = sim.Load("y.yaml", []byte("variant: token-count\nlease: [30s\n"))
	if got := c.Error(sim.TraditionalChinese, err); !strings.HasPrefix(got, "y.yaml:2:") || !strings.Contains(got, ": YAML 語法：「") || strings.Contains(got, "go-yaml") {
		t.Errorf("YAML error in zh-TW: %q", got)
	}
	if got, want := c.Error(sim.English, errors.New("plain")), "plain"; got != want {
		t.Errorf("an error without a code: %q, want %q", got, want)
	}
}

// codedWrapper is Coded without a message of its own and wraps its cause,
// as a web protocol error does.
type codedWrapper struct{ cause error }

func (e codedWrapper) Error() string    { return "wrapper: " + e.cause.Error() }
func (e codedWrapper) Message() sim.Msg { return sim.Msg{} }
func (e codedWrapper) Unwrap() error    { return e.cause }

// TestErrorThroughCodedWrapper: a wrapper that is Coded without a message
// does not hide its cause's message, and Error gives the cause's words in
// the reader's language, not the Go error string.
func TestErrorThroughCodedWrapper(t *testing.T) {
	t.Parallel()
	c := catalogtest.New(t)
	child := sim.M("explore.step.child", "Max", 32)
	err := codedWrapper{cause: fmt.Errorf("inner: %w", coded{child})}
	if got, want := c.Error(sim.TraditionalChinese, err), c.Render(sim.TraditionalChinese, child); got != want {
		t.Errorf("zh-TW: %q, want %q", got, want)
	}
}

type coded struct{ m sim.Msg }

func (e coded) Error() string    { return "coded" }
func (e coded) Message() sim.Msg { return e.m }
