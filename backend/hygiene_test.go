package backend_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// checkHygiene runs the course (and shortLease) on be, a backend on the
// Redis made of nodes (one server, or a cluster's nodes), which it shares
// with another tenant whose keys tenant writes first (one of them named
// exactly like a logical key of ours). It checks, on every node: after each
// step every key of ours is under the run's hash-tagged prefix and has a
// TTL; after each run none is left; the tenant's keys are untouched; and
// MONITOR saw no KEYS, FLUSHDB, FLUSHALL or CONFIG, and no script call on a
// key or channel outside Lockstep's namespace.
func checkHygiene(t *testing.T, be *backend.Backend, nodes []*redistest.Server, tenant redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	plain := map[string]string{"lock:order:42": "theirs", "tenant:plain": "v1", "{run-x}:lock:l": "tagged"}
	for k, v := range plain {
		if err := tenant.Set(ctx, k, v, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tenant.HSet(ctx, "tenant:hash", "f", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := tenant.Expire(ctx, "tenant:hash", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	clients := make([]*redis.Client, len(nodes))
	monitors := make([]*redistest.Monitor, len(nodes))
	for i, n := range nodes {
		clients[i] = n.Client(t)
		monitors[i] = n.Monitor(t)
	}
	all := lessontest.Course(t)
	for _, l := range append(all, shortLease()) {
		var store *backend.Store
		_, st := run(t, be, l, func(i int) {
			for _, c := range clients {
				if i > 0 {
					checkOurKeys(t, c, store)
				}
			}
		})
		store = st
		for _, c := range clients {
			checkOurKeys(t, c, store)
		}
		if err := store.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range clients {
			if left := scan(t, c, backend.KeyNamespace+"*"); len(left) > 0 {
				t.Fatalf("%s: keys left after Close: %v", l.ID, left)
			}
		}
	}
	for k, v := range plain {
		if got, err := tenant.Get(ctx, k).Result(); err != nil || got != v {
			t.Errorf("tenant key %s: got %q, %v; want %q", k, got, err, v)
		}
		if ttl := tenant.PTTL(ctx, k).Val(); ttl != -1 {
			t.Errorf("tenant key %s gained a TTL: %v", k, ttl)
		}
	}
	if got := tenant.HGet(ctx, "tenant:hash", "f").Val(); got != "1" {
		t.Errorf("tenant hash changed: %q", got)
	}
	seen, scripts := 0, 0
	for i, m := range monitors {
		m.Stop()
		for _, c := range m.Commands() {
			seen++
			switch name := strings.ToUpper(c.Args[0]); name {
			case "KEYS", "FLUSHDB", "FLUSHALL", "CONFIG":
				t.Errorf("node %s ran %s: %q", nodes[i].Addr, name, c.Args)
			}
			if c.Script {
				scripts++
			}
			if c.Script && (len(c.Args) < 2 || !strings.HasPrefix(c.Args[1], backend.KeyNamespace)) {
				t.Errorf("node %s: a script ran %q, outside %s", nodes[i].Addr, c.Args, backend.KeyNamespace)
			}
		}
	}
	if seen == 0 || scripts == 0 {
		t.Fatalf("MONITOR saw %d commands, %d from scripts; the check proves nothing", seen, scripts)
	}
}

// sameAsEmbedded runs every lesson on be and on the embedded backend and
// fails unless the frames are identical down to the JSON.
func sameAsEmbedded(t *testing.T, be *backend.Backend) {
	t.Helper()
	all := lessontest.Course(t)
	embedded := openBackend(t, "")
	for _, l := range all {
		want, es := run(t, embedded, l, nil)
		got, gs := run(t, be, l, nil)
		// Closed now, not when the test ends: a lesson with a replica or
		// nodes holds one of the backend's MaxPairs places until then, and
		// the course has more such lessons than places.
		es.Close(context.Background())
		gs.Close(context.Background())
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%s on %s: frames differ from the embedded run's:\n%s\n---\n%s", l.ID, be.Info(), sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English))
		}
	}
}
