package examples_test

import (
	"os"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

// TestNestedReacquireIsNoTakeover: under touch (reentry none, an extend
// that renews only a key still its own), A's lease runs out while A is
// paused, B takes the lock and lets it go, then A acquires again: a nested
// acquire to A's client, which finds the key gone and creates hold #3
// (ACQUIRED). A's extend at the next advance confirms hold #3, taken after
// B's hold ended: no unnoticed-takeover (the search at depth 8 once
// reported one there). A's belief across B's hold is overlapping-holders,
// at B's acquire. The same on both backends.
func TestNestedReacquireIsNoTakeover(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"touch.variant.yaml", "touch/acquire.lua", "touch/renew.lua", "touch/release.lua"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(mustRead(t, variantFile(f))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lesson := `variant: ./touch.variant.yaml
lease: 30s
lock: order:42
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: A, do: pause}
  - {do: advance, by: 31s}
  - {actor: A, do: resume}
  - {actor: B, do: acquire, expect: ACQUIRED, expect_violation: overlapping-holders}
  - {actor: B, do: release, expect: RELEASED}
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {do: advance, by: 31s}
`
	p := filepath.Join(dir, "l.yaml")
	if err := os.WriteFile(p, []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := sim.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, be := range backends(t) {
		frames, failures, err := run(t, be, l)
		if err != nil || len(failures) > 0 {
			t.Fatalf("%s: %v %v", be.Info(), err, failures)
		}
		renewed := false
		for i, f := range frames {
			for _, v := range f.Violations {
				if v.Name == sim.InvUnnoticedTakeover {
					t.Errorf("%s: step %d reports %s: %v", be.Info(), i, v.Name, v)
				}
			}
			for _, c := range f.Calls {
				if i == 8 && c.Outcome == sim.Renewed {
					renewed = true
				}
			}
		}
		if !renewed {
			t.Fatalf("%s: no renewal answered RENEWED at step 8; the check proves nothing", be.Info())
		}
		runs = append(runs, framesJSON(t, be, l))
	}
	if runs[0] != runs[1] {
		t.Error("the backends' frames differ")
	}
}
