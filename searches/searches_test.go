package searches

import (
	"slices"
	"testing"

	"lockstep/sim"
)

// Every variant has a search file, each of 2 or 3 actors.
func TestEveryVariantHasASearch(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	var variants []string
	for _, f := range all {
		variants = append(variants, f.Variant)
		if len(f.Actors) < 2 || len(f.Actors) > 3 {
			t.Errorf("%s: %d actors, want 2 or 3", f.Path, len(f.Actors))
		}
	}
	for _, v := range sim.Variants() {
		if !slices.Contains(variants, v) {
			t.Errorf("no search file for variant %s", v)
		}
	}
}
