package sim_test

// The bounds on what a lesson file, a variant's script and a run's step may
// ask: the loader's (load.go), the Lua turn counter's (luabound.go)
// and the runner's (limits.go: renewals per step).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"lockstep/sim"
	"lockstep/sim/refmodel"
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

// TestBoundedScripts: the turn counter stops every kind of endless script
// (a loop of each kind, a tail call; goto, which the counter stops too,
// never reaches a store: the validator refuses it, as Redis's Lua 5.1
// has none), keeps a short script's answer and its line numbers.
func TestBoundedScripts(t *testing.T) {
	endless := map[string]string{
		"while":     "while true do end",
		"repeat":    "repeat local x = 1 until false",
		"for":       "for i = 1, 1e12 do end",
		"tail call": "local function f(n) return f(n + 1) end\nreturn f(1)",
		"anonymous": "local f\nf = function() return f() end\nreturn f()",
	}
	for name, body := range endless {
		L := lua.NewState()
		err := L.DoString(runSource(t, body))
		L.Close()
		if err == nil || !sim.ScriptWasStopped(err.Error()) {
			t.Errorf("%s: want the script stopped, got %v", name, err)
		}
	}
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(runSource(t, "local n = 0\nfor i = 1, 10 do n = n + i end\nreturn n")); err != nil {
		t.Fatal(err)
	}
	if got := L.Get(-1); got.String() != "55" {
		t.Fatalf("got %v, want 55", got)
	}
	err := L.DoString(runSource(t, "local x = 1\n\nerror('line three')"))
	if err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("want the error on line 3, got %v", err)
	}
}

// runSource loads a variant whose acquire is body and returns the text a
// store would send for it.
func runSource(t *testing.T, body string) string {
	t.Helper()
	src := strings.Replace(inlineVariant, "  source: |\n    if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then\n      return 0\n    end\n    redis.call('HINCRBY', KEYS[1], ARGV[1], 1)\n    redis.call('PEXPIRE', KEYS[1], ARGV[2])\n    return 1\n",
		"  source: |\n    "+strings.ReplaceAll(body, "\n", "\n    ")+"\n", 1)
	d, err := sim.LoadVariant("b.variant.yaml", []byte(src), noFiles)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return d.Acquire.Script.RunSource()
}

func watchdogAdvance(lease, by time.Duration) *sim.Lesson {
	return &sim.Lesson{ID: "watchdog-flood", Variant: "watchdog", Lease: lease, Lock: "lock", Seed: 1,
		Actors: []sim.ActorSpec{{ID: "A"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Do: sim.ActAdvance, By: by},
		}}
}

// countingStore counts the batches a run sends.
type countingStore struct {
	sim.Store
	batches int
}

func (c *countingStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	c.batches++
	return c.Store.Exec(ctx, b)
}

// TestWatchdogRenewalBound: a 3 ms watchdog lease advanced by 7 days would
// renew every 3 ms (hardening finding 2). The step is refused before it
// sends anything, with a *LimitError naming the bound, and the run is as
// before the step; an advance within the bound runs every renewal.
func TestWatchdogRenewalBound(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{Store: refmodel.New()}
	r, err := sim.NewRunner(watchdogAdvance(3*time.Millisecond, 7*24*time.Hour), store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	sent := store.batches
	_, err = r.Step(ctx)
	var le *sim.LimitError
	if !errors.Is(err, sim.ErrStepTooLarge) || !errors.As(err, &le) {
		t.Fatalf("want a LimitError, got %v", err)
	}
	if le.Code != sim.LimitRenewals || le.Max != sim.MaxRenewalsPerStep || le.Want <= le.Max {
		t.Fatalf("limit error: %+v", le)
	}
	if store.batches != sent || len(r.Frames()) != 2 || r.Done() {
		t.Fatalf("a refused step sent %d batches and left %d frames", store.batches-sent, len(r.Frames()))
	}

	// 1 ms renewals for 999 ms: 999 renewals, within the bound.
	frames, _ := runFrames(t, watchdogAdvance(3*time.Millisecond, 999*time.Millisecond), refmodel.New())
	if n := len(frames[2].Calls); n != 999 {
		t.Fatalf("want 999 renewals, got %d", n)
	}
	// One more renewal is over it.
	r2, err := sim.NewRunner(watchdogAdvance(3*time.Millisecond, 1001*time.Millisecond), refmodel.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Run(ctx); !errors.Is(err, sim.ErrStepTooLarge) {
		t.Fatalf("1001 renewals: want ErrStepTooLarge, got %v", err)
	}
}
