package search

import (
	"errors"
	"testing"

	"lockstep/sim"
)

// TestLockNameRuleIsSims: a search file's lock follows sim's lock-name rule
// (any text of 1 to 200 bytes without control characters), and a broken one
// carries sim's message code.
func TestLockNameRuleIsSims(t *testing.T) {
	f, err := Parse("f.yaml", []byte(goodHead+"lock: \"my lock {x}\"\n"))
	if err != nil || f.Lock != "my lock {x}" {
		t.Fatalf("lock \"my lock {x}\": %v, %+v", err, f)
	}
	_, err = Parse("f.yaml", []byte(goodHead+"lock: \"a\\tb\"\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Problem.ID != "lesson.lock-name" || es[0].Pos != (sim.Pos{Line: 4, Col: 7}) {
		t.Fatalf("lock with a tab: %#v", err)
	}
}
