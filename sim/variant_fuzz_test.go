package sim_test

import (
	"errors"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

// FuzzLoadVariant feeds arbitrary bytes to the variant-file loader (scripts
// inline; no file access). Whatever the input, it must not panic, and it
// must return a variant that ValidateVariant accepts or LoadErrors whose
// every entry has a position, a message and a message code.
func FuzzLoadVariant(f *testing.F) {
	addFileSeeds(f, filepath.Join("variants", "*.variant.yaml"))
	f.Add([]byte(inlineVariant))
	noFiles := func(string) ([]byte, error) { return nil, errors.New("no files here") }
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := sim.LoadVariant("fuzz.variant.yaml", src, noFiles)
		checkLoadResult(t, "LoadVariant", d, err, sim.ValidateVariant)
	})
}
