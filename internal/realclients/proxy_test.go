package realclients_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"lockstep/catalog"
	"lockstep/internal/realclients"
	"lockstep/internal/redistest"
	"lockstep/internal/replaytest"
	"lockstep/live"
	"lockstep/proxy"
)

// Real clients through the proxy (issue 32, "Real clients, in CI"): each
// test runs real lock client libraries against `lockstep proxy`, on the
// embedded Redis and on a redis-server, injects a fault with the proxy's
// own API (the live page's buttons call the same), and asserts what the
// live page's model shows (live.Lanes: the lanes with their libraries;
// the findings), what the library itself reported, and that the lesson
// SaveLesson writes replays with the outcomes it expects on both backends.
// Every wait is for an event (a worker's report, a finding in the
// snapshot), never for a stretch of time: a pause ends by Resume once
// what it is for has happened.

// proxied is one run's proxy and the upstream behind it.
type proxied struct {
	name string
	url  string // the upstream's URL; "" the embedded Redis
	p    *proxy.Proxy
}

// throughProxy runs f once per upstream: the proxy's embedded Redis and a
// fresh redis-server (fresh so that no script is cached in it and the
// proxy sees every body the clients load).
func throughProxy(t *testing.T, f func(t *testing.T, up proxied)) {
	for _, name := range []string{"embedded", "redis-server"} {
		t.Run(name, func(t *testing.T) {
			url := ""
			if name == "redis-server" {
				url = redistest.Start(t).URL
			}
			p, err := proxy.Start(context.Background(), proxy.Config{Listen: "127.0.0.1:0", RedisURL: url, Locks: "lockstep:realclients:*"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			f(t, proxied{name: name, url: url, p: p})
		})
	}
}

// viaProxy is the proxy as the address workers connect to.
func viaProxy(up proxied) backend { return backend{name: up.name, addr: up.p.Addr()} }

// lockKey is a fresh lock key under the proxy's -locks pattern.
func lockKey() string {
	buf := make([]byte, 4)
	rand.Read(buf)
	return "lockstep:realclients:" + hex.EncodeToString(buf)
}

// snapshotWhen polls the proxy's snapshot until cond holds or ctx ends.
func snapshotWhen(t *testing.T, ctx context.Context, p *proxy.Proxy, what string, cond func(proxy.Snapshot) bool) proxy.Snapshot {
	t.Helper()
	for {
		s := p.Snapshot()
		if cond(s) {
			return s
		}
		select {
		case <-ctx.Done():
			logTrace(t, s)
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func logTrace(t *testing.T, s proxy.Snapshot) {
	t.Helper()
	for _, e := range s.Events {
		switch {
		case e.Command != nil:
			t.Logf("%d %s %s %v -> %s lost=%v", e.Seq, e.Lane, e.Command.Name, e.Command.Args, e.Command.Reply, e.Command.ReplyLost)
		case e.Lock != nil:
			t.Logf("%d lock %+v", e.Seq, *e.Lock)
		case e.Fault != nil:
			t.Logf("%d fault %+v", e.Seq, *e.Fault)
		case e.Finding != nil:
			t.Logf("%d finding %s %s", e.Seq, e.Finding.Code, e.Finding.Lane)
		default:
			t.Logf("%d %s %s %s", e.Seq, e.Kind, e.Lane, e.Error)
		}
	}
}

// findingsOf are the codes of s's findings about lane, in order.
func findingsOf(s proxy.Snapshot, lane string) []string {
	var out []string
	for _, f := range s.Findings {
		if f.Lane == lane {
			out = append(out, f.Code)
		}
	}
	return out
}

func hasFinding(code, lane string) func(proxy.Snapshot) bool {
	return func(s proxy.Snapshot) bool { return slices.Contains(findingsOf(s, lane), code) }
}

// lanesNamed are the page's lanes of the connections named name (a
// library may open more than one: node-redisson's subscriber).
func lanesNamed(s proxy.Snapshot, name string) []live.LaneView {
	var out []live.LaneView
	for _, l := range live.Lanes(s) {
		if l.Name == name {
			out = append(out, l)
		}
	}
	return out
}

// laneOf is the lane of the first connection named name that sent a
// command on key.
func laneOf(t *testing.T, s proxy.Snapshot, name, key string) live.LaneView {
	t.Helper()
	for _, l := range lanesNamed(s, name) {
		for _, e := range s.Events {
			if e.Lane == l.Lane && e.Command != nil && slices.Contains(e.Command.Locks, key) {
				return l
			}
		}
	}
	logTrace(t, s)
	t.Fatalf("no lane named %q sent a command on %s: lanes %+v", name, key, live.Lanes(s))
	return live.LaneView{}
}

// saveAndReplay saves the trace as a lesson and replays it on both
// backends of this run (the embedded Redis, and the redis-server when the
// run has one).
func saveAndReplay(t *testing.T, cat *catalog.Catalog, up proxied, id string) proxy.Saved {
	t.Helper()
	saved, err := up.p.SaveLesson(context.Background(), proxy.SaveOptions{ID: id, Renderer: cat})
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{""}
	if up.url != "" {
		urls = append(urls, up.url)
	} else {
		urls = append(urls, redistest.Start(t).URL)
	}
	replaytest.Check(t, cat, saved, urls...)
	return saved
}

func newCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestProxyRedlockLostUnlockReply: node-redlock takes a lock through the
// proxy; the reply to its unlock is lost (the command runs, the
// connection closes as at a timeout). The key is gone, but the client did
// not see it go: ioredis sends the unlock again on its new connection,
// where the key is already absent, and node-redlock reports the release
// as failed (LockError). The page shows the holder's lane as node-redlock
// with the unlock marked reply-lost and the lane closed; no finding (the
// holder's own release freed the lock). The saved lesson replays the
// release as TIMED_OUT on both backends.
func TestProxyRedlockLostUnlockReply(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.Redlock)
	cat := newCatalog(t)
	throughProxy(t, func(t *testing.T, up proxied) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		key := lockKey()
		// The first round loads node-redlock's scripts into Redis (it tries
		// EVALSHA, then EVAL): the lost reply is then the unlock's own.
		w := start(t, ctx, realclients.Redlock, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 30000, Name: "holder", Steps: []realclients.Step{
			{Do: realclients.Acquire}, {Do: realclients.Release}, {Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Release},
		}})
		waitOutcome(t, ctx, w, realclients.Awaiting)
		if err := up.p.LoseNextReply("holder"); err != nil {
			t.Fatal(err)
		}
		proceed(t, w)
		evs := wait(t, ctx, w)
		if got, want := outcomes(evs), []string{"acquire:acquired", "release:released", "acquire:acquired", "await:awaiting", "await:continued", "release:not_owner:LockError"}; !slices.Equal(got, want) {
			t.Errorf("node-redlock's outcomes %v, want %v", got, want)
		}
		s := snapshotWhen(t, ctx, up.p, "the lost reply and the lock gone", func(s proxy.Snapshot) bool {
			lost := false
			for _, e := range s.Events {
				lost = lost || (e.Command != nil && e.Command.ReplyLost)
			}
			return lost && len(s.Redis.Locks) == 1 && !s.Redis.Locks[0].Present()
		})
		holder := laneOf(t, s, "holder", key)
		if holder.LockLibrary != "node-redlock" || !holder.Closed {
			t.Errorf("holder's lane %+v: want node-redlock, closed", holder)
		}
		var lost []string
		for _, e := range s.Events {
			if e.Command != nil && e.Command.ReplyLost {
				lost = append(lost, e.Lane+" "+e.Command.Name+" "+live.KnownScript(e.Command.Script))
			}
		}
		if want := []string{holder.Lane + " EVALSHA node-redlock"}; !slices.Equal(lost, want) {
			t.Errorf("commands whose reply was lost: %v, want %v", lost, want)
		}
		if len(s.Findings) != 0 {
			logTrace(t, s)
			t.Errorf("findings %+v, want none: the holder released its own lock", s.Findings)
		}
		saveAndReplay(t, cat, up, "redlock-lost-unlock")
	})
}

// TestProxyRedisPyPausedHolder: redis-py's Lock takes a lock through the
// proxy and its client is paused (its requests held); its release, sent
// while paused, waits in the proxy while the lease runs out in Redis.
// Resumed, the release answers "not owner" (LockNotOwnedError). The page
// shows the lane as redis-py's, the lease-expired finding (the stale-owner
// window) and release-not-owner, both on the holder; the saved lesson
// replays on both backends.
func TestProxyRedisPyPausedHolder(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.RedisPy)
	cat := newCatalog(t)
	throughProxy(t, func(t *testing.T, up proxied) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		key := lockKey()
		w := start(t, ctx, realclients.RedisPy, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 300, Name: "holder", Steps: []realclients.Step{
			{Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Release},
		}})
		waitOutcome(t, ctx, w, realclients.Awaiting)
		if err := up.p.Pause("holder", time.Minute); err != nil {
			t.Fatal(err)
		}
		proceed(t, w) // the release goes out and waits in the proxy
		s := snapshotWhen(t, ctx, up.p, "the lease to run out", func(s proxy.Snapshot) bool {
			return len(s.Findings) > 0
		})
		holder := laneOf(t, s, "holder", key)
		if got := findingsOf(s, holder.Lane); !slices.Equal(got, []string{proxy.FindingLeaseExpired}) {
			t.Fatalf("findings on the holder while paused: %v, want lease-expired", got)
		}
		if err := up.p.Resume("holder"); err != nil {
			t.Fatal(err)
		}
		evs := wait(t, ctx, w)
		if got, want := outcomes(evs), []string{"acquire:acquired", "await:awaiting", "await:continued", "release:not_owner:LockNotOwnedError"}; !slices.Equal(got, want) {
			t.Errorf("redis-py's outcomes %v, want %v", got, want)
		}
		s = snapshotWhen(t, ctx, up.p, "release-not-owner", hasFinding(proxy.FindingReleaseNotOwner, holder.Lane))
		holder = laneOf(t, s, "holder", key)
		if holder.LockLibrary != "redis-py" {
			t.Errorf("holder's lane %+v: want redis-py", holder)
		}
		if got, want := findingsOf(s, holder.Lane), []string{proxy.FindingLeaseExpired, proxy.FindingReleaseNotOwner}; !slices.Equal(got, want) {
			t.Errorf("findings on the holder %v, want %v", got, want)
		}
		saveAndReplay(t, cat, up, "redis-py-paused")
	})
}

// TestProxyRedissonWatchdogPaused: node-redisson takes a lock with its
// watchdog through the proxy; its renewals show on the page as commands of
// node-redisson's renewal script. Paused, its renewals wait in the proxy
// and the lease runs out (lease-expired); a second node-redisson client
// acquires (overlap). Resumed, the held renewal finds the lock gone and
// the watchdog stops (renew_failed), and the holder's unlock answers "not
// owner" (RedissonLockError). The saved lesson replays on both backends.
func TestProxyRedissonWatchdogPaused(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.Redisson)
	cat := newCatalog(t)
	throughProxy(t, func(t *testing.T, up proxied) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		key := lockKey()
		// Renewals every second: a loaded machine that stalls the first
		// renewal past the lease would end the watchdog (renew_failed).
		const watchdogMS = 3000
		holder := start(t, ctx, realclients.Redisson, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 1000, WatchdogMS: watchdogMS, Name: "holder", Steps: []realclients.Step{
			{Do: realclients.Acquire, Watchdog: true}, {Do: realclients.Await}, {Do: realclients.Release},
		}})
		contender := start(t, ctx, realclients.Redisson, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 30000, Name: "contender", Steps: []realclients.Step{
			{Do: realclients.Await}, {Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Release},
		}})
		waitOutcome(t, ctx, holder, realclients.Acquired)
		if _, err := holder.WaitCount(ctx, realclients.Renewed, 2); err != nil {
			t.Fatal(err)
		}
		s := snapshotWhen(t, ctx, up.p, "two renewals", func(s proxy.Snapshot) bool { return len(renewals(s)) >= 2 })
		h := laneOf(t, s, "holder", key)
		for _, r := range renewals(s) {
			if r != h.Lane {
				t.Errorf("a renewal on lane %s, want the holder's %s", r, h.Lane)
			}
		}
		if h.LockLibrary != "node-redisson" {
			t.Errorf("holder's lane %+v: want node-redisson", h)
		}
		waitOutcome(t, ctx, contender, realclients.Awaiting)
		if err := up.p.Pause("holder", time.Minute); err != nil {
			t.Fatal(err)
		}
		s = snapshotWhen(t, ctx, up.p, "the lease to run out", hasFinding(proxy.FindingLeaseExpired, h.Lane))
		proceed(t, contender)
		waitOutcome(t, ctx, contender, realclients.Acquired)
		c := laneOf(t, up.p.Snapshot(), "contender", key)
		s = snapshotWhen(t, ctx, up.p, "overlap", hasFinding(proxy.FindingOverlap, c.Lane))
		if err := up.p.Resume("holder"); err != nil {
			t.Fatal(err)
		}
		waitOutcome(t, ctx, holder, realclients.RenewFailed)
		proceed(t, holder)
		hev := wait(t, ctx, holder)
		if got, want := outcomes(hev), []string{"acquire:acquired", "await:awaiting", "await:continued", "release:not_owner:RedissonLockError"}; !slices.Equal(got, want) {
			t.Errorf("holder's outcomes %v, want %v", got, want)
		}
		// The contender releases once the page has seen the holder's
		// release: the lock reader reads keys beside the clients.
		s = snapshotWhen(t, ctx, up.p, "release-not-owner", hasFinding(proxy.FindingReleaseNotOwner, h.Lane))
		if _, err := contender.WaitCount(ctx, realclients.Awaiting, 2); err != nil {
			t.Fatal(err)
		}
		proceed(t, contender)
		cev := wait(t, ctx, contender)
		if got, want := outcomes(cev), []string{"await:awaiting", "await:continued", "acquire:acquired", "await:awaiting", "await:continued", "release:released"}; !slices.Equal(got, want) {
			t.Errorf("contender's outcomes %v, want %v", got, want)
		}
		s = snapshotWhen(t, ctx, up.p, "the lock gone", func(s proxy.Snapshot) bool { return len(s.Redis.Locks) == 1 && !s.Redis.Locks[0].Present() })
		if got, want := findingsOf(s, h.Lane), []string{proxy.FindingLeaseExpired, proxy.FindingReleaseNotOwner}; !slices.Equal(got, want) {
			t.Errorf("findings on the holder %v, want %v", got, want)
		}
		if got := findingsOf(s, c.Lane); !slices.Equal(got, []string{proxy.FindingOverlap}) {
			t.Errorf("findings on the contender %v, want overlap", got)
		}
		saveAndReplay(t, cat, up, "redisson-watchdog-paused")
	})
}

// renewals are the lanes of the snapshot's commands that ran
// node-redisson's renewal script, in order.
func renewals(s proxy.Snapshot) []string {
	var out []string
	for _, e := range s.Events {
		if e.Command != nil && e.Command.Script != "" && live.ScriptRole(e.Command.Script) == "renew" {
			out = append(out, e.Lane)
		}
	}
	return out
}

// TestProxyRedisPyWatchRelease: redis-py releases by check-and-delete in
// a transaction (WATCH, GET, MULTI, DEL, EXEC: pipeline(transaction=True),
// Step.Watch), the release Redis's documentation gave before scripts and
// applications still write. Through the proxy, the DEL queued in MULTI
// releases the lock at EXEC: the key read after EXEC is absent, the lane
// no longer holds it, no finding. Then a holder paused past its lease
// finds another client's token at its GET and gives up (UNWATCH,
// not_owner): the other client's hold stands, and the only finding on the
// holder is its lease running out. The saved lesson replays on both
// backends.
func TestProxyRedisPyWatchRelease(t *testing.T) {
	t.Parallel()
	realclients.Ensure(t, realclients.RedisPy)
	cat := newCatalog(t)
	throughProxy(t, func(t *testing.T, up proxied) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		key := lockKey()
		w := start(t, ctx, realclients.RedisPy, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 5000, Name: "owner", Steps: []realclients.Step{
			{Do: realclients.Acquire}, {Do: realclients.Release, Watch: true},
		}})
		if got, want := outcomes(wait(t, ctx, w)), []string{"acquire:acquired", "release:released"}; !slices.Equal(got, want) {
			t.Fatalf("redis-py's outcomes %v, want %v", got, want)
		}
		// The state read after EXEC is the queued DEL's (its Cause), as
		// the DEL is what ran.
		s := snapshotWhen(t, ctx, up.p, "the read after EXEC", func(s proxy.Snapshot) bool {
			del := lastOn(s, "DEL", "")
			return lastOn(s, "EXEC", "") != nil && del != nil && stateAfter(s, del.Seq) != nil
		})
		owner := laneOf(t, s, "owner", key)
		del := lastOn(s, "DEL", owner.Lane)
		if del == nil || lastOn(s, "EXEC", owner.Lane) == nil || lastOn(s, "WATCH", owner.Lane) == nil {
			logTrace(t, s)
			t.Fatalf("the owner's lane has no WATCH, DEL and EXEC")
		}
		if st := stateAfter(s, del.Seq); st.Present() || st.Holder != "" || st.Read.Before(lastOn(s, "EXEC", owner.Lane).Command.Replied) {
			t.Errorf("%s after the queued DEL: %+v, want absent, read after EXEC's reply", key, *st)
		}
		if st := stateAfter(s, lastOn(s, "GET", owner.Lane).Seq); st == nil || st.Holder != owner.Lane {
			logTrace(t, s)
			t.Errorf("%s after the GET: %+v, want held by %s (the DEL had not run)", key, st, owner.Lane)
		}
		if len(s.Findings) != 0 {
			t.Errorf("findings %+v, want none (the owner released its own lock)", s.Findings)
		}

		// A stale owner's check-and-delete finds another token.
		key = lockKey()
		holder := start(t, ctx, realclients.RedisPy, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 300, Name: "holder", Steps: []realclients.Step{
			{Do: realclients.Acquire}, {Do: realclients.Await}, {Do: realclients.Release, Watch: true},
		}})
		waitOutcome(t, ctx, holder, realclients.Awaiting)
		if err := up.p.Pause("holder", time.Minute); err != nil {
			t.Fatal(err)
		}
		proceed(t, holder)
		s = snapshotWhen(t, ctx, up.p, "the holder's lease to run out", func(s proxy.Snapshot) bool {
			return len(s.Findings) > 0
		})
		other := start(t, ctx, realclients.RedisPy, viaProxy(up), realclients.Plan{Key: key, LeaseMS: 60000, Name: "other", Steps: []realclients.Step{
			{Do: realclients.Acquire},
		}})
		otherEvs := wait(t, ctx, other)
		if got := outcomes(otherEvs); !slices.Equal(got, []string{"acquire:acquired"}) {
			t.Fatalf("the other client's outcomes %v", got)
		}
		otherToken := ""
		for _, ev := range otherEvs {
			if ev.Do == realclients.Acquire {
				otherToken = ev.Owner
			}
		}
		if err := up.p.Resume("holder"); err != nil {
			t.Fatal(err)
		}
		evs := wait(t, ctx, holder)
		if got, want := outcomes(evs), []string{"acquire:acquired", "await:awaiting", "await:continued", "release:not_owner:TokenMismatch"}; !slices.Equal(got, want) {
			t.Errorf("the holder's outcomes %v, want %v", got, want)
		}
		s = snapshotWhen(t, ctx, up.p, "the holder's UNWATCH", func(s proxy.Snapshot) bool {
			return lastOn(s, "UNWATCH", "") != nil
		})
		h := laneOf(t, s, "holder", key)
		o := laneOf(t, s, "other", key)
		if got := findingsOf(s, h.Lane); !slices.Equal(got, []string{proxy.FindingLeaseExpired}) {
			t.Errorf("findings on the holder %v, want only lease-expired", got)
		}
		if lastOn(s, "DEL", h.Lane) != nil || lastOn(s, "EXEC", h.Lane) != nil {
			t.Errorf("the holder sent a DEL or EXEC after finding another token")
		}
		for _, st := range s.Redis.Locks {
			if st.Key == key && (st.Holder != o.Lane || st.Value != otherToken || otherToken == "") {
				t.Errorf("%s: %+v, want held by %s with %q", key, st, o.Lane, otherToken)
			}
		}
		saveAndReplay(t, cat, up, "redis-py-watch-release")
	})
}

// lastOn is the last command named name on lane ("": any lane).
func lastOn(s proxy.Snapshot, name, lane string) *proxy.Event {
	for i := len(s.Events) - 1; i >= 0; i-- {
		e := &s.Events[i]
		if e.Command != nil && e.Command.Name == name && (lane == "" || e.Lane == lane) {
			return e
		}
	}
	return nil
}

// stateAfter is the lock state read after the event seq (nil: none yet).
func stateAfter(s proxy.Snapshot, seq uint64) *proxy.LockState {
	for i := range s.Events {
		if l := s.Events[i].Lock; l != nil && l.Cause == seq {
			return l
		}
	}
	return nil
}
