package proxy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/proxy"
	"lockstep/sim"
)

// TestSaveReleaseByAnotherConnection: a hold that expired, a second
// acquire, and a release of the second hold sent on a third connection
// with the holder's token. The saved lesson says what it cannot express
// and replays with the same outcomes on the embedded Redis.
func TestSaveReleaseByAnotherConnection(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, proxy.Config{RedisURL: up(t)})
			ctx := context.Background()
			a, b, c := client(t, p, "a", 2), client(t, p, "b", 3), client(t, p, "c", 2)
			if !a.SetNX(ctx, "lock:o", "tokA", 100*time.Millisecond).Val() {
				t.Fatal("a")
			}
			eventually(t, "expiry", func() bool { return len(findings(p.Snapshot(), proxy.FindingLeaseExpired)) == 1 })
			if !b.SetNX(ctx, "lock:o", "tokB", time.Minute).Val() {
				t.Fatal("b")
			}
			if n, _ := c.Eval(ctx, releaseScript, []string{"lock:o"}, "tokB").Int(); n != 1 {
				t.Fatal("c's release")
			}
			eventually(t, "release-by-other", func() bool { return len(findings(p.Snapshot(), proxy.FindingReleaseByOther)) == 1 })
			saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: "other"})
			if err != nil {
				t.Fatal(err)
			}
			if len(saved.Missing) != 1 || !strings.Contains(saved.Missing[0], "released the hold") {
				t.Errorf("missing %v", saved.Missing)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, saved.LessonFile), saved.Lesson, 0o644)
			os.WriteFile(filepath.Join(dir, saved.VariantFile), saved.Variant, 0o644)
			l, err := sim.LoadFile(filepath.Join(dir, saved.LessonFile))
			if err != nil {
				t.Fatalf("%v\n%s", err, saved.Lesson)
			}
			be, err := backend.Open(ctx, backend.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			store, err := be.NewStore()
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close(ctx)
			r, err := sim.NewRunner(l, store)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(ctx); err != nil || len(r.Failures()) > 0 {
				t.Errorf("replay: %v %v\n%s\n%s", err, r.Failures(), saved.Lesson, saved.Variant)
			}
		})
	}
}
