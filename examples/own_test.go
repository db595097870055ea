package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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

// Issue 33: locks as people write them, in testdata/own, written for these
// tests. count-key.variant.yaml keeps the owner id in a String lock key and
// the hold count in a second String key its scripts build themselves
// (KEYS[1] .. ':count', declared as {lock_key}:count and named by
// lock.count), takes the owner id as KEYS[2] and sets leases with EXPIRE in
// seconds (lease_s). undeclared.variant.yaml runs the same scripts without
// declaring the count key.

func own(name string) string { return filepath.Join("testdata", "own", name) }

// backends are the embedded Redis and a redis-server of the test's own,
// custom scripts allowed.
func backends(t *testing.T) []*backend.Backend {
	return []*backend.Backend{lessontest.Open(t, backend.Config{}),
		lessontest.Open(t, backend.Config{URL: redistest.Start(t).URL, AllowCustomScripts: true})}
}

// framesJSON runs l on be (closing its store) and returns its frames as
// JSON, failing on a run error or a failed expectation.
func framesJSON(t *testing.T, be *backend.Backend, l *sim.Lesson) string {
	t.Helper()
	frames, failures := lessontest.Run(t, be, l)
	for _, f := range failures {
		t.Errorf("%s: %v", be.Info(), f)
	}
	b, err := json.Marshal(frames)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keyIn returns the key named name in frame f, and whether f shows it.
func keyIn(f sim.Frame, name string) (sim.KeyState, bool) {
	i := slices.IndexFunc(f.Keys, func(k sim.KeyState) bool { return k.Name == name })
	if i < 0 {
		return sim.KeyState{}, false
	}
	return f.Keys[i], true
}

// TestCountKeyWarnsOwnerInKeys: the owner id in KEYS loads, with a warning
// at each KEYS list that names it (acquire's and release's `owner`,
// lines 14 and 19, column 16), not an error.
func TestCountKeyWarnsOwnerInKeys(t *testing.T) {
	def, err := sim.LoadVariantFile(own("count-key.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, w := range def.Warnings {
		if w.Problem.ID != "variant.owner-in-keys" {
			t.Errorf("warning %s: %s", w.Problem.ID, w.Msg)
		}
		at = append(at, fmt.Sprintf("%s:%d:%d", w.File, w.Pos.Line, w.Pos.Col))
	}
	want := []string{own("count-key.variant.yaml") + ":14:16", own("count-key.variant.yaml") + ":19:16"}
	if !slices.Equal(at, want) {
		t.Fatalf("warnings at %v, want %v", at, want)
	}
	// The message says why, in each language.
	cat := catalogtest.New(t)
	for _, loc := range sim.Locales {
		if msg := cat.Problem(loc, def.Warnings[0]); !strings.Contains(msg, "CROSSSLOT") || !strings.Contains(msg, "ACL") {
			t.Errorf("%s: %q does not give the reasons", loc, msg)
		}
	}
}

// TestCountKeyLesson runs count-key.lesson.yaml on both backends, 200
// times, cheaply: every expectation holds (worked out from the Lua: A
// ACQUIRED with count 1, REENTERED with 2, B BUSY, A STILL_HELD back to 1,
// the 30 s lease (EX 30) runs out, B ACQUIRED while A still believes, A
// NOT_OWNER, B RELEASED), the frames show the count key with the lock's
// PTTL, and every run's frames are the same on both backends. On the
// real Redis, MONITOR sees no KEYS and no script touching a key outside
// Lockstep's namespace, and no key is left after the runs.
func TestCountKeyLesson(t *testing.T) {
	l, err := sim.LoadFile(own("count-key.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	embedded := lessontest.Open(t, backend.Config{})
	real := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})
	mon := srv.Monitor(t)
	want := framesJSON(t, embedded, l)
	var frames []sim.Frame
	if err := json.Unmarshal([]byte(want), &frames); err != nil {
		t.Fatal(err)
	}
	for step, c := range map[int]string{1: "1", 2: "2", 5: "1"} {
		k, ok := keyIn(frames[step], "lock:order:42:count")
		if !ok || k.Value != c || k.PTTL != 30000 {
			t.Fatalf("step %d: count key %+v (shown %v), want %s with the lock's 30 s", step, k, ok, c)
		}
		if lk, _ := keyIn(frames[step], "lock:order:42"); lk.PTTL != 30000 {
			t.Fatalf("step %d: lock key PTTL %d, want 30000 (EX 30)", step, lk.PTTL)
		}
	}
	if lv := frames[2].Locks[0]; lv.Count != 2 {
		t.Fatalf("step 2: the lock's count reads %d from the count key, want 2", lv.Count)
	}
	for i := 0; i < 200; i++ {
		if got := framesJSON(t, embedded, l); got != want {
			t.Fatalf("embedded run %d: frames differ from the first", i)
		}
		if got := framesJSON(t, real, l); got != want {
			t.Fatalf("real Redis run %d: frames differ from the embedded run's", i)
		}
	}
	mon.Stop()
	scripts := 0
	for _, c := range mon.Commands() {
		switch strings.ToUpper(c.Args[0]) {
		case "KEYS", "FLUSHDB", "FLUSHALL", "CONFIG":
			t.Errorf("ran %q", c.Args)
		}
		if c.Script && strings.ToUpper(c.Args[0]) != "TIME" { // TIME names no key: the step's clock (backend/vclock.go)
			scripts++
			if len(c.Args) < 2 || !strings.HasPrefix(c.Args[1], backend.KeyNamespace) {
				t.Errorf("a script ran %q, outside %s", c.Args, backend.KeyNamespace)
			}
		}
	}
	if scripts == 0 {
		t.Fatal("MONITOR saw no script command; the check proves nothing")
	}
	if left := scanAll(t, srv); len(left) > 0 {
		t.Fatalf("keys left on the real Redis: %v", left)
	}
}

// scanAll returns every key srv holds.
func scanAll(t *testing.T, srv *redistest.Server) []string {
	t.Helper()
	keys, err := srv.Client(t).Keys(context.Background(), "*").Result() // the test's own server
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestUndeclaredKeyFound: the count key the scripts build is found after
// each step though nothing declares it: shown in the frames with the
// lock's PTTL (its value 1 after the first acquire proves that the step,
// sent again to read the key it found, started from a state without it),
// the same on both backends, and not left behind on the real Redis.
func TestUndeclaredKeyFound(t *testing.T) {
	l, err := sim.LoadFile(own("undeclared.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, be := range backends(t) {
		runs = append(runs, framesJSON(t, be, l))
	}
	if runs[0] != runs[1] {
		t.Fatal("the two backends' frames differ")
	}
	var frames []sim.Frame
	if err := json.Unmarshal([]byte(runs[0]), &frames); err != nil {
		t.Fatal(err)
	}
	if _, ok := keyIn(frames[0], "lock:order:42:count"); ok {
		t.Fatal("frame 0 shows a key no step wrote")
	}
	for step, c := range map[int]string{1: "1", 2: "2", 5: "1"} {
		if k, ok := keyIn(frames[step], "lock:order:42:count"); !ok || k.Value != c || k.PTTL != 30000 {
			t.Fatalf("step %d: found key %+v (shown %v), want %q with PTTL 30000", step, k, ok, c)
		}
	}
	// After the lease ran out (step 6) the key is gone and read no more;
	// B's acquire builds it again.
	if _, ok := keyIn(frames[6], "lock:order:42:count"); ok {
		t.Fatal("step 6 still shows the expired count key")
	}
	if k, ok := keyIn(frames[7], "lock:order:42:count"); !ok || k.Value != "1" {
		t.Fatalf("step 7: %+v (shown %v)", k, ok)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDerivedKeyWithoutTTL: a key a script builds is held to the TTL rule:
// the run stops at the step that wrote it without a TTL, on both backends,
// and the real Redis keeps nothing.
func TestDerivedKeyWithoutTTL(t *testing.T) {
	l := lessonOn(t, mustRead(t, own("no-ttl.variant.yaml")), "  - {actor: A, do: acquire}\n")
	srv := redistest.Start(t)
	for _, be := range []*backend.Backend{lessontest.Open(t, backend.Config{}), lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})} {
		_, _, err := run(t, be, l)
		var se *sim.StepRunError
		if !errors.As(err, &se) || se.Step != 1 || !strings.Contains(err.Error(), "lock:lock:seen has no TTL") {
			t.Fatalf("%s: want step 1 refused for lock:lock:seen without a TTL, got %v", be.Info(), err)
		}
	}
	if left := scanAll(t, srv); len(left) > 0 {
		t.Fatalf("keys left on the real Redis: %v", left)
	}
}

// TestLeaseSeconds: lease_s is the lease in whole seconds, rounded up: a
// 30 s lease is EX 30 (PTTL 30000 ms, as under PEXPIRE 30000) and a
// 1,500 ms one EX 2 (PTTL 2000: never shorter than the lease).
func TestLeaseSeconds(t *testing.T) {
	v := mustRead(t, own("seconds.variant.yaml"))
	for _, c := range []struct {
		lease string
		arg   string
		pttl  int64
	}{{"30s", "30", 30000}, {"1500ms", "2", 2000}} {
		l := lessonOn(t, v, "  - {actor: A, do: acquire, lease: "+c.lease+", expect: ACQUIRED}\n")
		var runs []string
		for _, be := range backends(t) {
			frames, _, err := run(t, be, l)
			if err != nil {
				t.Fatal(err)
			}
			call := frames[1].Calls[0]
			k, _ := keyIn(frames[1], "lock:lock")
			if call.Args[1] != c.arg || k.PTTL != c.pttl {
				t.Fatalf("%s, lease %s: ARGV %v, PTTL %d; want lease_s %s and PTTL %d", be.Info(), c.lease, call.Args, k.PTTL, c.arg, c.pttl)
			}
			b, _ := json.Marshal(frames)
			runs = append(runs, string(b))
		}
		if runs[0] != runs[1] {
			t.Fatalf("lease %s: the backends' frames differ", c.lease)
		}
	}
}

// TestLuaRuntimeErrorLine: a Lua runtime error names the script's own file
// and line (acquire.lua line 7 compares nil with a number), on both
// backends, in the catalogue's message the course table and the player
// show.
func TestLuaRuntimeErrorLine(t *testing.T) {
	l, err := sim.LoadFile(own("lua-error.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.New(t)
	want := own("lua-error/acquire.lua") + ":7"
	for _, be := range backends(t) {
		_, _, err := run(t, be, l)
		var se *sim.ScriptError
		if !errors.As(err, &se) || se.Where != want || !strings.Contains(se.Detail, "attempt to compare") {
			t.Fatalf("%s: want a Lua error at %s, got %v", be.Info(), want, err)
		}
		if msg := cat.Error(sim.English, err); !strings.HasPrefix(msg, want+": ") {
			t.Fatalf("%s: message %q does not start with %s", be.Info(), msg, want)
		}
	}
}

// courseRow is a course table row, as the page computes it: the first
// step whose outcome differs from the lesson's own run (0: none), the
// outcomes there, and the invariants the lock breaks, those the lesson's
// own lock breaks too apart.
type courseRow struct {
	first         int
	got, want     sim.Outcome
	broken, both  []string
	framesJSONOut string
}

func rowOf(t *testing.T, cat *catalog.Catalog, be *backend.Backend, lesson string, def *sim.VariantDef) courseRow {
	t.Helper()
	l, err := sim.LoadFile(filepath.Join("..", "lessons", lesson))
	if err != nil {
		t.Fatal(err)
	}
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
	}
	r.broken, r.both = explore.BrokenUnder(frames, own)
	b, _ := json.Marshal(frames)
	r.framesJSONOut = string(b)
	return r
}

// TestCountKeyCourseRows: the course table's rows under the count-key lock,
// worked out from its Lua, identical on both backends.
//
//   - 01 nested reentry (token-count): the same outcomes (a fresh owner per
//     outermost acquire, a count that goes 1, 2, 1, 0); nothing broken.
//   - 03 stale owner, unfenced (token-count): the same outcomes; the lease
//     runs out under A, B acquires (overlapping-holders) and A's late write
//     is accepted (stale-write): both broken, and by the lesson's own lock
//     too.
//   - 09 instance owner (instance-owner): step 2 differs, B is BUSY where
//     the instance id let it re-enter. Nothing is broken: B writes without
//     a hold (a write round the lock, no holder's stale write) and its
//     release is refused. The lesson's own lock breaks overlapping-holders
//     and wrong-owner-release.
func TestCountKeyCourseRows(t *testing.T) {
	def, err := sim.LoadVariantFile(own("count-key.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.New(t)
	want := map[string]courseRow{
		"01-nested-reentry.yaml":       {},
		"03-stale-owner-unfenced.yaml": {broken: []string{sim.InvOverlappingHolders, sim.InvStaleWrite}, both: []string{sim.InvOverlappingHolders, sim.InvStaleWrite}},
		"09-instance-owner.yaml":       {first: 2, got: sim.Busy, want: sim.Reentered},
	}
	bes := backends(t)
	for lesson, w := range want {
		var seen []string
		for _, be := range bes {
			got := rowOf(t, cat, be, lesson, def)
			if got.first != w.first || got.got != w.got || got.want != w.want || !slices.Equal(got.broken, w.broken) || !slices.Equal(got.both, w.both) {
				t.Errorf("%s on %s: first %d (%s, want %s), broken %v (own too %v); want first %d (%s, want %s), broken %v (own too %v)",
					lesson, be.Info(), got.first, got.got, got.want, got.broken, got.both, w.first, w.got, w.want, w.broken, w.both)
			}
			seen = append(seen, got.framesJSONOut)
		}
		if seen[0] != seen[1] {
			t.Errorf("%s: the backends' frames differ", lesson)
		}
	}
}

// TestCountKeySearch: the search on the count-key lock finds, worked out
// from the Lua, the same timelines on both backends:
//
//   - overlapping-holders in 3 steps: A acquire → advance 31s → B acquire
//     (the 30 s lease ran out under A, who still believes it holds);
//   - count-mismatch in 3: A acquire → advance 31s → A acquire (A's nested
//     acquire finds the lock gone and takes it afresh: Redis counts 1, A's
//     client 2), found before B's timeline (A's moves come first);
//   - stale-write in 5: A acquire → advance 31s → B acquire → B write → A
//     write;
//   - wrong-owner-release never: the release compares the owner id.
func TestCountKeySearch(t *testing.T) {
	f, err := search.Load(own("count-key.search.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		sim.InvOverlappingHolders: "A acquire → advance 31s → B acquire",
		sim.InvCountMismatch:      "A acquire → advance 31s → A acquire",
		sim.InvStaleWrite:         "A acquire → advance 31s → B acquire → B write B-1 → A write A-1",
	}
	srv := redistest.Start(t)
	be := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})
	for _, cfg := range []search.Config{{Backend: search.Embedded()}, {Backend: search.Redis(be)}} {
		res, err := search.Run(context.Background(), f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range f.Invariants {
			got := ""
			if cx := res.Found[inv]; cx != nil {
				got = timeline(cx.Lesson.Steps)
			}
			if got != want[inv] {
				t.Errorf("%s: %s: got %q, want %q", cfg.Backend.Msg.ID, inv, got, want[inv])
			}
		}
	}
	if left := scanAll(t, srv); len(left) > 0 {
		t.Fatalf("keys left on the real Redis: %v", left)
	}
}

func timeline(steps []sim.Step) string {
	parts := make([]string, len(steps))
	for i, st := range steps {
		parts[i] = search.DescribeStep(st)
	}
	return strings.Join(parts, " → ")
}
