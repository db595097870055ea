package ownlock

import (
	"testing"
)

// TestEmptyForm: the empty form has a slot per script. (What the course
// table lists as broken is explore.BrokenUnder, tested in explore.)
func TestEmptyForm(t *testing.T) {
	t.Parallel()
	if f := EmptyForm(); len(f.Scripts) != maxLockScripts || f.Variant != "" {
		t.Fatalf("empty form %+v", f)
	}
}
