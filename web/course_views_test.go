package web

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"lockstep/drill"
	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/view"
)

// courseViews draws the steps of course lessons for one test: it loads the
// course once and runs each lesson it is asked for once, where loading and
// running again for every step drawn made these tests some of the package's
// slowest (docs/testing.md).
type courseViews struct {
	t      *testing.T
	all    []*sim.Lesson
	frames map[string][]sim.Frame
}

// newCourseViews returns an empty courseViews for t.
func newCourseViews(t *testing.T) *courseViews {
	return &courseViews{t: t, all: testLessons(t), frames: map[string][]sim.Frame{}}
}

// at returns the view of step cur of course lesson id in locale loc.
func (c *courseViews) at(id string, cur int, loc sim.Locale) *view.Step {
	c.t.Helper()
	l := lessonByID(c.t, c.all, id)
	frames, ok := c.frames[id]
	if !ok {
		frames = expectedFrames(c.t, l)
		c.frames[id] = frames
	}
	if cur >= len(frames) {
		c.t.Fatalf("%s has %d frames, not %d", id, len(frames), cur+1)
	}
	return view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames[:cur+1], Cur: cur})
}

// TestLessonNoteApart checks issue 16 item 1.8: how Lockstep runs the
// failover lesson is its note, shown before the first step in every
// language, and no step's narration speaks of the tool.
func TestLessonNoteApart(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	for _, loc := range sim.Locales {
		n := cv.at("failover", 0, loc).Narration()
		if n.Note == "" || !strings.Contains(n.Note, "redis-server") {
			t.Errorf("%s: step 0 shows no note of how the lesson runs: %q", loc, n.Note)
		}
		if n1 := cv.at("failover", 1, loc).Narration(); n1.Note != "" || strings.Contains(n1.Say, "Lockstep") || strings.Contains(n1.Say, "redis-server") {
			t.Errorf("%s: step 1 note %q, say %q: the tool belongs in the note", loc, n1.Note, n1.Say)
		}
	}
}

// TestWrongOwnerDrawnApart checks issue 16 item 1.9: a release that deletes
// or lowers another owner's hold is drawn as a marked wrong transition, not
// as seed 001's release edge (lessons 04 and 05 step 8, 10 step 6, 09 step 6).
func TestWrongOwnerDrawnApart(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	for _, tc := range []struct {
		id   string
		step int
	}{{"setnx-del", 8}, {"get-then-del", 8}, {"owner-reused", 6}, {"instance-owner", 6}} {
		for _, loc := range sim.Locales {
			v := cv.at(tc.id, tc.step, loc)
			d := v.Diagram()
			var wrong int
			for _, e := range d.Edges {
				switch {
				case e.Wrong && e.Taken && e.ID == sim.WrongOwner && e.Path != "":
					wrong++
				case e.Taken:
					t.Errorf("%s step %d (%s): seed 001's edge %s drawn as taken", tc.id, tc.step, loc, e.ID)
				}
			}
			if wrong != 1 {
				t.Errorf("%s step %d (%s): %d wrong-owner transitions drawn, want 1", tc.id, tc.step, loc, wrong)
			}
			if d.OffDiagram == "" || !strings.Contains(d.OffDiagram, "✕") {
				t.Errorf("%s step %d (%s): no note on the wrong transition: %q", tc.id, tc.step, loc, d.OffDiagram)
			}
		}
	}
	// The holder's own release still takes the diagram's edge.
	d := cv.at("nested-reentry", 10, sim.English).Diagram()
	for _, e := range d.Edges {
		if e.Wrong || (e.Taken && e.ID != "release-or-expire") {
			t.Errorf("nested-reentry step 10: edge %+v", e)
		}
	}
}

// TestCaptionsFitKeyType checks issue 16 item 1.10: the caption beside an
// outcome says only what the lock's key holds. A plain SET NX String has
// no count and no owner check; local-count keeps its count in the client.
func TestCaptionsFitKeyType(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	gloss := func(id string, step int) string {
		n := cv.at(id, step, sim.English).Narration()
		if n.OutcomeGloss == "" {
			t.Fatalf("%s step %d: no caption", id, step)
		}
		return n.OutcomeGloss
	}
	for _, tc := range []struct {
		id      string
		step    int
		has     string
		hasNone []string
	}{
		{"setnx-del", 1, "no count", []string{"count became"}},
		{"setnx-del", 3, "compares no owner", []string{"another owner"}},
		{"setnx-del", 8, "whoever", []string{"count"}},
		{"get-then-del", 1, "SET NX", []string{"count became"}},
		{"get-then-del", 12, "deleted", []string{"count"}},
		{"local-count-expiry", 1, "memory", []string{"count became"}},
		{"local-count-expiry", 3, "memory", []string{"count grew"}},
		{"local-count-expiry", 11, "client's count", []string{"count reached 0, key"}},
		{"nested-reentry", 1, "count became 1", nil},
		{"lost-context-self-block", 3, "nested acquire is refused", []string{"holds nothing under that key"}},
	} {
		g := gloss(tc.id, tc.step)
		if !strings.Contains(g, tc.has) {
			t.Errorf("%s step %d: caption %q does not say %q", tc.id, tc.step, g, tc.has)
		}
		for _, no := range tc.hasNone {
			if strings.Contains(g, no) {
				t.Errorf("%s step %d: caption %q says %q", tc.id, tc.step, g, no)
			}
		}
	}
	// Every kind's captions exist in every language.
	for _, loc := range sim.Locales {
		for _, id := range []string{"setnx-del", "get-then-del", "local-count-expiry"} {
			n := cv.at(id, 1, loc).Narration()
			if n.OutcomeGloss == "" || strings.Contains(n.OutcomeGloss, "⟦") {
				t.Errorf("%s %s: caption %q", id, loc, n.OutcomeGloss)
			}
		}
	}
}

// TestNarrationRedlockCaptions checks issue 39 (a fresh review): the
// caption of a Redlock step's outcome says what each node did, where one
// Redis's caption ("the key exists, so SET NX wrote nothing", "nothing
// deleted") is false: a node that granted a failed attempt, the client's
// unlock that released it again or its absence, a release that reached
// one node only.
func TestNarrationRedlockCaptions(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	for _, loc := range sim.Locales {
		tl := tr(loc)
		// A list of nodes in the reader's language: "1、2" in Chinese.
		sep := tl.T("LockListSep")
		grantedOne := func(node string) string {
			return tl.T("NodesGrantedNoMajority", "Nodes", node, "Count", 1, "Total", 3)
		}
		for _, tc := range []struct {
			id   string
			step int
			want string
			not  string
		}{
			{"redlock-failed-majority", 1, tl.T("NodesKept", "Gloss", grantedOne("1")), "OutcomeBUSY.local"},
			{"redlock-failed-majority", 2, tl.T("NodesUndone", "Gloss", grantedOne("2"), "Nodes", "2"), "OutcomeBUSY.local"},
			{"redlock-failed-majority", 4, tl.T("NodesUndone", "Gloss", grantedOne("1"), "Nodes", "1"), "OutcomeBUSY.local"},
			{"redlock-failed-majority", 6, tl.T("NodesGranted", "Nodes", "1"+sep+"2", "Count", 2, "Total", 3), "OutcomeACQUIRED.local"},
			{"redlock-node-clock-jump", 6, tl.T("NodesUndone", "Gloss", grantedOne("2"), "Nodes", "2"), "OutcomeBUSY.local"},
			{"redlock-node-clock-jump", 7, tl.T("NodesReleasedNoMajority", "Actor", "A", "Nodes", "1", "Count", 1, "Total", 3), "OutcomeNOT_OWNER.local"},
			{"redlock-node-clock-jump", 8, tl.T("NodesReleased", "Actor", "A", "Nodes", "1"+sep+"3", "Count", 2, "Total", 3), "OutcomeRELEASED.local"},
			{"redlock-restart", 5, tl.T("NodesReleasedNoMajority", "Actor", "A", "Nodes", "1", "Count", 1, "Total", 3), "OutcomeNOT_OWNER.local"},
		} {
			got := cv.at(tc.id, tc.step, loc).Narration().OutcomeGloss
			if got != tc.want || got == tl.T(tc.not) {
				t.Errorf("%s step %d (%s): caption %q, want %q", tc.id, tc.step, loc, got, tc.want)
			}
		}
	}
	// One Redis keeps its own captions.
	if got, want := cv.at("local-count-expiry", 1, sim.English).Narration().OutcomeGloss, tr(sim.English).T("OutcomeACQUIRED.local"); got != want {
		t.Errorf("local-count-expiry step 1: caption %q, want %q", got, want)
	}
}

// TestNarrationFencingCounterCause checks issue 39 (a fresh review): the
// fencing counter's TTL in lesson 19a is the application's bug the lesson
// shows, not Lockstep's cleanup, and the stale-write banner names why the
// counter went back in each lesson: its expiry in 19a, the failover that
// lost the writer's hold and its increment in 20 (whose zh banner then
// does not call A's lost hold expired).
func TestNarrationFencingCounterCause(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	for _, loc := range sim.Locales {
		tl := tr(loc)
		var note string
		for _, k := range cv.at("fencing-counter-expires", 1, loc).Redis().Keys {
			if sim.IsFencingCounterKey(k.Name) {
				note = k.PTTLNote
			}
		}
		if want := tl.T("FencingTTLLesson", "TTL", view.Seconds(tl, 60_000)); note != want {
			t.Errorf("fencing-counter-expires step 1 (%s): the counter's TTL note %q, want %q", loc, note, want)
		}
		for _, tc := range []struct {
			id   string
			step int
			want string
		}{
			{"fencing-counter-expires", 10, "violation.stale-write.fenced.expired"},
			{"failover", 8, "violation.stale-write.fenced.failover"},
		} {
			a := cv.at(tc.id, tc.step, loc).Alerts()
			var ids, shown []string
			for _, vi := range cv.frames[tc.id][tc.step].Violations {
				if vi.Name == sim.InvStaleWrite {
					ids = append(ids, vi.Detail.ID)
					shown = append(shown, tl.Msg(vi.Detail))
				}
			}
			var got []string
			for _, vi := range a.Violations {
				if vi.Name == sim.InvStaleWrite {
					got = append(got, vi.Detail)
				}
			}
			if len(ids) != 1 || ids[0] != tc.want || !slices.Equal(got, shown) {
				t.Errorf("%s step %d (%s): stale-write banners %q (%v), want message %s", tc.id, tc.step, loc, got, ids, tc.want)
			}
		}
	}
	for _, vi := range cv.at("failover", 8, sim.SimplifiedChinese).Alerts().Violations {
		if vi.Name == sim.InvStaleWrite && strings.Contains(vi.Detail, "过期") {
			t.Errorf("failover step 8: the banner calls A's hold, lost in the failover, expired: %q", vi.Detail)
		}
	}
}

// TestNarrationLaneContext checks issue 39 (a fresh review): a lane whose
// actor runs in another's execution context without descending from it (a
// pooled thread's next task in 16a and 10c, a callback a library runs in
// request B's context in 07a) is labelled with whose context it has, not
// as forked from that actor and inheriting its context.
func TestNarrationLaneContext(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	for _, loc := range sim.Locales {
		tl := tr(loc)
		for _, tc := range []struct{ id, child, parent string }{
			{"context-confusion", "CB", "B"},
			{"unlock-timeout-thread-reused", "T7b", "T7"},
			{"threadlocal-left-on-pooled-thread", "T2", "T1"},
		} {
			want := tl.T("LaneSameContext", "Parent", tc.parent)
			found := false
			for _, lane := range cv.at(tc.id, 3, loc).Timeline().Lanes {
				if lane.ID == tc.child {
					found = true
					if lane.Sub != want {
						t.Errorf("%s (%s): lane %s labelled %q, want %q", tc.id, loc, tc.child, lane.Sub, want)
					}
				}
			}
			if !found {
				t.Errorf("%s (%s): no lane %s", tc.id, loc, tc.child)
			}
		}
	}
}

// TestSetNXDrillNarration checks that a SET NX lock's refusal is not
// explained as an owner-id comparison (issue 16 item 1.10): SET NX only
// finds the key there.
func TestSetNXDrillNarration(t *testing.T) {
	t.Parallel()
	l, err := sim.Load("setnx.yaml", []byte(`
variant: setnx-del
lease: 10s
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: B, do: acquire, expect: BUSY}
`))
	if err != nil {
		t.Fatal(err)
	}
	frames := expectedFrames(t, l)
	m, ok := drill.Explain(l, &l.Steps[1], frames[1], frames[2])
	if !ok || m.ID != "narration.busy-plain" {
		t.Fatalf("B's refusal explained as %v (%v)", m, ok)
	}
	for _, loc := range sim.Locales {
		if s := tr(loc).Msg(m); strings.Contains(s, "owner id t-") || !strings.Contains(s, "SET NX") {
			t.Errorf("%s: %q", loc, s)
		}
	}
}

// TestOwnerLabelKnowsThePast checks issue 16 item 1.11: the Redis panel
// names the actors an owner id belongs to as far as the step knows; round
// 2 on thread-7 appears only at step 4 of owner-reused.
func TestOwnerLabelKnowsThePast(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	who := func(step int) string {
		for _, k := range cv.at("owner-reused", step, sim.English).Redis().Keys {
			for _, f := range k.Fields {
				if f.Name == "thread-7" {
					return f.Who
				}
			}
		}
		t.Fatalf("step %d: no field thread-7", step)
		return ""
	}
	if got := who(1); got != "token of R1" {
		t.Errorf("step 1: owner labelled %q, want %q", got, "token of R1")
	}
	if got := who(4); got != "token of R1, R2" {
		t.Errorf("step 4: owner labelled %q, want %q", got, "token of R1, R2")
	}
}

// TestLessonLabels checks that a lesson is numbered as its file names it,
// so the course's "lesson 12" stays lesson 12 when lessons are added
// between others (12a, 14a).
func TestLessonLabels(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{"lessons/01-nested-reentry.yaml": "1", "lessons/12a-x.yaml": "12a", "lessons/20-failover.yaml": "20", "testdata/forks.yaml": "31"} {
		if got := lessonLabel(&sim.Lesson{File: file}, 30); got != want {
			t.Errorf("%s: label %q, want %q", file, got, want)
		}
	}
}

// TestWhyQuestionsAndMisconceptions checks issue 16 section 4: the lessons
// the issue names carry a "why" question that predict mode asks (its
// reasons in every locale, the right one marked), and the narration shows
// a step's misconception callout at that step only.
func TestWhyQuestionsAndMisconceptions(t *testing.T) {
	t.Parallel()
	cv := newCourseViews(t)
	all := testLessons(t)
	for _, id := range []string{"stale-owner", "nested-after-takeover-busy", "nested-shortens-lease", "retried-unlock", "shared-context-concurrent", "renewal-timeout-silent", "lost-context-self-block", "idempotent-unlock", "nested-after-expiry-lost", "wait-not-enough", "long-script-blocks"} {
		l := lessonByID(t, all, id)
		var steps []*view.PredictStep
		if err := json.Unmarshal([]byte(view.PredictSteps(l)), &steps); err != nil {
			t.Fatal(err)
		}
		asked, callout := 0, 0
		for i, st := range l.Steps {
			if st.Why != nil {
				p := steps[i]
				if p == nil || len(p.Because) != len(st.Because) {
					t.Fatalf("%s step %d: why not offered in predict mode: %+v", id, i+1, p)
				}
				for _, loc := range sim.Locales {
					if p.Why[loc] != st.Why.In(loc) || p.Because[p.Right][loc] != st.Because[0].In(loc) {
						t.Errorf("%s step %d %s: the right reason is not the lesson's first", id, i+1, loc)
					}
				}
				asked++
			}
			if st.Misconception == nil {
				continue
			}
			callout++
			for _, loc := range sim.Locales {
				if got := cv.at(id, i+1, loc).Narration().Misconception; got == "" || got != strings.TrimSpace(st.Misconception.In(loc)) {
					t.Errorf("%s step %d %s: callout %q", id, i+1, loc, got)
				}
				if i > 0 && l.Steps[i-1].Misconception == nil {
					if got := cv.at(id, i, loc).Narration().Misconception; got != "" {
						t.Errorf("%s step %d %s: the callout of step %d shows a step early", id, i, loc, i+1)
					}
				}
			}
		}
		if asked+callout == 0 {
			t.Errorf("%s: no why question and no misconception", id)
		}
	}
}

// TestCourseMapCoversTheCourse checks the course page's closing section
// (issue 16 section 4): the four kinds of failure, each naming course
// lessons that exist, every course lesson in exactly one kind, every kind
// with its fix, and the efficiency-versus-correctness part with its source,
// in every language.
func TestCourseMapCoversTheCourse(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	seen := map[string]int{}
	for _, k := range view.CourseKinds() {
		for _, id := range append(slices.Clone(k.Failures), k.Fixes...) {
			seen[id]++
		}
	}
	for _, l := range all {
		if l.Group == "" {
			continue // a test lesson, not the course's
		}
		if seen[l.ID] != 1 {
			t.Errorf("course lesson %s is in %d kinds of the course map, want 1", l.ID, seen[l.ID])
		}
		delete(seen, l.ID)
	}
	for id := range seen {
		t.Errorf("the course map names %s, which is no course lesson", id)
	}
	_, hs := newTestHTTP(t, Config{})
	for _, loc := range sim.Locales {
		_, body := get(t, hs.URL+"/?lang="+string(loc), nil)
		page := parseDOM(t, body)
		kinds := page.all(withAttr("data-kind", ""))
		if len(kinds) != 4 {
			t.Fatalf("%s: %d kinds on the course page, want 4", loc, len(kinds))
		}
		for i, k := range kinds {
			if id, _ := attr(k, "data-kind"); id != view.CourseKinds()[i].ID {
				t.Errorf("%s: kind %d is %s, want %s", loc, i+1, id, view.CourseKinds()[i].ID)
			}
			var hrefs []string
			for _, a := range (dom{k}).all(tag("a")) {
				h, _ := attr(a, "href")
				hrefs = append(hrefs, h)
			}
			links := 0
			for _, id := range view.CourseKinds()[i].Failures {
				if slices.ContainsFunc(hrefs, func(h string) bool { return strings.HasPrefix(h, "/lessons/"+id+"?") }) {
					links++
				}
			}
			if links != len(view.CourseKinds()[i].Failures) {
				t.Errorf("%s: kind %s links %d of its %d failure lessons", loc, view.CourseKinds()[i].ID, links, len(view.CourseKinds()[i].Failures))
			}
		}
		m := page.one(t, "course map", withAttr("data-testid", "course-map"))
		if !strings.Contains(textOf(m), "Kleppmann") || !strings.Contains(textOf(m), view.KleppmannURL) {
			t.Errorf("%s: the course map does not cite its source", loc)
		}
	}
}

// TestCheckThenWriteHeadlines checks the heads of the resource that checks
// the fencing token and writes in two round trips (issue 39, missing topic
// 1): the write step of fencing-check-then-write says it checks the token,
// not that it writes, and finish-write has a head of its own, in every
// language; the write step of fencing-compare-and-write writes.
func TestCheckThenWriteHeadlines(t *testing.T) {
	t.Parallel()
	c := newCourseViews(t)
	for _, loc := range sim.Locales {
		write := tr(loc).T("HeadWrite", "Actor", "A", "Lock", "order:42", "Value", "refunded")
		check := c.at("fencing-check-then-write", 2, loc).Narration().Headline
		finish := c.at("fencing-check-then-write", 9, loc).Narration().Headline
		fenced := c.at("fencing-compare-and-write", 7, loc).Narration().Headline
		if check == write || !strings.Contains(check, "refunded") {
			t.Errorf("%s: the check step's head is %q, want the token check before writing “refunded”", loc, check)
		}
		if finish == "" || finish == string(sim.ActFinishWrite) || strings.Contains(finish, "refunded") {
			t.Errorf("%s: finish-write's head is %q, want its own", loc, finish)
		}
		if fenced != write {
			t.Errorf("%s: the one-step write's head is %q, want %q", loc, fenced, write)
		}
	}
}

// TestCheckThenWriteChipsNameTheCheck checks that the timeline and the
// predict question name a write step of fencing-check-then-write (steps 2
// and 6, which send only the token check) for what it does, not "write",
// in every language, before it runs (ghost chip) and after (chip); the
// finish-write steps and fencing-compare-and-write's one-step write keep
// their own names (issue 39, left by the fresh-eyes review).
func TestCheckThenWriteChipsNameTheCheck(t *testing.T) {
	t.Parallel()
	c := newCourseViews(t)
	chip := func(v *view.Step, step int, class string) string {
		for _, tx := range v.Timeline().Columns[step].Texts {
			if tx.Class == class {
				return tx.Text
			}
		}
		return ""
	}
	for _, loc := range sim.Locales {
		tl := tr(loc)
		check, write, finish := tl.T("ActCheckToken"), view.ActionName(tl, sim.ActWrite), view.ActionName(tl, sim.ActFinishWrite)
		if check == write {
			t.Fatalf("%s: the check's name %q is the write's", loc, check)
		}
		end := c.at("fencing-check-then-write", 9, loc)
		for step, want := range map[int]string{2: check, 6: check, 7: finish, 9: finish} {
			if got := chip(end, step, "chip-action"); got != want {
				t.Errorf("%s: step %d's chip says %q, want %q", loc, step, got, want)
			}
		}
		if got := chip(c.at("fencing-check-then-write", 1, loc), 2, "ghost-text"); got != check {
			t.Errorf("%s: step 2's ghost chip says %q, want %q", loc, got, check)
		}
		if got := chip(c.at("fencing-compare-and-write", 7, loc), 7, "chip-action"); got != write {
			t.Errorf("%s: the one-step write's chip says %q, want %q", loc, got, write)
		}
		var glosses map[string]string
		if err := json.Unmarshal([]byte(view.PredictGlosses(tl)), &glosses); err != nil || glosses["act:check-token"] != check {
			t.Errorf("%s: the predict glosses name the check %q (%v), want %q", loc, glosses["act:check-token"], err, check)
		}
	}
	var steps []*view.PredictStep
	if err := json.Unmarshal([]byte(view.PredictSteps(lessonByID(t, c.all, "fencing-check-then-write"))), &steps); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		if st != nil && st.CheckOnly != (i == 1 || i == 5) {
			t.Errorf("predict step %d: check_only %v", i+1, st.CheckOnly)
		}
	}
}

// maxLanes is the most lanes (actors, forked ones included, and Redis) a
// course lesson's timeline may have: presenter mode at 1024x768 shrinks
// every lane's text with each lane more (issue 38's review measured
// setnx-del's lane text at a few pixels once it had seven).
const maxLanes = 5

// TestLessonsFitFiveLanes: every course lesson tells its story with at
// most maxLanes lanes, so that a projector can show it (lesson 04 had
// seven after its unlock after a failed acquire gained two actors, 13a
// six).
func TestLessonsFitFiveLanes(t *testing.T) {
	t.Parallel()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		frames := expectedFrames(t, l)
		v := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames[:1], Cur: 0})
		if n := len(v.Timeline().Lanes); n > maxLanes {
			t.Errorf("%s: %d lanes, at most %d fit presenter mode (tell the story with fewer actors)", l.File, n, maxLanes)
		}
	}
}
