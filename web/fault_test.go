package web

import (
	"context"
	"testing"
	"time"

	"lockstep/backend"
)

// TestProtocolRedisKilledOthersServed kills redis-server in the middle of a
// lesson on the real backend: the step answers a redis error, other
// sessions are still served (computed frames, a new session's load), the
// lesson resumes once redis-server is back on its port, every key of ours
// then has a TTL, and none is left after the sessions close. (The browser
// side of a server restart is TestBrowserReconnect.)
func TestProtocolRedisKilledOthersServed(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	srv, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	all := testLessons(t)
	stale := lessonByID(t, all, "stale-owner")
	want := expectedFrames(t, stale)
	rc := rs.Client(t)

	a, _ := loadedSession(t, hs, ClientMessage{Lesson: stale.ID, Step: intp(1)})
	b, _ := loadedSession(t, hs, ClientMessage{Lesson: "nested-reentry", Step: intp(3)})

	rs.Stop()
	stepWithRedisDown(t, a, 1, 1)
	// The other session is served from its computed frames.
	b.send(ClientMessage{Type: MsgSeek, Step: intp(1)})
	if m := b.expect(MsgFrame); m.Step != 1 {
		t.Fatalf("other session's seek: step %d", m.Step)
	}
	// A new session can open and load (step 0 needs no Redis).
	c, m := loadedSession(t, hs, ClientMessage{Lesson: "missed-release"})
	if m.Step != 0 {
		t.Fatalf("new session's load: step %d", m.Step)
	}

	rs.Restart(t)
	for tries := 0; ; tries++ {
		a.send(ClientMessage{Type: MsgStep})
		m := a.read()
		if m.Type == MsgError && m.Code == ErrCodeRedis && tries < 100 {
			a.expect(MsgFrame) // step 1 again; the pool redials on the next try
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if m.Type != MsgFrame || m.Step != 2 {
			t.Fatalf("resume: %+v", m)
		}
		sameFrame(t, frameOf(t, m), want[2])
		break
	}
	b.send(ClientMessage{Type: MsgSeek, Step: intp(4)})
	if m := b.expect(MsgFrame); m.Step != 4 {
		t.Fatalf("other session after the restart: step %d", m.Step)
	}
	ctx := context.Background()
	keys, err := rc.Keys(ctx, backend.KeyNamespace+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		t.Fatal("no keys of ours after the resume")
	}
	for _, k := range keys {
		if ttl := rc.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("key %s has no TTL (PTTL %v)", k, ttl)
		}
	}
	a.conn.Close()
	b.conn.Close()
	c.conn.Close()
	waitFor(t, "the sessions to end", func() bool { return srv.Sessions() == 0 })
	waitFor(t, "the runs' keys to go", func() bool {
		ks, err := rc.Keys(ctx, backend.KeyNamespace+"*").Result()
		return err == nil && len(ks) == 0
	})
}
