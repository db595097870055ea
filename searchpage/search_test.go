package searchpage

import (
	"errors"
	"slices"
	"testing"
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
