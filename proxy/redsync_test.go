package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"lockstep/catalog"
	"lockstep/internal/redistest"
	"lockstep/internal/replaytest"
	"lockstep/live"
	"lockstep/proxy"
	"lockstep/sim"
)

// TestRedsyncPausedHolder runs two redsync workers through the proxy: the
// holder is paused past its lease, the second worker acquires, and once it
// has, the holder resumes and its late unlock is answered "not owner". The
// page's model shows both lanes and the findings; the saved lesson replays
// with the same outcomes on the embedded Redis and on redis-server. Every
// step waits for the one before it (the pause ends by Resume, not by a
// clock), so a loaded machine changes how long it takes, not what happens.
func TestRedsyncPausedHolder(t *testing.T) {
	srv := redistest.Start(t)
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{"embedded": "", "redis-server": srv.URL} {
		t.Run(name, func(t *testing.T) {
			p := startProxy(t, proxy.Config{RedisURL: url}) // no -locks: SET NX suggests the key
			const lease = 400 * time.Millisecond
			a, b := client(t, p, "worker-a", 3), client(t, p, "worker-b", 2)
			opts := []redsync.Option{redsync.WithExpiry(lease), redsync.WithTimeoutFactor(0.5)}
			ma := redsync.New(goredis.NewPool(a)).NewMutex("lock:job", append(opts, redsync.WithTries(1))...)
			// B keeps trying until A's lease has run out, however long the
			// machine takes; its lease outlasts A's late unlock.
			mb := redsync.New(goredis.NewPool(b)).NewMutex("lock:job", redsync.WithExpiry(60*time.Second), redsync.WithTimeoutFactor(0.5),
				redsync.WithTries(3000), redsync.WithRetryDelay(20*time.Millisecond))
			if err := ma.Lock(); err != nil {
				t.Fatal(err)
			}
			if err := p.Pause("worker-a", time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := mb.Lock(); err != nil {
				t.Fatalf("worker-b: %v", err)
			}
			// The lock reader reads keys beside the clients: B holds the
			// lock until the page has seen it take it (as an application's
			// work would), or B's hold could come and go between two reads.
			eventually(t, "the overlap", func() bool { return len(findings(p.Snapshot(), proxy.FindingOverlap)) > 0 })
			if err := p.Resume("worker-a"); err != nil {
				t.Fatal(err)
			}
			if ok, err := ma.Unlock(); ok {
				t.Errorf("worker-a's late unlock succeeded (%v); want not owner", err)
			}
			eventually(t, "release-not-owner", func() bool { return len(findings(p.Snapshot(), proxy.FindingReleaseNotOwner)) > 0 })
			if ok, err := mb.Unlock(); !ok || err != nil {
				t.Fatalf("worker-b unlock: %v %v", ok, err)
			}
			var snap proxy.Snapshot
			t.Cleanup(func() {
				if t.Failed() {
					for _, e := range snap.Events {
						t.Logf("%+v %+v %+v %+v", e, e.Command, e.Lock, e.Finding)
					}
				}
			})
			eventually(t, "findings", func() bool {
				snap = p.Snapshot()
				return len(findings(snap, proxy.FindingReleaseNotOwner)) > 0 && len(findings(snap, proxy.FindingOverlap)) > 0
			})
			lanes := map[string]string{}
			for _, l := range snap.Lanes {
				lanes[l.Name] = l.Lane
			}
			if lanes["worker-a"] == "" || lanes["worker-b"] == "" {
				t.Fatalf("lanes %+v", snap.Lanes)
			}
			for _, l := range live.Lanes(snap) { // the page's lane heads
				if l.LockLibrary != "redsync" || !strings.HasPrefix(l.Library, "go-redis") {
					t.Errorf("lane %+v: want redsync on go-redis", l)
				}
			}
			overlap := findings(snap, proxy.FindingOverlap)
			if len(overlap) != 1 || overlap[0].Lane != lanes["worker-b"] || overlap[0].Other != lanes["worker-a"] {
				t.Fatalf("overlap findings %+v (lanes %v)", overlap, lanes)
			}
			if f := findings(snap, proxy.FindingLeaseExpired); len(f) != 1 || f[0].Lane != lanes["worker-a"] {
				t.Errorf("lease-expired findings %+v", f)
			}
			if f := findings(snap, proxy.FindingReleaseNotOwner); len(f) != 1 || f[0].Lane != lanes["worker-a"] {
				t.Errorf("release-not-owner findings %+v", f)
			}
			if f := findings(snap, proxy.FindingReleaseByOther); len(f) != 0 {
				t.Errorf("release-by-other findings %+v", f)
			}
			if txt := cat.Render(sim.SimplifiedChinese, overlap[0].Message); txt == "" || txt[0] == '[' {
				t.Errorf("overlap in zh-CN: %q", txt)
			}

			saved, err := p.SaveLesson(context.Background(), proxy.SaveOptions{ID: "redsync-paused", Renderer: cat})
			if err != nil {
				t.Fatal(err)
			}
			if len(saved.Missing) != 0 {
				t.Errorf("missing: %v", saved.Missing)
			}
			replaytest.Check(t, cat, saved, "", srv.URL)
		})
	}
}

func findings(s proxy.Snapshot, code string) []proxy.Finding {
	var out []proxy.Finding
	for _, f := range s.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}
