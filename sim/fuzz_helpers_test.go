package sim_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

// The helpers of the loaders' fuzz tests (FuzzLoad, FuzzLoadVariant).

// addFileSeeds adds the contents of every file that pattern (a
// filepath.Glob pattern) matches to f's seed corpus; no file, or one that
// cannot be read, fails the fuzz test.
func addFileSeeds(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match %s: %v", pattern, err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
}

// checkLoadResult checks what loader (named in failures: "Load",
// "LoadVariant") answered to arbitrary input: with a nil err, a value v
// that validate accepts; otherwise a non-empty sim.LoadErrors whose every
// entry has a position, a message and a message code.
func checkLoadResult[T any](t *testing.T, loader string, v *T, err error, validate func(*T) error) {
	t.Helper()
	if err == nil {
		if v == nil {
			t.Fatalf("%s returned neither a value nor an error", loader)
		}
		if verr := validate(v); verr != nil {
			t.Fatalf("%s accepted what its validator rejects:\n%v", loader, verr)
		}
		return
	}
	var es sim.LoadErrors
	if !errors.As(err, &es) || len(es) == 0 {
		t.Fatalf("%s: want a non-empty sim.LoadErrors, got %T %v", loader, err, err)
	}
	for _, e := range es {
		if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" || e.Problem.ID == "" {
			t.Errorf("%s: problem without a position, message or code: %#v", loader, e)
		}
	}
}
