package explore_test

import (
	"context"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// TestNarrateAcquireAdditions checks the narration of an acquire whose
// reply is lost and of seed 001's nested_acquire without a token: their
// own messages, not a release's or the generic one.
func TestNarrateAcquireAdditions(t *testing.T) {
	t.Parallel()
	l, err := sim.Load("a.yaml", []byte(`
variant: token-count
lease: 30s
actors: [{id: A}]
steps:
  - {actor: A, do: acquire, nested: true}
  - {actor: A, do: acquire, reply_lost: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := sim.RunFrames(context.Background(), l, refmodel.Open)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"narration.nested-no-token", "narration.timed-out-acquire"} {
		if m := explore.Narrate(l, &l.Steps[i], frames[i], frames[i+1]); m.ID != want {
			t.Errorf("step %d: narrated as %s, want %s", i+1, m.ID, want)
		}
	}
}
