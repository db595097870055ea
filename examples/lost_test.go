package examples_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/search"
	"lockstep/sim"
)

// Issue 33, item 4: a holder that hears "lock lost". Two locks of our own
// in variants/: touch.variant.yaml, whose extend (renew, every lease/3)
// renews the key only while it holds the caller's owner id and answers 0
// otherwise, read as LOST; and touch-with-setnx.variant.yaml, the same lock
// whose extend re-takes an expired key with SET NX and answers 1, read as
// RENEWED. Both are non-reentrant String locks (reentry: none) with a
// fresh owner id per outermost acquire.

func variantFile(name string) string { return filepath.Join("variants", name) }

func loadDef(t *testing.T, name string) *sim.VariantDef {
	t.Helper()
	def, err := sim.LoadVariantFile(variantFile(name))
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// lessonRow is a course table row for lesson l (its own lock's run beside
// its run under def), as the "Your lock" page computes it.
func lessonRow(t *testing.T, cat *catalog.Catalog, be *backend.Backend, l *sim.Lesson, def *sim.VariantDef) (courseRow, []sim.Frame) {
	t.Helper()
	own, _ := lessontest.Run(t, be, l)
	lv, err := explore.AsLock(l, def)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := lessontest.Run(t, be, lv)
	_, first := explore.Under(cat, l, lv, frames, own)
	r := courseRow{first: first}
	if first > 0 {
		r.got, r.want = frames[first].Outcome, own[first].Outcome
		if explore.Differs(frames[first], own[first]) == explore.DiffRenewal {
			// The step's outcome is the same: the row says what the
			// renewals answered.
			r.got, r.want = renewals(frames[first]), renewals(own[first])
		}
	}
	r.broken, r.both = explore.BrokenUnder(frames, own)
	b, _ := json.Marshal(frames)
	r.framesJSONOut = string(b)
	return r, frames
}

// renewals are the outcomes of f's renewals, joined by "+".
func renewals(f sim.Frame) sim.Outcome {
	var s []string
	for _, o := range explore.RenewalOutcomes(f) {
		s = append(s, string(o))
	}
	return sim.Outcome(strings.Join(s, "+"))
}

// TestTouchLesson runs touch.lesson.yaml (a slow holder) under its own lock
// on both backends: every expectation holds (A ACQUIRED, paused past its
// 30 s lease; B ACQUIRED with overlapping-holders, writes, RELEASED; A
// resumes and its overdue extend at 31 s finds no key of A's: 0, LOST; A's
// write goes round the lock, ACCEPTED with no stale-write; A's release
// NOT_OWNER; overlapping-holders at steps 4 and 5, while B holds and A
// believes), the frames are the same, the real Redis keeps no key after
// the run, and step 8's frame ends A's belief:
// Frame.Lost names A's hold (grant #1) and A holds nothing after it.
func TestTouchLesson(t *testing.T) {
	l, err := sim.LoadFile(variantFile("touch.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	var runs []string
	for _, be := range []*backend.Backend{lessontest.Open(t, backend.Config{}), lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})} {
		runs = append(runs, framesJSON(t, be, l))
	}
	if runs[0] != runs[1] {
		t.Fatal("the two backends' frames differ")
	}
	if left := scanAll(t, srv); len(left) > 0 {
		t.Fatalf("keys left on the real Redis: %v", left)
	}
	var frames []sim.Frame
	if err := json.Unmarshal([]byte(runs[0]), &frames); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if len(f.Lost) > 0 && i != 8 {
			t.Errorf("step %d ends a belief: %+v", i, f.Lost)
		}
	}
	lost := frames[8].Lost
	if len(lost) != 1 || lost[0].Actor != "A" || lost[0].Lock != "order:42" || lost[0].Hold != 1 || lost[0].Token == "" {
		t.Fatalf("step 8: lost %+v, want A's grant #1 of order:42", lost)
	}
	if c := frames[8].Calls; len(c) != 1 || c[0].Outcome != sim.Lost || !c[0].Reply.IsInt(0) {
		t.Fatalf("step 8: calls %+v, want one renewal answering 0, LOST", c)
	}
	if h := frames[8].Actors[0].Holds; len(h) != 0 {
		t.Fatalf("step 8: A still believes %+v", h)
	}
	// A step a learner adds is narrated from its frames: the renewal's
	// LOST is told as the holder's, in every language.
	m := explore.Narrate(l, &l.Steps[7], frames[7], frames[8])
	if m.ID != "narration.renew-lost" || m.Args["Actor"] != "A" {
		t.Fatalf("step 8 narrated as %+v", m)
	}
	cat := catalogtest.New(t)
	for _, loc := range sim.Locales {
		if txt := cat.Render(loc, m); !strings.Contains(txt, "A") || txt == "" || strings.Contains(txt, catalog.Missing) {
			t.Errorf("%s: %q", loc, txt)
		}
	}
	for i, f := range frames {
		for _, v := range f.Violations {
			if v.Name != sim.InvOverlappingHolders || i != 4 && i != 5 {
				t.Errorf("step %d: %s", i, v.Name)
			}
		}
	}
}

// TestTouchCourseRows: the course table's rows under each lock, worked out
// from the Lua, identical on both backends. A row's first differing step
// is the first whose outcome, renewal answers or violations differ
// (explore.Differs; the narration must not contradict the run); where only
// the renewals differ the row gives their outcomes.
//
// touch.lesson.yaml (its own lock: touch):
//   - under touch: the same run; overlapping-holders at step 4 (A, paused,
//     still believes while B holds), by its own lock too.
//   - under touch-with-setnx: A's extend at step 8 finds the key gone and
//     re-takes it (SET NX): 1, RENEWED, while B held the lock since A's
//     hold ended: unnoticed-takeover (A, then B). A still believes, so its
//     write at step 9 is grant #1's after grant #2's: stale-write; its
//     release at step 10 finds its own id and deletes the key: RELEASED
//     where touch answered NOT_OWNER. The first differing step is 8:
//     RENEWED where touch's extend answered LOST.
//
// 15-watchdog-renewal.yaml (its own lock: watchdog, whose renewal answers
// GONE and leaves A believing): under either lock A's overdue renewal at
// step 10 finds B's key (B took the expired lock at step 8 and still
// holds it), so the extend answers 0 under both, LOST: A's belief ends, no
// step's outcome differs (A's release is NOT_OWNER as under the watchdog)
// and only overlapping-holders is broken, by the lesson's own lock too;
// the rows differ at step 10, LOST where the watchdog answered GONE.
// That course lesson cannot tell the two apart: B never releases between
// the expiry and A's extend.
//
// 16d-renewal-after-takeover.yaml (its own lock: watchdog) is the slow
// holder of touch.lesson.yaml in the course: B acquires, writes and
// releases while A is paused, and A's overdue renewal at step 8 finds the
// key gone. Its own lock answers GONE: A, never told, writes as a stale
// owner at step 9 (stale-write) and its release is NOT_OWNER.
//   - under touch: the extend answers 0, LOST, and A's belief ends at step
//     8: the same outcomes, A's write at step 9 goes round the lock (no
//     stale-write), and only overlapping-holders is broken, by the
//     lesson's own lock too; the row differs at step 8, LOST where the
//     watchdog answered GONE.
//   - under touch-with-setnx: the extend re-takes the key (1, RENEWED):
//     unnoticed-takeover at step 8, stale-write at step 9, and A's release
//     deletes its re-taken key: RELEASED where the watchdog answered
//     NOT_OWNER at step 10; the first differing step is 8, RENEWED where
//     the watchdog answered GONE.
func TestTouchCourseRows(t *testing.T) {
	cat := catalogtest.New(t)
	touch, setnx := loadDef(t, "touch.variant.yaml"), loadDef(t, "touch-with-setnx.variant.yaml")
	slow, err := sim.LoadFile(variantFile("touch.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	course, err := sim.LoadFile(filepath.Join("..", "lessons", "15-watchdog-renewal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := sim.LoadFile(filepath.Join("..", "lessons", "16d-renewal-after-takeover.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	overlap := []string{sim.InvOverlappingHolders}
	cases := []struct {
		name   string
		lesson *sim.Lesson
		def    *sim.VariantDef
		want   courseRow
		lostAt int // the step whose frame ends A's belief, -1: none
	}{
		{"slow holder under touch", slow, touch, courseRow{broken: overlap, both: overlap}, 8},
		{"slow holder under touch-with-setnx", slow, setnx, courseRow{first: 8, got: sim.Renewed, want: sim.Lost,
			broken: []string{sim.InvOverlappingHolders, sim.InvUnnoticedTakeover, sim.InvStaleWrite}, both: overlap}, -1},
		{"15 under touch", course, touch, courseRow{first: 10, got: sim.Lost, want: sim.Gone, broken: overlap, both: overlap}, 10},
		{"15 under touch-with-setnx", course, setnx, courseRow{first: 10, got: sim.Lost, want: sim.Gone, broken: overlap, both: overlap}, 10},
		{"16d under touch", after, touch, courseRow{first: 8, got: sim.Lost, want: sim.Gone, broken: overlap, both: overlap}, 8},
		{"16d under touch-with-setnx", after, setnx, courseRow{first: 8, got: sim.Renewed, want: sim.Gone,
			broken: []string{sim.InvOverlappingHolders, sim.InvUnnoticedTakeover, sim.InvStaleWrite},
			both:   []string{sim.InvOverlappingHolders, sim.InvStaleWrite}}, -1},
	}
	bes := backends(t)
	for _, c := range cases {
		var seen []string
		for _, be := range bes {
			got, frames := lessonRow(t, cat, be, c.lesson, c.def)
			w := c.want
			if got.first != w.first || got.got != w.got || got.want != w.want || !slices.Equal(got.broken, w.broken) || !slices.Equal(got.both, w.both) {
				t.Errorf("%s on %s: first %d (%s, want %s), broken %v (own too %v); want first %d (%s, want %s), broken %v (own too %v)",
					c.name, be.Info(), got.first, got.got, got.want, got.broken, got.both, w.first, w.got, w.want, w.broken, w.both)
			}
			for i, f := range frames {
				if ends := len(f.Lost) > 0; ends != (i == c.lostAt) {
					t.Errorf("%s on %s: step %d lost %+v", c.name, be.Info(), i, f.Lost)
				}
			}
			seen = append(seen, got.framesJSONOut)
		}
		if seen[0] != seen[1] {
			t.Errorf("%s: the backends' frames differ", c.name)
		}
	}
	// The violation names the holder and the taker, and says so in every
	// language.
	_, frames := lessonRow(t, cat, bes[0], slow, setnx)
	i := slices.IndexFunc(frames[8].Violations, func(v sim.Violation) bool { return v.Name == sim.InvUnnoticedTakeover })
	if i < 0 {
		t.Fatalf("step 8 under touch-with-setnx: %+v", frames[8].Violations)
	}
	v := frames[8].Violations[i]
	if !slices.Equal(v.Actors, []string{"A", "B"}) || v.Detail.ID != "violation.unnoticed-takeover" {
		t.Fatalf("violation %+v", v)
	}
	for _, loc := range sim.Locales {
		if msg := cat.Render(loc, v.Detail); msg == "" || strings.Contains(msg, catalog.Missing) || !strings.Contains(msg, "B") {
			t.Errorf("%s: no text for %s", loc, v.Detail.ID)
		}
	}
}

// TestTouchSearch: touch.search.yaml (two actors, moves acquire, release,
// pause and resume, advances of 31 s, depth 7) on each lock, the same on
// both backends, worked out from the Lua:
//
//   - overlapping-holders in 4 steps under both: A acquire → A pause →
//     advance 31s → B acquire (A's paused watchdog let the lease run out).
//   - unnoticed-takeover under touch-with-setnx in 7 steps: A acquire → A
//     pause → advance 31s → A resume → B acquire → B release → advance 31s
//     (A's extend, overdue since 10 s, is sent at the next advance: it
//     finds the key gone and re-takes it; A's moves are tried before B's,
//     so A resumes before B acquires rather than after B releases). No shorter
//     timeline breaks it: the lease must run out under A (a pause and an
//     advance), B must take the lock and let it go (its own watchdog keeps
//     it while B runs) and A must run again before its extend.
//   - unnoticed-takeover never under touch: an extend answers 1 only on a
//     key that still holds A's owner id, and after B's hold only a new
//     acquire of A's sets it again, as a new hold (ACQUIRED), which the
//     extend then confirms: no takeover since that hold was taken
//     (TestNestedReacquireIsNoTakeover, the eight steps).
func TestTouchSearch(t *testing.T) {
	f, err := search.Load(variantFile("touch.search.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// A file that names no invariant asks for the format's five: the
	// addition is searched for only when named.
	dflt := *f
	dflt.Invariants = nil
	dflt.Defaults()
	if slices.Contains(dflt.Invariants, sim.InvUnnoticedTakeover) || len(dflt.Invariants) != 5 {
		t.Fatalf("default invariants %v: want the format's five", dflt.Invariants)
	}
	overlap := "A acquire → A pause → advance 31s → B acquire"
	bes := backends(t)
	for _, c := range []struct {
		def  string
		want map[string]string
	}{
		{"touch.variant.yaml", map[string]string{sim.InvOverlappingHolders: overlap}},
		{"touch-with-setnx.variant.yaml", map[string]string{sim.InvOverlappingHolders: overlap,
			sim.InvUnnoticedTakeover: "A acquire → A pause → advance 31s → A resume → B acquire → B release → advance 31s"}},
	} {
		sf := *f
		sf.VariantDef = loadDef(t, c.def)
		sf.Variant = "./" + c.def
		for _, cfg := range []search.Config{{Backend: search.Embedded()}, {Backend: search.Redis(bes[1])}} {
			res, err := search.Run(context.Background(), &sf, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range sf.Invariants {
				got := ""
				if cx := res.Found[inv]; cx != nil {
					got = timeline(cx.Lesson.Steps)
				}
				if got != c.want[inv] {
					t.Errorf("%s on %s: %s: got %q, want %q", c.def, cfg.Backend.Msg.ID, inv, got, c.want[inv])
				}
			}
		}
	}
}

// TestTouchOnNodes: on three independent nodes (nodes: 3) the renewal goes
// to every node and a client that needs a majority reads it as a whole:
// worked out from the Lua, A's overdue extend at step 7 finds no key of
// A's on any node (each answers 0, LOST), so under touch it is LOST and
// A's belief ends; under touch-with-setnx every node re-takes the key (1,
// RENEWED on all three), a majority renewed, and B's hold in between
// (steps 4 and 5) went unnoticed. The same on both backends.
func TestTouchOnNodes(t *testing.T) {
	src := `variant: ./v.variant.yaml
lease: 30s
nodes: 3
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: A, do: pause}
  - {do: advance, by: 31s}
  - {actor: B, do: acquire, expect: ACQUIRED}
  - {actor: B, do: release, expect: RELEASED}
  - {actor: A, do: resume}
  - {do: advance, by: 1s}
`
	for _, c := range []struct {
		def      string
		out      sim.Outcome
		lost     bool
		takeover bool
	}{{"touch.variant.yaml", sim.Lost, true, false}, {"touch-with-setnx.variant.yaml", sim.Renewed, false, true}} {
		def := loadDef(t, c.def)
		l, err := sim.Options{Variant: func(string) (*sim.VariantDef, error) { return def, nil }}.Load("nodes.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for _, be := range backends(t) {
			frames, failures := lessontest.Run(t, be, l)
			for _, f := range failures {
				t.Errorf("%s on %s: %v", c.def, be.Info(), f)
			}
			last := frames[7]
			for _, call := range last.Calls {
				if call.Outcome != c.out {
					t.Errorf("%s on %s: node %d's renewal %s, want %s", c.def, be.Info(), call.Node, call.Outcome, c.out)
				}
			}
			if len(last.Calls) != 3 || (len(last.Lost) == 1) != c.lost {
				t.Errorf("%s on %s: %d renewals, lost %+v", c.def, be.Info(), len(last.Calls), last.Lost)
			}
			took := slices.ContainsFunc(last.Violations, func(v sim.Violation) bool { return v.Name == sim.InvUnnoticedTakeover })
			if took != c.takeover {
				t.Errorf("%s on %s: violations %+v", c.def, be.Info(), last.Violations)
			}
			b, _ := json.Marshal(frames)
			runs = append(runs, string(b))
		}
		if runs[0] != runs[1] {
			t.Errorf("%s: the backends' frames differ", c.def)
		}
	}
}
