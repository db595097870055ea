package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/drill"
	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// narrationOf runs l on the embedded Redis with its expectations dropped
// and returns the narration drill.Explain gives step n (1-based), with the
// frames of the run.
func narrationOf(t *testing.T, l *sim.Lesson, n int) (sim.Msg, []sim.Frame) {
	t.Helper()
	l, err := explore.AsVariant(l, l.Variant)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := lessontest.Run(t, lessontest.Open(t, backend.Config{}), l)
	if len(frames) <= n {
		t.Fatalf("the run stopped at step %d", len(frames)-1)
	}
	m, ok := drill.Explain(l, &l.Steps[n-1], frames[n-1], frames[n])
	if !ok {
		t.Fatalf("step %d: no narration", n)
	}
	return m, frames
}

// rendered fails t when m is missing in a locale of cat.
func rendered(t *testing.T, cat *catalog.Catalog, m sim.Msg) {
	t.Helper()
	for _, loc := range sim.Locales {
		if s := cat.Render(loc, m); strings.Contains(s, catalog.Missing) || strings.Contains(s, "{{") {
			t.Errorf("%s: %q", loc, s)
		}
	}
}

// TestNarrationLeaseSeconds: the count-key lock passes the lease as
// lease_s, so a 1.5 s lesson lease reaches its EXPIRE as 2 (rounded up)
// and the lock key's PTTL is 2 s. Step 1's narration gives the lease the
// key got, 2 s, not the lesson's 1.5 s; under token-count (lease_ms) the
// same lesson's narration keeps 1.5 s.
func TestNarrationLeaseSeconds(t *testing.T) {
	l, err := sim.LoadFile(own("count-key.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l.Lease = 1500 * time.Millisecond
	m, frames := narrationOf(t, l, 1)
	lk, _ := keyIn(frames[1], "lock:order:42")
	if m.ID != "narration.acquired" || m.Args["Lease"] != sim.Millis(2000) || lk.PTTL != 2000 {
		t.Errorf("step 1: %s with lease %v, the lock key's PTTL %d; want narration.acquired with 2000 ms, as the key", m.ID, m.Args["Lease"], lk.PTTL)
	}
	ms, err := explore.AsVariant(l, "token-count")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := narrationOf(t, ms, 1); m.Args["Lease"] != sim.Millis(1500) {
		t.Errorf("under token-count: lease %v, want 1500 ms", m.Args["Lease"])
	}
}

// TestNarrationAcquiredWhileHeld: a script that answers ACQUIRED on a
// lock Redis already holds is not narrated as a free lock ("finds the
// lock free... count 1"). undeclared.lesson.yaml's step 2 is A's nested
// acquire, which its script answers with 1, ACQUIRED
// (narration.acquired-own-held). A lock whose acquire is a plain SET
// (no NX) answers B's acquire with OK, ACQUIRED, while A holds
// (narration.acquired-over-holder, naming A). Both read in every locale.
func TestNarrationAcquiredWhileHeld(t *testing.T) {
	cat := catalogtest.New(t)
	l, err := sim.LoadFile(own("undeclared.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, frames := narrationOf(t, l, 2)
	if m.ID != "narration.acquired-own-held" || frames[2].Outcome != sim.Acquired || m.Args["Actor"] != "A" {
		t.Errorf("undeclared step 2 (%s): %s %v, want narration.acquired-own-held of A", frames[2].Outcome, m.ID, m.Args)
	}
	rendered(t, cat, m)

	dir := t.TempDir()
	for name, text := range map[string]string{
		"set.variant.yaml": `name: plain-set
lock: {type: string}
owner: grant-token
reentry: none
acquire:
  source: return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  keys: [lock]
  argv: [owner, lease_ms]
  replies: {OK: ACQUIRED}
release:
  source: return redis.call('DEL', KEYS[1])
  keys: [lock]
  replies: {1: RELEASED, 0: NOT_OWNER}
`,
		"set.lesson.yaml": `id: plain-set-lesson
variant: ./set.variant.yaml
lease: 30s
lock: order:42
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire}
  - {actor: B, do: acquire}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err = sim.LoadFile(filepath.Join(dir, "set.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, frames = narrationOf(t, l, 2)
	if m.ID != "narration.acquired-over-holder" || frames[2].Outcome != sim.Acquired || m.Args["Actor"] != "B" || !slicesEqual(m.Args["Holders"], sim.List{"A"}) {
		t.Errorf("plain SET, B's acquire (%s): %s %v, want narration.acquired-over-holder of B over A", frames[2].Outcome, m.ID, m.Args)
	}
	rendered(t, cat, m)
}

// slicesEqual reports whether v is the list want.
func slicesEqual(v any, want sim.List) bool {
	l, ok := v.(sim.List)
	return ok && strings.Join(l, ",") == strings.Join(want, ",")
}
