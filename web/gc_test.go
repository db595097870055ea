package web

import (
	"flag"
	"runtime/debug"
	"strings"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// applyGCFlags parses args as a command's GC flags and applies them.
func applyGCFlags(t *testing.T, args ...string) func() {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	g := AddGCFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	restore, err := g.Apply()
	if err != nil {
		t.Fatal(err)
	}
	return restore
}

// TestGCFlags: the flags' defaults apply unless GOGC or GOMEMLIMIT is set;
// a flag given wins over the environment; restore puts back what it found;
// bad values are refused, naming the flag.
func TestGCFlags(t *testing.T) {
	before, beforeLimit := gcPercent(), debug.SetMemoryLimit(-1)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := applyGCFlags(t)
	if gcPercent() != DefaultGCPercent || debug.SetMemoryLimit(-1) != DefaultMemoryLimit {
		t.Errorf("defaults not applied: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Fatalf("restore left GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	t.Setenv("GOGC", "250")
	t.Setenv("GOMEMLIMIT", "512MiB")
	restore = applyGCFlags(t)
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Errorf("the environment's settings were overridden: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	restore = applyGCFlags(t, "-gc-percent", "300", "-memory-limit", "0")
	if gcPercent() != 300 || debug.SetMemoryLimit(-1) <= 1<<62 {
		t.Errorf("flags given did not win: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Fatalf("restore left GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	// Collection switched off (GOGC=off) is put back too.
	debug.SetGCPercent(-1)
	restore = applyGCFlags(t, "-gc-percent", "300")
	restore()
	if p := gcPercent(); p != -1 {
		t.Errorf("restore after GOGC=off left GOGC %d", p)
	}
	debug.SetGCPercent(before)
	for _, args := range [][]string{{"-gc-percent", "0"}, {"-memory-limit", "-1"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		g := AddGCFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Apply(); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: error %v does not name the flag", args, err)
		}
	}
}

// TestMemoBounded: a memo never holds more than its bound.
func TestMemoBounded(t *testing.T) {
	m := memo{max: 10}
	for i := range 1000 {
		m.Store(i, i)
	}
	n := 0
	m.m.Range(func(_, _ any) bool { n++; return true })
	if n > 10 || n == 0 {
		t.Fatalf("memo holds %d entries, bound 10", n)
	}
	if v, ok := m.Load(999); !ok || v != 999 {
		t.Fatalf("the last entry stored is gone: %v %v", v, ok)
	}
}
