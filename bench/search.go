package main

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"lockstep/internal/benchtable"
	"lockstep/search"
	"lockstep/searches"
)

// Section 6 measures package search: the course's search files on the
// embedded Redis beside the same searches with the reference model
// (sim/refmodel) as the store (the ratio is what running the real Lua
// scripts costs), a 3-actor depth-10 search of token-count, the growth of
// states and time with depth, and one worker against two.

// searchRun is one timed search: its wall time, and the CPU time the
// process used meanwhile (user and system), which on a machine shared with
// other work says more of what it cost than the wall time, mostly a queue
// for the cores there.
type searchRun struct {
	res  *search.Result
	took time.Duration
	cpu  time.Duration
}

func timedSearch(ctx context.Context, f *search.File, cfg search.Config) (searchRun, error) {
	cpu0 := processCPU()
	start := time.Now()
	res, err := search.Run(ctx, f, cfg)
	if err != nil {
		return searchRun{}, fmt.Errorf("bench: search %s: %w", f.Path, err)
	}
	return searchRun{res: res, took: time.Since(start), cpu: processCPU() - cpu0}, nil
}

// processCPU is the CPU time the process has used so far (0 where getrusage
// fails).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// embeddedAndModel runs f's search on the embedded Redis, then with the
// reference model as the store, the pair a row compares.
func embeddedAndModel(ctx context.Context, f *search.File) (emb, mod searchRun, err error) {
	if emb, err = timedSearch(ctx, f, search.Config{}); err != nil {
		return emb, mod, err
	}
	mod, err = timedSearch(ctx, f, search.Config{Backend: search.Model()})
	return emb, mod, err
}

func (s searchRun) rates() string {
	sec := s.took.Seconds()
	return fmt.Sprintf("%.0f states/s, %.0f transitions/s", float64(s.res.States)/sec, float64(s.res.Transitions)/sec)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// tokenCount3 is the shape of the 3-actor search of token-count.
const tokenCount3 = `variant: token-count
lease: 30s
actors: [{id: A}, {id: B}, {id: C}]
depth: %d
`

// searchRows adds section 6 to t.
func searchRows(ctx context.Context, t *benchtable.Table, log io.Writer) error {
	all, err := searches.All()
	if err != nil {
		return err
	}
	for _, f := range all {
		fmt.Fprintf(log, "bench: search %s\n", f.Path)
		emb, mod, err := embeddedAndModel(ctx, f)
		if err != nil {
			return err
		}
		t.Add("6", fmt.Sprintf("search %s (%d actors, depth %d): %d states, %d transitions, %d script calls; embedded, 2 workers; reference: sim/refmodel as the store",
			f.Path, len(f.Actors), f.Depth, emb.res.States, emb.res.Transitions, emb.res.ScriptCalls),
			secs(emb.took)+", "+emb.rates(), secs(mod.took)+", "+mod.rates(),
			fmt.Sprintf("%.1fx", emb.took.Seconds()/mod.took.Seconds()), "< 10 s", benchtable.Yes(emb.took < 10*time.Second))
	}
	f3, err := search.Parse("token-count-3x10", fmt.Appendf(nil, tokenCount3, 10))
	if err != nil {
		return err
	}
	fmt.Fprintln(log, "bench: search token-count, 3 actors, depth 10")
	emb, mod, err := embeddedAndModel(ctx, f3)
	if err != nil {
		return err
	}
	ratio := emb.took.Seconds() / mod.took.Seconds()
	t.Add("6", fmt.Sprintf("search token-count, 3 actors, depth 10, default moves: %d states, %d transitions, %d script calls; embedded, 2 workers; reference: sim/refmodel",
		emb.res.States, emb.res.Transitions, emb.res.ScriptCalls),
		secs(emb.took)+" (CPU "+secs(emb.cpu)+"), "+emb.rates(), secs(mod.took)+" (CPU "+secs(mod.cpu)+"), "+mod.rates(),
		fmt.Sprintf("%.1fx (CPU %.1fx)", ratio, emb.cpu.Seconds()/mod.cpu.Seconds()), "< 60 s, within 5x", benchtable.Yes(emb.took < time.Minute && ratio <= 5))
	for _, depth := range []int{4, 6, 8, 10, 12} {
		f, err := search.Parse("token-count-2", fmt.Appendf(nil, "variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}]\nmoves: [acquire, release, write, pause, resume, crash]\ndepth: %d\n", depth))
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench: search token-count, 2 actors, depth %d\n", depth)
		r, err := timedSearch(ctx, f, search.Config{})
		if err != nil {
			return err
		}
		t.Add("6", fmt.Sprintf("scaling: token-count, 2 actors, 6 moves, depth %d (embedded, 2 workers)", depth),
			fmt.Sprintf("%d states, %d transitions, %s", r.res.States, r.res.Transitions, secs(r.took)), "", "", "report: growth with depth", "-")
	}
	f6, err := search.Parse("token-count-2x6", []byte("variant: token-count\nlease: 30s\nactors: [{id: A}, {id: B}]\nmoves: [acquire, release, write, pause, resume, crash]\ndepth: 6\n"))
	if err != nil {
		return err
	}
	fmt.Fprintln(log, "bench: search token-count, 2 actors, depth 6, by snapshot and by re-running prefixes")
	snap, err := timedSearch(ctx, f6, search.Config{})
	if err != nil {
		return err
	}
	rerun, err := timedSearch(ctx, f6, search.Config{RerunPrefixes: true})
	if err != nil {
		return err
	}
	t.Add("6", fmt.Sprintf("branching: token-count, 2 actors, depth 6 (%d states), embedded: back to the saved state (Branch/Restore); reference: re-run each prefix from a new runner", snap.res.States),
		fmt.Sprintf("%s, %d script calls", secs(snap.took), snap.res.ScriptCalls), fmt.Sprintf("%s, %d script calls", secs(rerun.took), rerun.res.ScriptCalls),
		fmt.Sprintf("%.2fx", snap.took.Seconds()/rerun.took.Seconds()), "report: what the snapshot saves", "-")
	f8, err := search.Parse("token-count-3x8", fmt.Appendf(nil, tokenCount3, 8))
	if err != nil {
		return err
	}
	fmt.Fprintln(log, "bench: search token-count, 3 actors, depth 8, one worker and two")
	one, err := timedSearch(ctx, f8, search.Config{Workers: 1})
	if err != nil {
		return err
	}
	two, err := timedSearch(ctx, f8, search.Config{Workers: 2})
	if err != nil {
		return err
	}
	t.Add("6", fmt.Sprintf("both cores: token-count, 3 actors, depth 8 (%d states), embedded: 2 workers; reference: 1 worker", two.res.States),
		secs(two.took), secs(one.took), fmt.Sprintf("%.2fx", two.took.Seconds()/one.took.Seconds()), "report: speed-up of the second core", "-")
	return nil
}
