package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

func parse(t *testing.T, name, src string) *File {
	t.Helper()
	f, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func run(t *testing.T, f *File, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// timeline is a counterexample's steps as DescribeStep writes them.
func timeline(cx *Counterexample) []string {
	var out []string
	for i, st := range cx.Lesson.Steps {
		out = append(out, DescribeStep(st)+" → "+string(cx.Frames[i+1].Outcome))
	}
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// oneInstance starts a search file of two requests (A and B) of one
// instance, svc-1, under instance-owner, with the moves that make and end
// holds; a test adds its depth (and invariants).
const oneInstance = `
variant: instance-owner
lease: 30s
actors: [{id: A, instance: svc-1}, {id: B, instance: svc-1}]
moves: [acquire, release, pause, resume]
`

// Two requests of one instance: the owner id is the instance, so the
// second acquire is taken for a reentry. Shortest by hand: one acquire
// makes one holder, so two are needed, and A acquire (ACQUIRED), B acquire
// (REENTERED under the shared id svc-1) already breaks it: 2 steps.
func TestInstanceOwnerOverlapIn2Steps(t *testing.T) {
	f := parse(t, "io.yaml", oneInstance+"depth: 4\ninvariants: [overlapping-holders]\n")
	var progress []Progress
	res := run(t, f, Config{Progress: func(p Progress) { progress = append(progress, p) }})
	if len(progress) != 2 || progress[1].Depth != 2 || progress[1].States != res.States || progress[1].Broken != 1 {
		t.Errorf("progress %+v, result %d states", progress, res.States)
	}
	cx := res.Found[sim.InvOverlappingHolders]
	if cx == nil {
		t.Fatal("overlapping-holders not found")
	}
	sameLines(t, "timeline", timeline(cx), []string{"A acquire → ACQUIRED", "B acquire → REENTERED"})
	if res.Complete || res.Reached != 2 || res.End != EndAllBroken {
		t.Errorf("complete %v reached %d end %q, want a stop after depth 2 (every invariant asked is broken)", res.Complete, res.Reached, res.End)
	}
}

const tokenCountShape = `
variant: token-count
lease: 30s
fencing: %v
actors: [{id: A}, {id: B}]
moves: [acquire, release, write, pause, resume]
advance: [31s]
depth: %d
invariants: [stale-write]
`

// With fencing tokens the resource refuses every write from an older hold
// once a newer hold has written, so no timeline of 8 steps breaks
// stale-write, and the search covers them all.
func TestTokenCountFencingHasNoStaleWrite(t *testing.T) {
	res := run(t, parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, true, 8)), Config{})
	if len(res.Found) != 0 || !res.Complete || res.Reached != 8 || res.End != EndComplete {
		t.Fatalf("found %v, complete %v, reached %d, end %q; want none, complete, 8, complete", res.Found, res.Complete, res.Reached, res.End)
	}
}

// Without fencing, shortest by hand: a stale write needs two holds of
// different actors, the newer one's write, then the older one's. B can
// take the lock only once A's hold is gone from Redis while A still
// believes it (a release would end A's belief, so the lease must run out:
// one advance). A acquire, advance 31s, B acquire, B write, A write: 5
// steps, and no 4 do it.
func TestTokenCountWithoutFencingStaleWriteIn5Steps(t *testing.T) {
	res := run(t, parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, false, 8)), Config{})
	cx := res.Found[sim.InvStaleWrite]
	if cx == nil {
		t.Fatal("stale-write not found")
	}
	sameLines(t, "timeline", timeline(cx), []string{"A acquire → ACQUIRED", "advance 31s → OK", "B acquire → ACQUIRED",
		"B write B-1 → ACCEPTED", "A write A-1 → ACCEPTED"})
	last := cx.Lesson.Steps[len(cx.Lesson.Steps)-1]
	if len(last.ExpectViolations) != 1 || last.ExpectViolations[0] != sim.InvStaleWrite {
		t.Errorf("breaking step expect_violation %v", last.ExpectViolations)
	}
	for i, st := range cx.Lesson.Steps {
		if st.Expect == "" || !st.Say.Complete(sim.Locales) {
			t.Errorf("step %d: expect %q, say %v: want both, in every locale", i+1, st.Expect, st.Say)
		}
	}
}

// searchFiles loads the course's search files at a smaller depth.
func searchFiles(t *testing.T, depth int) []*File {
	t.Helper()
	paths, err := filepath.Glob("../searches/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no search files: %v", err)
	}
	var out []*File
	for _, p := range paths {
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Depth = min(f.Depth, depth)
		out = append(out, f)
	}
	return out
}

// summary is everything a result reports, counterexamples as lesson files.
func summary(res *Result) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "complete %v reached %d states %d transitions %d calls %d\n", res.Complete, res.Reached, res.States, res.Transitions, res.ScriptCalls)
	for _, inv := range res.File.Invariants {
		if cx := res.Found[inv]; cx != nil {
			fmt.Fprintf(&b, "%s:\n%s\n", inv, cx.YAML)
		}
	}
	return b.String()
}

// The reference model covers every script, so every variant's search gives
// the same states, transitions, calls and counterexamples with it as the
// store as on the embedded Redis; and one worker gives what two give
// (checked on two variants, to keep the test short).
func TestModelEmbeddedAndWorkersAgree(t *testing.T) {
	for _, f := range searchFiles(t, 4) {
		t.Run(Stem(f.Path), func(t *testing.T) {
			t.Parallel()
			emb := summary(run(t, f, Config{Workers: 2}))
			if got := summary(run(t, f, Config{Backend: Model(), Workers: 2})); got != emb {
				t.Errorf("reference model:\n%s\nembedded:\n%s", got, emb)
			}
			if Stem(f.Path) != "token-count" && Stem(f.Path) != "watchdog" {
				return // one worker against two: two variants are enough
			}
			if got := summary(run(t, f, Config{Workers: 1})); got != emb {
				t.Errorf("one worker:\n%s\ntwo:\n%s", got, emb)
			}
		})
	}
}

// A real redis-server gives the same result as the embedded Redis.
func TestRealRedisAgrees(t *testing.T) {
	srv := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, f := range searchFiles(t, 3) {
		emb := summary(run(t, f, Config{}))
		if got := summary(run(t, f, Config{Backend: Redis(be)})); got != emb {
			t.Errorf("%s: real Redis:\n%s\nembedded:\n%s", f.Path, got, emb)
		}
	}
	n, err := srv.Client(t).DBSize(context.Background()).Result()
	if err != nil || n != 0 {
		t.Errorf("keys left on the real Redis: %d (%v)", n, err)
	}
}

// Re-running every prefix from scratch (the bench's baseline for branching
// by snapshot) finds the same, with more script calls.
func TestRerunPrefixesAgrees(t *testing.T) {
	f := parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, false, 4))
	snap, rerun := run(t, f, Config{}), run(t, f, Config{RerunPrefixes: true})
	if rerun.ScriptCalls <= snap.ScriptCalls {
		t.Errorf("script calls: rerun %d, snapshot %d", rerun.ScriptCalls, snap.ScriptCalls)
	}
	rerun.ScriptCalls = snap.ScriptCalls
	if a, b := summary(snap), summary(rerun); a != b {
		t.Errorf("rerun:\n%s\nsnapshot:\n%s", b, a)
	}
}

// A search whose ctx ends mid-depth (the page's Stop, a time cap) returns
// what the depths it finished found, not complete, with ctx's error: here
// cancelled once depth 2 is done, so depth 3 is never finished, and the
// 2-step overlap of two requests of one instance is still reported.
func TestRunStoppedKeepsWhatItFound(t *testing.T) {
	f := parse(t, "io.yaml", oneInstance+"depth: 6\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []int
	res, err := Run(ctx, f, Config{Workers: 2, Progress: func(p Progress) {
		seen = append(seen, p.Depth)
		if p.Depth == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err %v, result %v: want the result so far and context.Canceled", err, res)
	}
	if res.Complete || res.Reached != 2 || fmt.Sprint(seen) != "[1 2]" || res.End != EndStopped {
		t.Errorf("complete %v, reached %d, progress %v, end %q: want not complete, reached 2, stopped", res.Complete, res.Reached, seen, res.End)
	}
	if cx := res.Found["overlapping-holders"]; cx == nil || cx.Steps() != 2 {
		t.Errorf("found %v: want overlapping-holders in 2 steps", res.Found)
	}
}

// A bound on the states ends the search after the depth that passed it,
// not complete, and the result says so.
func TestRunMaxStatesEnd(t *testing.T) {
	res := run(t, parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, true, 8)), Config{MaxStates: 50})
	if res.Complete || res.End != EndMaxStates || res.States <= 50 || res.Reached >= 8 {
		t.Errorf("complete %v, end %q, states %d, reached %d: want a stop by the state bound", res.Complete, res.End, res.States, res.Reached)
	}
}

// The state bound is checked as a depth's states are found, not after
// the depth (issue 37, item 6): a search stops within one node's moves
// past the bound, at the same place on every run and with any number of
// workers.
func TestRunMaxStatesInsideDepth(t *testing.T) {
	f := parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, true, 8))
	perNode := len(f.Actors)*len(f.Moves) + len(f.Advance)
	var first *Result
	for _, workers := range []int{1, 2} {
		res := run(t, f, Config{MaxStates: 50, Workers: workers})
		if res.End != EndMaxStates || res.Complete || res.States <= 50 || res.States > 50+perNode {
			t.Fatalf("workers %d: end %q, states %d: want a stop past 50 within %d more", workers, res.End, res.States, perNode)
		}
		if first == nil {
			first = res
		} else if res.States != first.States || res.Reached != first.Reached || res.Transitions != first.Transitions {
			t.Fatalf("workers 2: states %d, reached %d, transitions %d; workers 1: %d, %d, %d",
				res.States, res.Reached, res.Transitions, first.States, first.Reached, first.Transitions)
		}
	}
}

// A file with more clock moves than search.MaxAdvance is refused, naming
// the field.
func TestValidateAdvanceListBound(t *testing.T) {
	f := parse(t, "tc.yaml", fmt.Sprintf(tokenCountShape, true, 8))
	for i := range MaxAdvance + 1 {
		f.Advance = append(f.Advance, time.Duration(i+100)*time.Millisecond)
	}
	errs := Validate(f)
	if len(errs) == 0 || errs[0].Path != "advance" {
		t.Fatalf("errors %v: want one on advance", errs)
	}
}
