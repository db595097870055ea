// Package replaytest checks, for tests, that a lesson saved by the proxy
// (proxy.Saved: a lesson file and the variant file it names) loads and
// replays with the outcomes it expects on each given backend: the
// embedded Redis ("") and real Redis URLs. Every step's expect (an
// acquire's ACQUIRED or BUSY, a release's NOT_OWNER, an
// expect_violation) is checked by the runner itself (sim.Runner.Failures).
package replaytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/proxy"
	"lockstep/sim"
)

// Check writes saved's two files to a temporary directory, loads the
// lesson as `lockstep run` does (the variant file read beside it), and
// runs it once on each of urls ("" the embedded Redis). It fails tb with
// the files' texts on a load error, a run error or any step whose
// outcome differs from its expect, and returns the loaded lesson.
func Check(tb testing.TB, cat *catalog.Catalog, saved proxy.Saved, urls ...string) *sim.Lesson {
	tb.Helper()
	dir := tb.TempDir()
	for name, body := range map[string][]byte{saved.LessonFile: saved.Lesson, saved.VariantFile: saved.Variant} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	l, err := sim.Options{Locales: cat.Locales()}.LoadFile(filepath.Join(dir, saved.LessonFile))
	if err != nil {
		tb.Fatalf("replaytest: load the saved lesson: %v\n%s\n%s", err, saved.Lesson, saved.Variant)
	}
	for _, url := range urls {
		replay(tb, l, url, saved)
	}
	return l
}

func replay(tb testing.TB, l *sim.Lesson, url string, saved proxy.Saved) {
	tb.Helper()
	ctx := context.Background()
	where := url
	if where == "" {
		where = "the embedded Redis"
	}
	be, err := backend.Open(ctx, backend.Config{URL: url, AllowCustomScripts: true})
	if err != nil {
		tb.Fatalf("replaytest: open %s: %v", where, err)
	}
	defer be.Close()
	store, err := be.NewStore()
	if err != nil {
		tb.Fatalf("replaytest: store on %s: %v", where, err)
	}
	defer store.Close(ctx)
	r, err := sim.NewRunner(l, store)
	if err != nil {
		tb.Fatalf("replaytest: runner: %v", err)
	}
	if _, err := r.Run(ctx); err != nil {
		tb.Fatalf("replaytest: replay on %s: %v\n%s\n%s", where, err, saved.Lesson, saved.Variant)
	}
	if f := r.Failures(); len(f) > 0 {
		tb.Errorf("replaytest: replay on %s differs from the trace: %v\n%s\n%s", where, f, saved.Lesson, saved.Variant)
	}
}
