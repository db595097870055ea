package sim_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

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

// FuzzLoad feeds arbitrary bytes to the lesson loader. Whatever the input,
// Load must not panic, and it must either return a lesson that Validate
// accepts or a LoadErrors whose every entry has a real position, a message
// and a message code for the catalogue.
func FuzzLoad(f *testing.F) {
	addFileSeeds(f, filepath.Join("..", "lessons", "*.yaml"))
	f.Add([]byte(specExample))

	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := sim.Load("fuzz.yaml", src)
		if err == nil {
			if l == nil {
				t.Fatal("Load returned neither a lesson nor an error")
			}
			if verr := sim.Validate(l); verr != nil {
				t.Fatalf("Load accepted a lesson that Validate rejects:\n%v", verr)
			}
			return
		}
		if l != nil {
			t.Fatalf("Load returned a lesson together with an error: %v", err)
		}
		var errs sim.LoadErrors
		if !errors.As(err, &errs) {
			t.Fatalf("error is %T, not sim.LoadErrors: %v", err, err)
		}
		if !errors.Is(err, sim.ErrInvalidLesson) {
			t.Fatalf("error does not wrap ErrInvalidLesson: %v", err)
		}
		if len(errs) == 0 {
			t.Fatal("empty LoadErrors")
		}
		for _, e := range errs {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" || e.Problem.ID == "" {
				t.Errorf("bad entry %#v", e)
			}
		}
	})
}
