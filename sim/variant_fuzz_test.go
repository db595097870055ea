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
		if err == nil {
			if d == nil {
				t.Fatal("LoadVariant returned neither a variant nor an error")
			}
			if verr := sim.ValidateVariant(d); verr != nil {
				t.Fatalf("LoadVariant accepted a variant that ValidateVariant rejects:\n%v", verr)
			}
			return
		}
		var es sim.LoadErrors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("want LoadErrors, got %T %v", err, err)
		}
		for _, e := range es {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" || e.Problem.ID == "" {
				t.Fatalf("problem without a position, message or code: %#v", e)
			}
		}
	})
}
