package web

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGCFromFlags: the flags' defaults apply unless GOGC or GOMEMLIMIT
// is set; a flag given wins over the environment; restore puts back what it
// found.
func TestTuneGCFromFlags(t *testing.T) {
	before, beforeLimit := gcPercent(), debug.SetMemoryLimit(-1)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := TuneGCFromFlags(DefaultGCPercent, false, DefaultMemoryLimit, false)
	if gcPercent() != DefaultGCPercent || debug.SetMemoryLimit(-1) != DefaultMemoryLimit {
		t.Errorf("defaults not applied: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Fatalf("restore left GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	t.Setenv("GOGC", "250")
	t.Setenv("GOMEMLIMIT", "512MiB")
	restore = TuneGCFromFlags(DefaultGCPercent, false, DefaultMemoryLimit, false)
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Errorf("the environment's settings were overridden: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	restore = TuneGCFromFlags(300, true, 0, true)
	if gcPercent() != 300 || debug.SetMemoryLimit(-1) <= 1<<62 {
		t.Errorf("flags given did not win: GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	restore()
	if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
		t.Fatalf("restore left GOGC %d, limit %d", gcPercent(), debug.SetMemoryLimit(-1))
	}
	// Collection switched off (GOGC=off) is put back too.
	debug.SetGCPercent(-1)
	restore = TuneGCFromFlags(300, true, 0, false)
	restore()
	if p := gcPercent(); p != -1 {
		t.Errorf("restore after GOGC=off left GOGC %d", p)
	}
	debug.SetGCPercent(before)
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
