package sim_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"lockstep/sim"
)

// unknownKeys returns a lesson with n unknown top-level keys after a valid
// head.
func unknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteString("variant: token-count\nlease: 30s\nsteps: [{do: advance, by: 1s}]\n")
	for i := range n {
		fmt.Fprintf(&b, "k%d: v\n", i)
	}
	return []byte(b.String())
}

// TestLoadRefusesTooManyKeys: a file with more mapping keys than any lesson
// needs is refused on the token stream, before the (quadratic) parse, with
// one problem (issue 17, hardening finding 6).
func TestLoadRefusesTooManyKeys(t *testing.T) {
	_, err := sim.Load("t.yaml", unknownKeys(25000))
	var les sim.LoadErrors
	if !errors.As(err, &les) || len(les) != 1 || les[0].Problem.ID != "lesson.too-many-keys" {
		t.Fatalf("25,000 keys: %.300v", err)
	}
	if _, les := sim.ParseYAMLMapping(unknownKeys(25000), 1<<20, "search file"); len(les) != 1 || les[0].Problem.ID != "lesson.too-many-keys" {
		t.Fatalf("ParseYAMLMapping, 25,000 keys: %.300v", les)
	}
}

// TestLoadCapsProblems: a file with many problems reports the first 50 and
// a last line with how many more.
func TestLoadCapsProblems(t *testing.T) {
	_, err := sim.Load("t.yaml", unknownKeys(120))
	var les sim.LoadErrors
	if !errors.As(err, &les) || len(les) != 51 {
		t.Fatalf("120 unknown keys: %d problems, want 51", len(les))
	}
	if last := les[50]; last.Problem.ID != "lesson.more-problems" || last.Problem.Args["N"] != 70 || last.Msg != "and 70 more problems" {
		t.Fatalf("last problem %+v", last)
	}
}
