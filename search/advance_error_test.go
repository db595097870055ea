package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"lockstep/sim"
)

// TestAdvanceOverBoundNamesEntry: a clock advance over the runner's
// renewal bound (3 h of a watchdog that renews every 10 s: 1,080
// renewals, more than 1,000) stops the search with an AdvanceError at the
// `3h` entry of the file, every time, however many workers were expanding
// the depth (the others stop with context.Canceled, which was reported in
// most runs instead).
func TestAdvanceOverBoundNamesEntry(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.search.yaml")
	body := "variant: watchdog\nlease: 30s\nlock: order:42\nactors:\n  - {id: A}\n  - {id: B}\nmoves: [acquire, release]\nadvance: [31s, 3h]\ndepth: 3\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		_, err := Run(context.Background(), f, Config{Workers: 4})
		var ae *AdvanceError
		var le *sim.LimitError
		if !errors.As(err, &ae) || !errors.As(err, &le) {
			t.Fatalf("run %d: want an AdvanceError over a LimitError, got %v", i, err)
		}
		if ae.Where() != p+":8:16" || ae.By.String() != "3h0m0s" || errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: at %s, by %s: %v", i, ae.Where(), ae.By, err)
		}
		if m := ae.Message(); m.ID != "search.advance-step" || m.Args["Reason"].(sim.Msg).ID != "limit.renewals-per-step" {
			t.Fatalf("run %d: message %+v", i, m)
		}
	}
}
