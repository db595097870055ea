package templates

import (
	"testing"

	"golang.org/x/net/html"
)

// TestLockRowMarksOwnToo: the course table's "invariants it breaks" cell
// lists every invariant of the row and marks those the lesson's own lock
// breaks too (issue 33).
func TestLockRowMarksOwnToo(t *testing.T) {
	p := LockPage{Table: true, X: Explore{LockBrokenOwnToo: "(its own lock too)"}, Rows: []LockRow{{
		ID: "stale-owner-unfenced", Kind: "same", Same: true,
		Broken: []string{"overlapping-holders", "stale-write", "count-mismatch"}, BrokenOwn: []string{"stale-write"},
	}}}
	markup := render(t, LockStart(p))
	spans := elements(t, markup, is("span", "data-invariant="))
	var got []string
	for _, s := range spans {
		got = append(got, attr(s, "data-invariant")+"="+attr(s, "data-own-too"))
	}
	want := []string{"overlapping-holders=false", "stale-write=true", "count-mismatch=false"}
	if len(got) != len(want) {
		t.Fatalf("invariants %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("invariants %v, want %v", got, want)
		}
	}
	marks := elements(t, markup, is("small", "class=lock-own-too"))
	if len(marks) != 1 || marks[0].PrevSibling == nil || marks[0].FirstChild.Data != "(its own lock too)" {
		t.Fatalf("want one mark, after stale-write; got %d", len(marks))
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
