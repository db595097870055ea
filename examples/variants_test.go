package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/search"
	"lockstep/sim"
)

// run runs l on a fresh store of be: its frames, failures and run error.
func run(t *testing.T, be *backend.Backend, l *sim.Lesson) ([]sim.Frame, []sim.Failure, error) {
	t.Helper()
	ctx := context.Background()
	store, err := be.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	r, err := sim.NewRunner(l, store)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := r.Run(ctx)
	return frames, r.Failures(), err
}

// TestRedissonLesson runs the Redisson RLock example's lesson, loaded with
// its variant file and Lua, on the embedded Redis and on a real one (with
// custom scripts allowed): every expectation holds and the frames are the
// same down to the JSON.
func TestRedissonLesson(t *testing.T) {
	l, err := sim.LoadFile(filepath.Join("variants", "redisson-rlock.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if l.VariantDef == nil || l.VariantDef.Name != "redisson-rlock" {
		t.Fatalf("variant %q not loaded from its file", l.Variant)
	}
	var got [][]byte
	for _, cfg := range []backend.Config{{}, {URL: redistest.Start(t).URL, AllowCustomScripts: true}} {
		frames, failures, err := run(t, lessontest.Open(t, cfg), l)
		if err != nil {
			t.Fatalf("%s: %v", cfg.URL, err)
		}
		for _, f := range failures {
			t.Errorf("%s: %v", cfg.URL, f)
		}
		b, err := json.Marshal(frames)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if string(got[0]) != string(got[1]) {
		t.Fatal("the two backends' frames differ")
	}
}

// TestCustomScriptsNeedPermission: a real Redis gets a variant file's
// scripts only where the operator allowed them.
func TestCustomScriptsNeedPermission(t *testing.T) {
	l, err := sim.LoadFile(filepath.Join("variants", "redisson-rlock.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, lessontest.Open(t, backend.Config{URL: redistest.Start(t).URL}), l)
	var ce *backend.CustomScriptError
	if !errors.As(err, &ce) || ce.Script != "redisson-rlock/acquire" {
		t.Fatalf("want a CustomScriptError for redisson-rlock/acquire, got %v", err)
	}
	var se *sim.StepRunError
	if !errors.As(err, &se) || se.Step != 1 {
		t.Fatalf("want the refusal at step 1, got %v", err)
	}
}

// TestBrokenRedissonCaught: the broken copy of the Redisson release (no
// owner check) is caught by the search with wrong-owner-release.
func TestBrokenRedissonCaught(t *testing.T) {
	f, err := search.Load(filepath.Join("variants", "redisson-rlock-broken.search.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := search.Run(context.Background(), f, search.Config{Backend: search.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found[sim.InvWrongOwnerRelease] == nil {
		t.Fatalf("the search did not find wrong-owner-release: %+v", res)
	}
	// The same search on the sound copy finds nothing within the depth.
	good := *f
	good.VariantDef, err = sim.LoadVariantFile(filepath.Join("variants", "redisson-rlock.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good.Variant = "./redisson-rlock.variant.yaml"
	res, err = search.Run(context.Background(), &good, search.Config{Backend: search.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	if cx := res.Found[sim.InvWrongOwnerRelease]; cx != nil {
		t.Fatalf("the sound copy breaks wrong-owner-release:\n%s", cx.YAML)
	}
}

// lessonOn writes a variant file with inline scripts and a two-actor
// lesson that names it, and loads the lesson.
func lessonOn(t *testing.T, variant, steps string) *sim.Lesson {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v.variant.yaml"), []byte(variant), 0o644); err != nil {
		t.Fatal(err)
	}
	lesson := "variant: ./v.variant.yaml\nlease: 30s\nactors: [{id: A}, {id: B}]\nsteps:\n" + steps
	p := filepath.Join(dir, "l.yaml")
	if err := os.WriteFile(p, []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := sim.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

const setNX = `name: v
lock: {type: string}
owner: grant-token
reentry: none
acquire:
  source: return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
  keys: [lock]
  argv: [owner, lease_ms]
  replies: {OK: ACQUIRED}
release:
  source: |
    if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
  keys: [lock]
  argv: [owner]
  replies: {1: RELEASED, 0: NOT_OWNER}
`

// TestUnmappedReply: a reply the map does not list stops the run with an
// error naming the script, the reply and the step, on both backends.
func TestUnmappedReply(t *testing.T) {
	l := lessonOn(t, setNX, "  - {actor: A, do: acquire}\n  - {actor: B, do: acquire}\n")
	for _, cfg := range []backend.Config{{}, {URL: redistest.Start(t).URL, AllowCustomScripts: true}} {
		_, _, err := run(t, lessontest.Open(t, cfg), l)
		var ue *sim.UnmappedReplyError
		var se *sim.StepRunError
		if !errors.As(err, &ue) || !errors.As(err, &se) {
			t.Fatalf("%s: want an UnmappedReplyError in a StepRunError, got %v", cfg.URL, err)
		}
		if se.Step != 2 || ue.Script != "v/acquire" || ue.Reply.Kind != sim.ReplyNil {
			t.Fatalf("%s: got step %d, script %s, reply %s", cfg.URL, se.Step, ue.Script, ue.Reply)
		}
		// The error is at the reply map's place in the variant file
		// (acquire's `replies:`, line 9 column 12).
		if m := ue.Message(); m.ID != "variant.unmapped-reply.at" || m.Args["Reply"] != "(nil)" || !strings.HasSuffix(ue.Where(), "v.variant.yaml:9:12") {
			t.Fatalf("message %+v at %q", m, ue.Where())
		}
	}
}

// TestEndlessScriptStopped: a script that loops forever is stopped after
// sim.MaxScriptTurns and reported, on the embedded Redis and on a real
// one, and the backend then runs another lesson.
func TestEndlessScriptStopped(t *testing.T) {
	endless := `name: v
lock: {type: string}
owner: grant-token
reentry: none
acquire:
  source: |
    local n = 0
    while true do n = n + 1 end
  keys: [lock]
  argv: [owner, lease_ms]
  replies: {OK: ACQUIRED, nil: BUSY}
release:
  source: return 0
  keys: [lock]
  replies: {1: RELEASED, 0: NOT_OWNER}
`
	forever := lessonOn(t, endless, "  - {actor: A, do: acquire}\n")
	fine := lessonOn(t, setNX, "  - {actor: A, do: acquire, expect: ACQUIRED}\n  - {actor: A, do: release, expect: RELEASED}\n")
	for _, cfg := range []backend.Config{{}, {URL: redistest.Start(t).URL, AllowCustomScripts: true}} {
		be := lessontest.Open(t, cfg)
		_, _, err := run(t, be, forever)
		var stopped *sim.ScriptStoppedError
		if !errors.As(err, &stopped) || stopped.Script != "v/acquire" {
			t.Fatalf("%s: want a ScriptStoppedError for v/acquire, got %v", cfg.URL, err)
		}
		_, failures, err := run(t, be, fine)
		if err != nil || len(failures) > 0 {
			t.Fatalf("%s: the next lesson: %v %v", cfg.URL, err, failures)
		}
	}
}
