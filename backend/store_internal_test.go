package backend

import (
	"context"
	"strings"
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
				if strings.Contains(c.Reply.Str, sim.CrossSlotReply) {
					continue // refused before it ran (sim/cluster.go): never sent
				}
				if !cached[c.Script] {
					t.Errorf("%s step %d: %s (reply %s) is not known to be cached after it ran", l.ID, i+1, c.Script, c.Reply)
				}
			}
		}
		st.Close(context.Background())
	}
}

// TestCustomScriptsNotCached: Store.script keeps a built-in script's
// redis.Script and none of a user's variant file, whose *sim.Script values
// are new on every load (a cache of them would grow without bound).
func TestCustomScriptsNotCached(t *testing.T) {
	src := []byte("name: mine\nlock: {type: string}\nowner: grant-token\nreentry: none\n" +
		"acquire:\n  source: return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
		"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n")
	for range 3 {
		d, err := sim.LoadVariant("mine.variant.yaml", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (&Store{be: &Backend{}}).script(&sim.Call{Script: d.Acquire.Script}, false, false).Hash() == "" {
			t.Fatal("no script")
		}
		if _, kept := goScripts.Load(d.Acquire.Script); kept {
			t.Fatal("a custom script was kept in goScripts")
		}
	}
	builtin := sim.AllScripts()[0]
	(&Store{be: &Backend{}}).script(&sim.Call{Script: builtin}, false, false)
	if _, kept := goScripts.Load(builtin); !kept {
		t.Fatal("a built-in script is not kept")
	}
}

// TestGuardReplyAsRun: a key-guard refusal names the run's key without
// the run's namespace, also as an element of an array (a refusal the
// script caught with redis.pcall and returned in a table); another run's
// key and other replies are left as they are.
func TestGuardReplyAsRun(t *testing.T) {
	const prefix = KeyNamespace + "{run-0123456789ab}:"
	refusal := func(key string) sim.Reply {
		return sim.ErrorReply(keyGuardMarker + " GET on key '" + key + "' refused: a script of your own may touch only its KEYS")
	}
	got := guardReplyAsRun(sim.Reply{Kind: sim.ReplyArray, Elems: []sim.Reply{
		refusal(prefix + "lock:lockstep:clock"), refusal(KeyNamespace + "{run-000000000000}:lock"), sim.StringReply(prefix + "lock"),
	}}, prefix)
	want := []sim.Reply{refusal("lock:lockstep:clock"), refusal(KeyNamespace + "{run-000000000000}:lock"), sim.StringReply(prefix + "lock")}
	for i := range want {
		if got.Elems[i].Str != want[i].Str {
			t.Errorf("element %d: %q, want %q", i, got.Elems[i].Str, want[i].Str)
		}
	}
}
