package web

import (
	"context"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
)

// ownLockTimeline returns the share code of classLesson under a learner's
// lock (a String lock, grant-token owner, no reentry) whose acquire is the
// one-line Lua acquire and whose release deletes KEYS[1]: the session
// every test of a bound on a learner's scripts loads.
func ownLockTimeline(t *testing.T, srv *Server, acquire string) string {
	t.Helper()
	src := "name: mine\nlock: {type: string}\nowner: grant-token\nreentry: none\n" +
		"acquire:\n  source: |\n    " + acquire + "\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
		"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n"
	def, err := sim.LoadVariant("mine.variant.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := explore.AsLock(srv.lesson(context.Background(), classLesson).Lesson, def)
	if err != nil {
		t.Fatal(err)
	}
	code, err := srv.encodeTimeline(explore.Timeline{Kind: explore.KindUnder, Lesson: lv, Origin: explore.Origin{Under: classLesson}})
	if err != nil {
		t.Fatal(err)
	}
	return code
}
