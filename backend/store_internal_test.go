package backend

import (
	"context"
	"testing"

	"lockstep/lessons"
	"lockstep/sim"
)

// TestEmbeddedStoreCachesEveryScriptItRan: after each step of a run on the
// embedded backend, every script the step called is known to be cached on
// the run's miniredis, nil replies included (a step's scripts never raise
// errors in the course), so its later calls go as EVALSHA instead of
// sending the source again.
func TestEmbeddedStoreCachesEveryScriptItRan(t *testing.T) {
	t.Parallel()
	be, err := Open(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		if l.Replica {
			continue // a failover empties the cache by design
		}
		st, err := be.NewStore()
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewRunner(l, st)
		if err != nil {
			t.Fatal(err)
		}
		for i := range l.Steps {
			f, err := r.Step(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			cached := map[string]bool{}
			for sc := range st.cached {
				cached[sc.Name] = true
			}
			for _, c := range f.Calls {
				if !cached[c.Script] {
					t.Errorf("%s step %d: %s (reply %s) is not known to be cached after it ran", l.ID, i+1, c.Script, c.Reply)
				}
			}
		}
		st.Close(context.Background())
	}
}
