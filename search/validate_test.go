package search

import (
	"strings"
	"testing"
	"time"

	"lockstep/catalog"
	"lockstep/internal/catalogtest"
	"lockstep/sim"
)

// A File built in code (the Search page's shape) goes through the same
// validator as a file: each problem names its field by path, has no
// position, and carries a code the catalogue renders in every locale.
func TestValidateShapeInCode(t *testing.T) {
	f := &File{
		Variant: "token-count", Lease: 30 * time.Second, Depth: 20,
		Actors:     []sim.ActorSpec{{ID: "A"}, {ID: "A"}},
		Moves:      []Move{MoveAcquire, "steal", MoveAcquire},
		Advance:    []time.Duration{1500 * time.Microsecond},
		Invariants: []string{},
	}
	errs := Validate(f)
	want := []string{"actors[2].id", "moves[2]", "moves[3]", "advance[1]", "depth", "invariants"}
	if len(errs) != len(want) {
		t.Fatalf("problems %v, want %d", errs, len(want))
	}
	cat := catalogtest.New(t)
	for i, e := range errs {
		if e.Path != want[i] || e.Pos != (sim.Pos{}) || e.Problem.ID == "" {
			t.Errorf("problem %d: %+v, want path %s, no position, a code", i+1, e, want[i])
		}
		for _, l := range sim.Locales {
			if s := cat.Problem(l, e); strings.Contains(s, catalog.Missing) || s == "" {
				t.Errorf("problem %d in %s: %q", i+1, l, s)
			}
		}
	}
	if s := cat.Problem(sim.SimplifiedChinese, errs[4]); s != "depth：需要 1 到 16 步，实际是 20" {
		t.Errorf("depth in zh-CN: %q", s)
	}
	// A valid shape built in code has no problem; its missing fields are
	// the format's defaults.
	ok := &File{Variant: "token-count", Lease: 30 * time.Second, Actors: []sim.ActorSpec{{ID: "A"}}}
	if errs := Validate(ok); len(errs) != 0 {
		t.Errorf("valid shape: %v", errs)
	}
	if errs := Validate(&File{}); len(errs) != 3 {
		t.Errorf("empty shape: %v, want variant, lease and actors missing", errs)
	}
}
