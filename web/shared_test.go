package web

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/view"
)

// stepThrough loads lesson id in lang on a new connection and returns every
// frame message: the load's, each step's to the end, a step back and a seek
// to the start.
func stepThrough(t *testing.T, c *wsClient, l *sim.Lesson, lang string) []serverMsg {
	t.Helper()
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, Lesson: l.ID, Lang: lang})
	out := []serverMsg{c.expect(MsgFrame)}
	for range l.Steps {
		c.send(ClientMessage{Type: MsgStep})
		out = append(out, c.expect(MsgFrame))
	}
	c.send(ClientMessage{Type: MsgBack})
	out = append(out, c.expect(MsgFrame))
	c.send(ClientMessage{Type: MsgSeek, Step: intp(0)})
	return append(out, c.expect(MsgFrame))
}

// samePanels fails unless two sessions' frame messages carry the same
// panels and timeline patches, leaving out the panels named in skip.
func samePanels(t *testing.T, what string, got, want []serverMsg, skip ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		for _, name := range skip {
			delete(g.Panels, name)
			delete(w.Panels, name)
		}
		if !reflect.DeepEqual(g.Panels, w.Panels) || !reflect.DeepEqual(g.TimelinePatch, w.TimelinePatch) {
			t.Fatalf("%s: message %d (step %d) differs:\n got %v %+v\nwant %v %+v", what, i, g.Step, g.Panels, g.TimelinePatch, w.Panels, w.TimelinePatch)
		}
	}
}

// TestSharedDrawings: sessions of a course lesson that share its step
// drawings (the second one takes the first one's from the frame cache) send
// exactly what a server that shares nothing sends.
func TestSharedDrawings(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	shared, hsShared := newTestHTTP(t, Config{Lessons: all})
	own, hsOwn := newTestHTTP(t, Config{Lessons: all})
	own.frames.noShared = true
	for _, id := range []string{"stale-owner", "nested-reentry"} {
		l := lessonByID(t, all, id)
		for _, lang := range []string{"zh-TW", "en"} {
			want := stepThrough(t, dial(t, hsOwn, nil), l, lang)
			first := stepThrough(t, dial(t, hsShared, nil), l, lang)
			second := stepThrough(t, dial(t, hsShared, nil), l, lang)
			samePanels(t, id+" "+lang+", the first session", first, want)
			samePanels(t, id+" "+lang+", the second session", second, want)
		}
	}
	if shared.frames.drawnBytes() == 0 {
		t.Fatal("the sharing server kept no drawings")
	}
	if n := own.frames.drawnBytes(); n != 0 {
		t.Fatalf("the server that shares nothing kept %d bytes of drawings", n)
	}
}

// TestSharedDrawingsOnlyWhileFramesAgree: a session takes a step's
// drawings from the cache only while its frames so far are the cached
// run's. The test marks the kept narration of steps 1 and 2 and makes the
// cached run's frame 2 differ from what a run produces: the next session
// shows the mark at step 1 (shared) but its own narration from step 2 on,
// and the difference is logged.
func TestSharedDrawingsOnlyWhileFramesAgree(t *testing.T) {
	t.Parallel()
	logs := &logRecorder{}
	all := testLessons(t)
	srv, hs := newTestHTTP(t, Config{Lessons: all, Logf: logs.Logf})
	l := lessonByID(t, all, "stale-owner")
	want := stepThrough(t, dial(t, hs, nil), l, "en")
	run := srv.frames.entry(l.ID)
	run.mu.Lock()
	frames := slices.Clone(run.frames)
	run.mu.Unlock()
	if len(frames) != len(l.Steps)+1 {
		t.Fatalf("the cache has %d frames of %s, want %d", len(frames), l.ID, len(l.Steps)+1)
	}
	frames[2].TimeMS++
	const mark = "<p>kept drawing</p>"
	run.mu.Lock()
	run.frames = frames
	run.mu.Unlock()
	run.drawMu.Lock()
	for step := 1; step <= 2; step++ {
		k := panelKey{sim.English, step, view.PanelNarration}
		if _, ok := run.panels[k]; !ok {
			t.Fatalf("no kept narration of step %d", step)
		}
		run.panels[k] = mark
	}
	run.drawMu.Unlock()
	got := stepThrough(t, dial(t, hs, nil), l, "en")
	if n := got[1].Panels[view.PanelNarration]; n != mark {
		t.Fatalf("step 1 (frames agree) did not take the kept narration: %q", n)
	}
	if n := got[2].Panels[view.PanelNarration]; n == mark || n != want[2].Panels[view.PanelNarration] {
		t.Fatalf("step 2 (frames differ) shows %q, want the run's own narration", n)
	}
	if !slices.ContainsFunc(logs.Lines(), func(s string) bool { return strings.Contains(s, "step 2 of this run differs") }) {
		t.Fatalf("the difference was not logged: %q", logs.Lines())
	}
}

var runPrefix = regexp.MustCompile(regexp.QuoteMeta(backend.KeyNamespace) + `\{run-[^}]*\}`)

// TestSharedDrawingsRealRedis: on a real Redis, sessions share a course
// lesson's step drawings too, but each Redis panel names the session's own
// key prefix.
func TestSharedDrawingsRealRedis(t *testing.T) {
	t.Parallel()
	be, _ := realBackend(t)
	all := testLessons(t)
	srv, hs := newTestHTTP(t, Config{Backend: RedisBackend(be), Lessons: all})
	l := lessonByID(t, all, "stale-owner")
	first := stepThrough(t, dial(t, hs, nil), l, "zh-CN")
	second := stepThrough(t, dial(t, hs, nil), l, "zh-CN")
	prefixes := func(msgs []serverMsg) []string {
		var out []string
		for _, m := range msgs {
			if p, ok := m.Panels[view.PanelRedis]; ok {
				out = append(out, runPrefix.FindAllString(p, -1)...)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	p1, p2 := prefixes(first), prefixes(second)
	if len(p1) != 1 || len(p2) != 1 || p1[0] == p2[0] {
		t.Fatalf("Redis panels name prefixes %q and %q, want one of each session's own", p1, p2)
	}
	samePanels(t, "the second session", second, first, view.PanelRedis)
	if srv.frames.drawnBytes() == 0 {
		t.Fatal("the server kept no drawings")
	}
}
