package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/benchtable"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// A row of section 3: a run under a user's lock whose scripts build a key
// of their own (examples/testdata/own/undeclared.lesson.yaml, the count
// key no file declares) on a redis-server beside none and beside
// derivedForeign keys of others. The run finds such keys from what its
// scripts wrote (backend/derived.go), so a step costs the same beside
// them; a SCAN MATCH of the run's namespace after each step, which this
// replaced, walked them all (some 10 s a run beside 300,000).

// derivedForeign is how many keys of others the second measure has beside it.
const derivedForeign = 300000

// derivedRuns is how many runs of the lesson each measure times.
const derivedRuns = 20

func derivedRows(ctx context.Context, t *benchtable.Table, log io.Writer) error {
	fmt.Fprintln(log, "bench: a user's lock building its own key, beside keys of others")
	l, err := sim.LoadFile("examples/testdata/own/undeclared.lesson.yaml")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	rs, err := redistest.Launch("")
	if err != nil {
		return err
	}
	defer rs.Stop()
	be, err := backend.Open(ctx, backend.Config{URL: rs.URL, AllowCustomScripts: true})
	if err != nil {
		return err
	}
	defer be.Close()
	if _, err := perStep(ctx, be, l); err != nil { // warm: scripts cached, connections open
		return err
	}
	alone, err := perStep(ctx, be, l)
	if err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer c.Close()
	for i := 0; i < derivedForeign; i += 10000 {
		pairs := make([]any, 0, 20000)
		for j := i; j < i+10000; j++ {
			pairs = append(pairs, fmt.Sprintf("others:%d", j), "x")
		}
		if err := c.MSet(ctx, pairs...).Err(); err != nil {
			return fmt.Errorf("bench: keys of others: %w", err)
		}
	}
	beside, err := perStep(ctx, be, l)
	if err != nil {
		return err
	}
	ratio := float64(beside) / float64(alone)
	t.Add("3", fmt.Sprintf("real: a user's lock that builds its own key (undeclared count key), step beside %d keys of others (%d runs)", derivedForeign, derivedRuns),
		us(beside)+"/step", "beside none "+us(alone)+"/step",
		fmt.Sprintf("%.2fx", ratio), "≤ 2x (a SCAN per step took ~10 s a run)", benchtable.Yes(ratio <= 2))
	return nil
}

// perStep is the mean time of a step of l on be, over derivedRuns runs.
func perStep(ctx context.Context, be *backend.Backend, l *sim.Lesson) (time.Duration, error) {
	var took time.Duration
	steps := 0
	for range derivedRuns {
		st, err := be.NewStore()
		if err != nil {
			return 0, err
		}
		r, err := sim.NewRunner(l, st)
		if err != nil {
			st.Close(ctx)
			return 0, err
		}
		start := time.Now()
		frames, err := r.Run(ctx)
		took += time.Since(start)
		st.Close(ctx)
		if err != nil {
			return 0, fmt.Errorf("bench: %s: %w", l.ID, err)
		}
		steps += len(frames) - 1
	}
	return took / time.Duration(max(1, steps)), nil
}
