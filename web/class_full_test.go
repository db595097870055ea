package web

import (
	"encoding/json"
	"testing"
)

// TestClassFollowerFullEvery: a following student gets a frame with chrome
// on joining, then frames without (panels and edits) for 100 moves
// (classserve's followerFullEvery), then one with chrome again.
func TestClassFollowerFullEvery(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 1)
	s, _ := student(t, hs, pm.Code, "")
	if _, ok := s.rawAwait(MsgFrame)["chrome"]; !ok {
		t.Fatal("the join's frame has no chrome")
	}
	const full = 100
	for move := 1; move <= full+1; move++ {
		typ, want := MsgStep, 2
		if move%2 == 0 {
			typ, want = MsgBack, 1
		}
		p.send(ClientMessage{Type: typ})
		p.rawAwait(MsgFrame)
		f := s.rawAwait(MsgFrame)
		var step int
		_ = json.Unmarshal(f["step"], &step)
		if step != want {
			t.Fatalf("move %d: student at %d, want %d", move, step, want)
		}
		if _, chrome := f["chrome"]; chrome != (move == full+1) {
			t.Fatalf("move %d: chrome %v", move, chrome)
		}
	}
}
