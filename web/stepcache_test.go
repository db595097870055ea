package web

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/sim"
)

// stepThrough loads lesson id in a new session of hs and steps to its end,
// returning each step's frame message (0: the load's).
func stepThrough(t *testing.T, c *wsClient, id string) []serverMsg {
	t.Helper()
	c.send(`{"type":"load","lesson":"` + id + `"}`)
	msgs := []serverMsg{c.expect(MsgFrame)}
	for msgs[len(msgs)-1].Step < msgs[0].Total {
		c.send(`{"type":"step"}`)
		msgs = append(msgs, c.expect(MsgFrame))
	}
	return msgs
}

// ranSession is a session of srv that has run course lesson id to its end
// on a store of srv's backend, set up to share as a run starts (canonical).
func ranSession(t *testing.T, srv *Server, id string) *session {
	t.Helper()
	l := srv.byID[id]
	store, err := srv.cfg.Backend.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	r, err := sim.NewRunner(l, store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := &session{srv: srv, lesson: l, store: store, runner: r}
	s.canonical(context.Background())
	return s
}

// A second session stepping a course lesson gets the panels the first one
// drew, and the same messages.
func TestStepPanelsShared(t *testing.T) {
	srv, hs := newTestHTTP(t, Config{})
	const id = "stale-owner"
	l := srv.byID[id]
	en := tr(sim.English)
	en.steps.emptyForTest()
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	first := stepThrough(t, c, id)
	for step := range first {
		if _, ok := en.steps.Load(stepKey{lesson: l, info: srv.cfg.Backend.Info(), step: step}); !ok {
			t.Fatalf("step %d of %s: no shared panels after a session stepped it", step, id)
		}
	}
	last := len(first) - 1
	for _, key := range []timelineKey{{lesson: l, info: srv.cfg.Backend.Info(), col: last, past: true}, {lesson: l, info: srv.cfg.Backend.Info(), col: last, labels: true}} {
		if _, ok := en.steps.Load(key); !ok {
			t.Fatalf("no shared timeline part %+v after a session stepped the lesson", key)
		}
	}
	again := stepThrough(t, c, id)
	if !reflect.DeepEqual(first, again) {
		t.Fatal("the second run's frame messages differ from the first's")
	}

	// Proof that they come from the memo: a marked entry shows.
	key := stepKey{lesson: l, info: srv.cfg.Backend.Info(), step: last}
	p, _ := en.steps.Load(key)
	marked := map[string]string{}
	for k, v := range p.(map[string]string) {
		marked[k] = v
	}
	marked[panelNarration] = `<p>from the memo</p>`
	en.steps.m.Store(key, marked) // replaces the entry (memo.Store keeps it)
	t.Cleanup(func() { en.steps.m.Delete(key) })
	c2 := dial(t, hs, nil)
	c2.expect(MsgHello)
	if got := stepThrough(t, c2, id)[last].Panels[panelNarration]; got != `<p>from the memo</p>` {
		t.Fatalf("last step's narration %q, want the memo's", got)
	}
}

// A run whose frames differ from the lesson's canonical run stops sharing at
// the first frame that differs, and says so in the log.
func TestStepPanelsNotSharedWhenFramesDiffer(t *testing.T) {
	var log logRecorder
	srv, _ := newTestHTTP(t, Config{Logf: log.Logf})
	s := ranSession(t, srv, "stale-owner")
	if s.canon == nil {
		t.Fatal("a course lesson on the embedded backend does not share")
	}
	canon := append([]sim.Frame(nil), s.canon...)
	canon[3].TimeMS++
	s.canon = canon
	if !s.sharedUpTo(2) {
		t.Fatal("steps 0-2 equal the canonical run's and are not shared")
	}
	if s.sharedUpTo(3) || s.sharedUpTo(1) || s.canon != nil {
		t.Fatal("a run that differed at step 3 still shares")
	}
	if logged := log.Lines(); len(logged) != 1 || !strings.Contains(logged[0], "step 3 of this run differs") {
		t.Fatalf("log %q, want one line naming step 3", log.Lines())
	}
}

// Explore timelines and lessons that are not the course's draw their own
// panels.
func TestStepPanelsNotSharedOffCourse(t *testing.T) {
	emb, _ := newTestHTTP(t, Config{})
	estore, err := emb.cfg.Backend.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	defer estore.Close(context.Background())
	for name, s := range map[string]*session{
		"explore timeline":         {srv: emb, lesson: emb.byID["stale-owner"], store: estore, timeline: true},
		"lesson not in the course": {srv: emb, lesson: lessonByID(t, testLessons(t), "stale-owner"), store: estore},
	} {
		if s.canonical(context.Background()); s.canon != nil {
			t.Errorf("%s: shares step panels", name)
		}
	}
}

// Runs on a real Redis share the step drawings of the lesson's canonical
// (embedded) run, but for the Redis panel, which names each run's own key
// prefix: two sessions stepping the same lesson get the same panels but
// that one, nothing is logged as differing, and the memo never holds a
// Redis panel that names a prefix.
func TestStepPanelsSharedOnRealRedis(t *testing.T) {
	be, _ := realBackend(t)
	var log logRecorder
	srv, hs := newTestHTTP(t, Config{Backend: be, Logf: log.Logf})
	const id = "stale-owner"
	l := srv.byID[id]
	en := tr(sim.English)
	en.steps.emptyForTest()
	var runs [2][]serverMsg
	for i := range runs {
		c := dial(t, hs, nil)
		c.expect(MsgHello)
		runs[i] = stepThrough(t, c, id)
	}
	prefixOf := func(html string) string { // the run's prefix as the Redis panel names it
		i := strings.Index(html, "lockstep:")
		if i < 0 {
			return ""
		}
		return html[i : i+strings.IndexAny(html[i:], " <")]
	}
	p0, p1 := prefixOf(runs[0][0].Panels[panelRedis]), prefixOf(runs[1][0].Panels[panelRedis])
	if p0 == "" || p1 == "" || p0 == p1 {
		t.Fatalf("the two runs' Redis panels name prefixes %q and %q, want two different ones", p0, p1)
	}
	for step := range runs[0] {
		p, ok := en.steps.Load(stepKey{lesson: l, info: be.Info(), step: step})
		if !ok {
			t.Fatalf("step %d: not shared", step)
		}
		if _, ok := p.(map[string]string)[panelRedis]; ok {
			t.Fatalf("step %d: the memo holds a Redis panel drawn with a prefix", step)
		}
		for name, html := range runs[0][step].Panels {
			other := runs[1][step].Panels[name]
			if name == panelRedis {
				if html != "" && !strings.Contains(html, p0) || other != "" && !strings.Contains(other, p1) {
					t.Fatalf("step %d: a Redis panel does not name its own run's prefix", step)
				}
				continue
			}
			if html != other {
				t.Fatalf("step %d: panel %s differs between the runs", step, name)
			}
		}
	}
	if logged := log.Lines(); len(logged) > 0 {
		t.Fatalf("logged: %q", logged)
	}
}

// Every course lesson's run is its canonical run, step by step, on the
// embedded backend and on a real Redis, so every step of it is shared:
// nothing is logged as differing, and each step's panels are in the memo
// after one session stepped the lesson.
func TestEveryLessonSharesEveryStep(t *testing.T) {
	real, _ := realBackend(t)
	for name, be := range map[string]*backend.Backend{"embedded": nil, "real": real} {
		t.Run(name, func(t *testing.T) {
			var log logRecorder
			srv, hs := newTestHTTP(t, Config{Backend: be, MessageRate: 1e9, MessageBurst: 1 << 30, Logf: log.Logf})
			zh := tr(sim.SimplifiedChinese)
			zh.steps.emptyForTest()
			c := dial(t, hs, nil)
			c.expect(MsgHello)
			for _, l := range srv.lessons {
				c.send(`{"type":"load","lesson":"` + l.ID + `","lang":"zh-CN"}`)
				m := c.expect(MsgFrame)
				for m.Step < m.Total {
					c.send(`{"type":"step"}`)
					m = c.expect(MsgFrame)
				}
				for step := 0; step <= m.Total; step++ {
					if _, ok := zh.steps.Load(stepKey{lesson: l, info: srv.cfg.Backend.Info(), step: step}); !ok {
						t.Errorf("%s step %d: not shared", l.ID, step)
					}
				}
			}
			if logged := log.Lines(); len(logged) > 0 {
				t.Fatalf("logged: %q", logged)
			}
		})
	}
}

// A canonical run shorter than the session's run (a lesson that a session
// runs further than its first run went) shares only its own steps.
func TestStepPanelsSharedUpToCanonicalEnd(t *testing.T) {
	srv, _ := newTestHTTP(t, Config{})
	s := ranSession(t, srv, "stale-owner")
	s.canon = s.canon[:3]
	if !s.sharedUpTo(2) || s.sharedUpTo(3) || s.sharedUpTo(len(s.runner.Frames())-1) {
		t.Fatal("steps past the canonical run's end are shared, or steps within it are not")
	}
}

// A page request the browser gave up on does not leave its lesson without
// a canonical run: the run does not end with the request's context.
func TestCanonicalRunOutlivesItsRequest(t *testing.T) {
	l := lessonByID(t, testLessons(t), "stale-owner") // a pointer no other test has run
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	frames, err := lessonFrames(ctx, l)
	if err != nil || len(frames) != len(l.Steps)+1 {
		t.Fatalf("first run with a cancelled request: %d frames, %v", len(frames), err)
	}
	again, err := lessonFrames(context.Background(), l)
	if err != nil || len(again) != len(frames) || &again[0] != &frames[0] {
		t.Fatal("the lesson's canonical run is not kept after its first run")
	}
}

// The memo's keys leave out the explore timeline, so a view that has one
// never shares, whatever its caller says.
func TestViewWithTimelineNeverShares(t *testing.T) {
	l := lessonByID(t, testLessons(t), "stale-owner")
	frames := expectedFrames(t, l)
	en := tr(sim.English)
	v := &view{t: en, lesson: l, frames: frames[:3], cur: 2, shared: true, tl: timelineView{on: true, code: "1.x"}}
	if v.sharable() {
		t.Error("a view with an explore timeline is sharable")
	}
	if _, err := v.renderPanels(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, ok := en.steps.Load(stepKey{lesson: l, info: v.info, step: 2}); ok {
		t.Error("a view with an explore timeline put its drawings in the memo")
	}
	if v := (&view{shared: true, prefix: "lockstep:r1:"}); !v.sharable() {
		t.Error("a canonical view with a key prefix does not share")
	}
}

// A view with a key prefix shares every step panel but the Redis panel,
// which names its prefix: it draws that one itself, whichever view drew the
// step first, and never puts it in the memo.
func TestViewWithPrefixDrawsItsRedisPanel(t *testing.T) {
	l := lessonByID(t, testLessons(t), "stale-owner")
	frames := expectedFrames(t, l)
	en := tr(sim.English)
	en.steps.emptyForTest()
	at := func(step int, prefix string) map[string]string {
		t.Helper()
		v := &view{t: en, lesson: l, frames: frames[:step+1], cur: step, shared: true, prefix: prefix}
		panels, err := v.renderPanels(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		return panels
	}
	memoRedis := func(step int) (string, bool) {
		p, ok := en.steps.Load(stepKey{lesson: l, step: step})
		if !ok {
			t.Fatalf("step %d: not in the memo", step)
		}
		html, ok := p.(map[string]string)[panelRedis]
		return html, ok
	}
	for _, order := range [][]string{{"lockstep:r1:", "", "lockstep:r2:"}, {"", "lockstep:r1:", "lockstep:r2:"}} {
		step := 2
		if order[0] == "" {
			step = 3
		}
		got := map[string]map[string]string{}
		for _, prefix := range order {
			got[prefix] = at(step, prefix)
		}
		for _, prefix := range order {
			redis := got[prefix][panelRedis]
			if prefix != "" && !strings.Contains(redis, prefix) {
				t.Errorf("step %d, prefix %q: Redis panel does not name it", step, prefix)
			}
			for _, other := range order {
				if other != prefix && other != "" && strings.Contains(redis, other) {
					t.Errorf("step %d: the Redis panel of prefix %q names %q", step, prefix, other)
				}
			}
			for _, name := range stepPanels {
				if name != panelRedis && got[prefix][name] != got[""][name] {
					t.Errorf("step %d, prefix %q: panel %s differs from the prefix-free view's", step, prefix, name)
				}
			}
		}
		if html, ok := memoRedis(step); ok && strings.Contains(html, "lockstep:") {
			t.Errorf("step %d: the memo's Redis panel names a prefix", step)
		}
	}
}

// A lesson whose canonical run fails is run again only after a wait that
// doubles, counted from the failed run's end, not on every load; until then
// lessonFrames says it waits, and a run that succeeds is kept. The fake run
// takes stepTimeout when it fails, as a run that timed out does.
func TestCanonicalRunRetriedAfterWaits(t *testing.T) {
	// testLessons loads the lessons afresh on each call: a pointer no other
	// test has run, so firstFrames has no run of it yet.
	l := lessonByID(t, testLessons(t), "missed-release")
	failing, runs := true, 0
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fakeCanonical(t, func(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
		runs++
		if failing {
			now = now.Add(stepTimeout)
			return nil, errors.New("step timed out")
		}
		return runEmbedded(ctx, l)
	}, func() time.Time { return now })
	call := func(wantRuns int, wantWaiting bool) []sim.Frame {
		t.Helper()
		frames, err := lessonFrames(context.Background(), l)
		if runs != wantRuns {
			t.Fatalf("at %s: %d runs, want %d", now.Format(time.TimeOnly), runs, wantRuns)
		}
		if waiting := waitingForCanonical(err); waiting != wantWaiting {
			t.Fatalf("at %s: error %v: waiting %v, want %v", now.Format(time.TimeOnly), err, waiting, wantWaiting)
		}
		return frames
	}
	call(1, false) // fails at 12:00:10: the next run no sooner than 5 s later
	call(1, true)
	call(1, true)
	now = now.Add(canonicalRetryFirst - time.Millisecond)
	call(1, true)
	now = now.Add(time.Millisecond)
	call(2, false) // fails again at 12:00:25: the next wait is 10 s
	now = now.Add(canonicalRetryFirst)
	call(2, true)
	failing = false
	now = now.Add(canonicalRetryFirst)
	if frames := call(3, false); len(frames) != len(l.Steps)+1 {
		t.Fatalf("the run that succeeded gave %d frames, want %d", len(frames), len(l.Steps)+1)
	}
	call(3, false) // kept

	// A run that keeps failing: the waits double up to canonicalRetryMax.
	l = lessonByID(t, testLessons(t), "missed-release")
	failing = true
	var waits []time.Duration
	for range 10 {
		if _, err := lessonFrames(context.Background(), l); err == nil || waitingForCanonical(err) {
			t.Fatalf("at %s: error %v, want the run's failure", now.Format(time.TimeOnly), err)
		}
		firstFrames.Lock()
		run := firstFrames.byLesson[l]
		firstFrames.Unlock()
		run.mu.Lock()
		next := run.retryAt
		run.mu.Unlock()
		waits = append(waits, next.Sub(now))
		now = next
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second}
	if !reflect.DeepEqual(waits, want) {
		t.Errorf("waits between failed runs %v, want %v", waits, want)
	}
}

// fakeCanonical replaces the canonical run and its clock for the test.
// Tests that replace them must not run in parallel (none in this package
// does).
func fakeCanonical(t *testing.T, run func(context.Context, *sim.Lesson) ([]sim.Frame, error), now func() time.Time) {
	t.Helper()
	oldRun, oldNow := runCanonical, canonicalNow
	t.Cleanup(func() { runCanonical, canonicalNow = oldRun, oldNow })
	runCanonical, canonicalNow = run, now
}

// A failed canonical run is logged once per try: loads and pages of the
// lesson while it waits to run again log nothing more.
func TestCanonicalRunFailureLoggedOncePerTry(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fakeCanonical(t, func(context.Context, *sim.Lesson) ([]sim.Frame, error) {
		return nil, errors.New("step timed out")
	}, func() time.Time { return now })
	var log logRecorder
	all := testLessons(t) // fresh lesson pointers: no canonical run yet
	_, hs := newTestHTTP(t, Config{Lessons: all, Logf: log.Logf})
	failures := func() int {
		n := 0
		for _, line := range log.Lines() {
			if strings.Contains(line, "lesson stale-owner: first run") {
				n++
			}
		}
		return n
	}
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	for i := range 3 {
		c.send(ClientMessage{Type: MsgLoad, ID: int64(i + 1), Lesson: "stale-owner"})
		c.expect(MsgFrame)
		resp, err := http.Get(hs.URL + "/lessons/stale-owner?step=2")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("player page: %s", resp.Status)
		}
	}
	if n := failures(); n != 1 {
		t.Fatalf("the failed run was logged %d times in its wait, want once:\n%s", n, strings.Join(log.Lines(), "\n"))
	}
	now = now.Add(canonicalRetryFirst)
	c.send(ClientMessage{Type: MsgLoad, ID: 9, Lesson: "stale-owner"})
	c.expect(MsgFrame)
	if n := failures(); n != 2 {
		t.Fatalf("the run tried again after its wait was logged %d times in all, want 2", n)
	}
}
