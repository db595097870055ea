package view

import (
	"slices"
	"testing"

	"lockstep/sim"
)

// TestReplyBranchOneLine: token-count's acquire tags two returns ACQUIRED,
// one with the fencing token (an array) and one without (a string); the
// Lua panel marks the one whose return fits the reply.
func TestReplyBranchOneLine(t *testing.T) {
	s := sim.ScriptByName("token-count/acquire")
	if s == nil {
		t.Fatal("no token-count/acquire")
	}
	tagged := s.BranchLines(sim.Acquired)
	if len(tagged) != 2 {
		t.Fatalf("token-count/acquire tags %v ACQUIRED, want two lines (the test proves nothing otherwise)", tagged)
	}
	arr := replyBranch(s.Source, tagged, sim.ReplyArray)
	str := replyBranch(s.Source, tagged, sim.ReplyString)
	if len(arr) != 1 || len(str) != 1 || arr[0] == str[0] || !slices.Contains(tagged, arr[0]) || !slices.Contains(tagged, str[0]) {
		t.Errorf("array reply marks %v, string reply %v; want one tagged line each, different", arr, str)
	}
	if one := replyBranch(s.Source, tagged[:1], sim.ReplyString); len(one) != 1 {
		t.Errorf("a single tagged line: %v", one)
	}
}
