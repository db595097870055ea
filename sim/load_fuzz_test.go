package sim_test

import (
	"errors"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

// FuzzLoad feeds arbitrary bytes to the lesson loader. Whatever the input,
// Load must not panic, and it must either return a lesson that Validate
// accepts or a LoadErrors whose every entry has a real position, a message
// and a message code for the catalogue.
func FuzzLoad(f *testing.F) {
	addFileSeeds(f, filepath.Join("..", "lessons", "*.yaml"))
	f.Add([]byte(specExample))

	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := sim.Load("fuzz.yaml", src)
		checkLoadResult(t, "Load", l, err, sim.Validate)
		if err == nil {
			return
		}
		if l != nil {
			t.Fatalf("Load returned a lesson together with an error: %v", err)
		}
		if !errors.Is(err, sim.ErrInvalidLesson) {
			t.Fatalf("error does not wrap ErrInvalidLesson: %v", err)
		}
	})
}
