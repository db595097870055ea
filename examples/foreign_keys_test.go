package examples_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestDerivedKeysWithoutScan: on a Redis that holds keys of others, a run
// whose scripts build a key of their own (undeclared.lesson.yaml: the
// count key no file declares) finds that key from what its scripts wrote,
// never by walking the keyspace: the server counts no SCAN (a SCAN MATCH of
// the run's namespace reads every key of a shared Redis, 10 s a run beside
// 300,000 of them, a fresh-eyes review of issue 33). The frames are the
// embedded run's, the keys of others are all there, untouched, and none of
// the run's is left.
func TestDerivedKeysWithoutScan(t *testing.T) {
	l, err := sim.LoadFile(own("undeclared.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	const foreign = 5000
	pairs := make([]any, 0, 2*foreign)
	for i := range foreign {
		pairs = append(pairs, fmt.Sprintf("someone:else:%d", i), "theirs")
	}
	if err := c.MSet(ctx, pairs...).Err(); err != nil {
		t.Fatal(err)
	}
	want := framesJSON(t, lessontest.Open(t, backend.Config{}), l)
	real := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})
	for i := range 3 {
		if got := framesJSON(t, real, l); got != want {
			t.Fatalf("real Redis run %d: frames differ from the embedded run's", i)
		}
	}
	stats, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stats, "cmdstat_evalsha:") && !strings.Contains(stats, "cmdstat_eval:") {
		t.Fatal("the server counted no script call; the check proves nothing")
	}
	for _, line := range strings.Split(stats, "\n") {
		if strings.HasPrefix(line, "cmdstat_scan:") || strings.HasPrefix(line, "cmdstat_keys:") {
			t.Errorf("the runs walked the keyspace: %s", strings.TrimSpace(line))
		}
	}
	left := scanAll(t, srv)
	if len(left) != foreign {
		t.Errorf("%d keys on the server after the runs, want the %d of others", len(left), foreign)
	}
	for _, k := range left {
		if !strings.HasPrefix(k, "someone:else:") {
			t.Errorf("key left by the runs: %s", k)
		}
	}
}
