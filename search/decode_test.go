package search

import (
	"errors"
	"strings"
	"testing"
)

const goodHead = "variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}]\n"

// One case per kind of problem, each with the exact message and position.
func TestBadSearchFiles(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"syntax", "variant: [token-count\n", []string{"f.yaml:1:10: YAML syntax: "}},
		{"not a mapping", "- a\n- b\n", []string{`f.yaml:1:1: search file: want a mapping (key: value lines), got a list`}},
		{"unknown field", goodHead + "steps: []\n", []string{`f.yaml:4:1: unknown field "steps"`}},
		{"missing variant", "lease: 30s\nactors: [{id: A}]\n", []string{`f.yaml:1:1: missing required field "variant"`}},
		{"unknown variant", "variant: redlock\nlease: 30s\nactors: [{id: A}]\n", []string{`f.yaml:1:10: unknown variant "redlock" (want one of `}},
		{"missing lease", "variant: token-count\nactors: [{id: A}]\n", []string{`f.yaml:1:1: missing required field "lease"`}},
		{"lease not positive", "variant: token-count\nlease: 0s\nactors: [{id: A}]\n", []string{`f.yaml:2:8: lease: duration must be greater than zero, got 0s`}},
		{"lease not whole ms", "variant: token-count\nlease: 1500us\nactors: [{id: A}]\n", []string{`f.yaml:2:8: lease: Redis leases count whole milliseconds, got 1.5ms`}},
		{"bad duration", "variant: token-count\nlease: soon\nactors: [{id: A}]\n", []string{`f.yaml:2:8: lease: want a duration such as 30s or 1500ms (Go syntax, with a unit), got "soon"`}},
		{"fencing not a boolean", goodHead + "fencing: maybe\n", []string{`f.yaml:4:10: fencing: want true or false, got "maybe"`}},
		{"bad lock name", goodHead + "lock: \"a\\tb\"\n", []string{`f.yaml:4:7: lock: a lock name is 1 to 200 bytes of text without control characters`}},
		{"missing actors", "variant: token-count\nlease: 30s\n", []string{`f.yaml:1:1: missing required field "actors"`}},
		{"too many actors", "variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]\n", []string{`f.yaml:3:9: actors: want 1 to 4 actors, got 5`}},
		{"actor without id", "variant: token-count\nlease: 30s\nactors:\n  - {instance: svc-1}\n", []string{`f.yaml:4:5: actor: missing required field "id"`}},
		{"bad actor id", "variant: token-count\nlease: 30s\nactors: [{id: 1A}]\n", []string{`f.yaml:3:15: actor id "1A": want a letter, then letters, digits, '_' and '-'`}},
		{"duplicate actor", "variant: token-count\nlease: 30s\nactors: [{id: A}, {id: A}]\n", []string{`f.yaml:3:24: duplicate actor id "A"`}},
		{"unknown actor field", "variant: token-count\nlease: 30s\nactors: [{id: A, role: x}]\n", []string{`f.yaml:3:18: actor: unknown field "role"`}},
		{"unknown locale", goodHead + "title: {en: x, fr: y}\n", []string{`f.yaml:4:16: title: unknown locale "fr" (want en, zh-CN or zh-TW)`}},
		{"unknown move", goodHead + "moves: [acquire, steal]\n", []string{`f.yaml:4:18: moves: unknown move "steal" (want acquire, release, write, pause, resume, crash, finish-release, exit)`}},
		{"advance as a move", goodHead + "moves: [acquire, advance]\n", []string{`f.yaml:4:18: moves: advance is not a move; list the clock moves under advance:`}},
		{"duplicate move", goodHead + "moves: [acquire, acquire]\n", []string{`f.yaml:4:18: moves: "acquire" is listed twice`}},
		{"no moves", goodHead + "moves: []\n", []string{`f.yaml:4:8: moves: want at least one move`}},
		{"advance not positive", goodHead + "advance: [31s, -1s]\n", []string{`f.yaml:4:16: advance: duration must be greater than zero, got -1s`}},
		{"depth out of range", goodHead + "depth: 17\n", []string{`f.yaml:4:8: depth: want 1 to 16 steps, got 17`}},
		{"depth not a number", goodHead + "depth: deep\n", []string{`f.yaml:4:8: depth: want a whole number, got "deep"`}},
		{"unknown invariant", goodHead + "invariants: [liveness]\n", []string{`f.yaml:4:14: invariants: unknown invariant "liveness" (want overlapping-holders, stale-write, wrong-owner-release, count-mismatch, leaked-hold, unnoticed-takeover)`}},
		{"duplicate invariant", goodHead + "invariants: [stale-write, stale-write]\n", []string{`f.yaml:4:27: invariants: "stale-write" is listed twice`}},
		{"every problem at once", "variant: nope\nlease: -1s\nactors: []\ndepth: 0\n", []string{
			`f.yaml:1:10: unknown variant "nope"`, `f.yaml:2:8: lease: duration must be greater than zero, got -1s`,
			`f.yaml:3:9: actors: want 1 to 4 actors, got 0`, `f.yaml:4:8: depth: want 1 to 16 steps, got 0`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.src))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v: want one wrapping ErrInvalid", err)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems:\n%s\nwant %d: %q", len(got), err, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d:\ngot  %s\nwant %s", i+1, got[i], w)
				}
			}
		})
	}
}

// The defaults of the spec: lock "lock", moves acquire, release, write,
// pause, resume, an advance of lease + 1ms, depth 8, every invariant.
func TestDefaults(t *testing.T) {
	f, err := Parse("f.yaml", []byte(goodHead))
	if err != nil {
		t.Fatal(err)
	}
	if f.Lock != "lock" || strings.Join(movesOf(f.Moves), ",") != "acquire,release,write,pause,resume" ||
		len(f.Advance) != 1 || f.Advance[0].String() != "30.001s" || f.Depth != 8 || len(f.Invariants) != 5 {
		t.Errorf("defaults: %+v", f)
	}
}

func movesOf(ms []Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}
