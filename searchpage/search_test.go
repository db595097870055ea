package searchpage

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"lockstep/sim"
)

// TestShapeFile: a shape is built on its variant's course search file, and
// a bad one is a bad-search Error naming its fields.
func TestShapeFile(t *testing.T) {
	t.Parallel()
	f, err := ShapeFile(&Request{Variant: "token-count", Actors: 3, Depth: 4})
	if err != nil || len(f.Actors) != 3 || f.Depth != 4 || f.Variant != "token-count" {
		t.Fatalf("shape: %+v %v", f, err)
	}
	_, err = ShapeFile(&Request{Variant: "token-count", Depth: 99, Moves: []string{}})
	var e *Error
	if !errors.As(err, &e) || e.ErrorCode() != ErrCodeBadSearch || !slices.Contains(e.Fields, "depth") || !slices.Contains(e.Fields, "moves") {
		t.Fatalf("bad shape: %v (%+v)", err, e)
	}
	links := LessonSearches()
	for id := range links {
		delete(links, id)
	}
	if len(LessonSearches()) == 0 {
		t.Fatal("LessonSearches is not a copy")
	}
}

// TestLockShapeAsksUnnoticedTakeover: a search of a learner's own lock
// that renews (touch, examples/variants) asks by default for
// unnoticed-takeover beside the base file's invariants, which only a
// renewal can break; one without a renew section (the same lock, its
// renew section dropped) does not, and invariants the page sends are
// taken as sent.
func TestLockShapeAsksUnnoticedTakeover(t *testing.T) {
	t.Parallel()
	def, err := sim.LoadVariantFile(filepath.Join("..", "examples", "variants", "touch.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := shapeFileOn(&Request{Variant: def.Name}, def)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(sim.DefaultSearchInvariants), sim.InvUnnoticedTakeover)
	if !slices.Equal(f.Invariants, want) {
		t.Fatalf("renewing lock: invariants %v, want %v", f.Invariants, want)
	}
	plain := *def
	plain.Renew = nil
	if f, err = shapeFileOn(&Request{Variant: def.Name}, &plain); err != nil || !slices.Equal(f.Invariants, sim.DefaultSearchInvariants) {
		t.Fatalf("lock without renewal: invariants %v (%v), want %v", f.Invariants, err, sim.DefaultSearchInvariants)
	}
	asked := []string{sim.InvStaleWrite}
	if f, err = shapeFileOn(&Request{Variant: def.Name, Invariants: asked}, def); err != nil || !slices.Equal(f.Invariants, asked) {
		t.Fatalf("invariants sent: got %v (%v), want %v", f.Invariants, err, asked)
	}
}
