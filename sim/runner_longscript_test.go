package sim_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// longScriptHead starts the long-script lessons: A holds the lock under a
// watchdog (30 s lease, renewed every 10 s); R is the client whose script
// keeps Redis busy.
const longScriptHead = `variant: watchdog
lease: 30s
actors: [{id: A}, {id: B}, {id: R}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
`

// runLongScript runs src on the reference model, the embedded Redis and a
// real redis-server: every expectation must hold and the three must give
// the same frames. It returns the embedded backend's frames.
func runLongScript(t *testing.T, src string) []sim.Frame {
	t.Helper()
	l, err := sim.Load("long.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	model, r := runFrames(t, l, refmodel.New())
	for _, f := range r.Failures() {
		t.Errorf("model: %v", f)
	}
	var want []byte
	var embedded []sim.Frame
	for _, be := range []*backend.Backend{
		lessontest.Open(t, backend.Config{}),
		lessontest.Open(t, backend.Config{URL: redistest.Start(t).URL}),
	} {
		frames, failures := lessontest.Run(t, be, l)
		for _, f := range failures {
			t.Errorf("%s: %v", be.Info(), f)
		}
		got, _ := json.Marshal(frames)
		if want == nil {
			want, _ = json.Marshal(model)
			embedded = frames
		}
		if string(got) != string(want) {
			t.Errorf("%s gave other frames than the model:\n%s", be.Info(), sim.FormatFrames(frames, sim.English))
		}
	}
	return embedded
}

func holdOfA(t *testing.T, f sim.Frame) sim.HoldView {
	t.Helper()
	for _, a := range f.Actors {
		if a.ID == "A" && len(a.Holds) == 1 {
			return a.Holds[0]
		}
	}
	t.Fatalf("frame %d: A holds nothing", f.Index)
	return sim.HoldView{}
}

// TestLongScriptRenewalReadsBusy: a renewal due inside a script that runs
// past sim.BusyReplyThreshold is answered with Redis's BUSY error, not run;
// the watchdog stops, the lease runs out during the script, and when the
// script ends the key is gone while A still believes it holds the lock.
func TestLongScriptRenewalReadsBusy(t *testing.T) {
	t.Parallel()
	frames := runLongScript(t, longScriptHead+`  - {do: advance, by: 18s}
  - {actor: R, do: long-script, by: 25s, expect: OK}
  - {actor: B, do: acquire, expect: ACQUIRED, expect_violation: overlapping-holders}
`)
	f := frames[3]
	if f.TimeMS != 43000 || f.Outcome != sim.OK {
		t.Fatalf("after the script: t=%d ms, outcome %s; want 43000 ms, OK", f.TimeMS, f.Outcome)
	}
	if len(f.Calls) != 1 {
		t.Fatalf("calls %v, want the one renewal due at 20 s", f.Calls)
	}
	c := f.Calls[0]
	if c.Script != "watchdog/renew" || c.Outcome != sim.ScriptBusy || c.Reply.Kind != sim.ReplyError || c.Reply.Str != sim.ScriptBusyReply {
		t.Errorf("renewal %s -> %s => %s; want watchdog/renew answered with the BUSY error => SCRIPT_BUSY", c.Script, c.Reply, c.Outcome)
	}
	if !strings.HasPrefix(c.Reply.Str, "BUSY ") {
		t.Errorf("reply %q does not carry Redis's BUSY code", c.Reply.Str)
	}
	if k := f.Keys[0]; k.Exists() {
		t.Errorf("the lock key outlived the script: %+v", k)
	}
	if lv := lockOf(f, "lock"); lv.State != sim.Idle || lv.Transition == nil || lv.Transition.ID != "release-or-expire" {
		t.Errorf("lock after the script: %+v, want idle by the lease's end", lv)
	}
	if h := holdOfA(t, f); h.Count != 1 || h.InRedis || h.RenewAtMS != 0 {
		t.Errorf("A's hold %+v: want count 1, not in Redis, no renewal scheduled (the watchdog stopped)", h)
	}
}

// TestLongScriptShortScriptWaits: a script that ends before the threshold
// only delays the renewal, which Redis serves when the script ends; a
// renewal due as the script starts runs first, one due as it ends after it.
func TestLongScriptShortScriptWaits(t *testing.T) {
	t.Parallel()
	t.Run("served at the end", func(t *testing.T) {
		frames := runLongScript(t, longScriptHead+`  - {do: advance, by: 18s}
  - {actor: R, do: long-script, by: 4s}
`)
		f := frames[3]
		if len(f.Calls) != 1 || f.Calls[0].Outcome != sim.Renewed {
			t.Fatalf("calls %v, want the renewal due at 20 s served at 22 s", f.Calls)
		}
		if k := f.Keys[0]; k.PTTL != 30000 {
			t.Errorf("PTTL %d at the script's end, want 30000 (renewed at 22 s)", k.PTTL)
		}
		if h := holdOfA(t, f); h.RenewAtMS != 32000 {
			t.Errorf("next renewal at %d ms, want 32000", h.RenewAtMS)
		}
	})
	t.Run("due at both ends", func(t *testing.T) {
		frames := runLongScript(t, longScriptHead+`  - {actor: A, do: pause}
  - {do: advance, by: 15s}
  - {actor: A, do: resume}
  - {actor: R, do: long-script, by: 10s}
`)
		f := frames[5]
		if len(f.Calls) != 2 || f.Calls[0].Outcome != sim.Renewed || f.Calls[1].Outcome != sim.Renewed {
			t.Fatalf("calls %v, want the overdue renewal at 15 s and the one due at 25 s, both served", f.Calls)
		}
		if h := holdOfA(t, f); h.RenewAtMS != 35000 {
			t.Errorf("next renewal at %d ms, want 35000", h.RenewAtMS)
		}
	})
	t.Run("a lease that ran out meanwhile", func(t *testing.T) {
		// A 3 s lease, renewed every second: the renewal due at 1 s waits
		// behind a script from 0.5 s to 5.4 s, which ends before the
		// threshold; the lease ran out at 3 s, so the renewal served at
		// 5.4 s finds the hold gone.
		frames := runLongScript(t, strings.Replace(longScriptHead, "lease: 30s", "lease: 3s", 1)+`  - {do: advance, by: 500ms}
  - {actor: R, do: long-script, by: 4900ms}
`)
		f := frames[3]
		if len(f.Calls) != 1 || f.Calls[0].Outcome != sim.Gone || f.Keys[0].Exists() {
			t.Fatalf("calls %v, key %+v: want the renewal served at 5.4 s to find the hold gone", f.Calls, f.Keys[0])
		}
	})
}

// TestLongScriptValidation: every rule the validator applies to a
// long-script step, each reported at its place.
func TestLongScriptValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"no by", withSteps("  - {actor: A, do: long-script}"),
			[]string{`t.yaml:7:5: long-script: missing required field "by"`}},
		{"no actor", withSteps("  - {do: long-script, by: 10s}"),
			[]string{`t.yaml:7:5: long-script: missing required field "actor"`}},
		{"by zero", withSteps("  - {actor: A, do: long-script, by: 0s}"),
			[]string{`t.yaml:7:37: by: duration must be greater than zero, got 0s`}},
		{"by below a millisecond", withSteps("  - {actor: A, do: long-script, by: 1500us}"),
			[]string{`t.yaml:7:37: by: the clock moves in whole milliseconds, got 1500us`}},
		{"a field it does not take", withSteps("  - actor: A", "    do: long-script", "    by: 10s", "    reply_lost: true"),
			[]string{`t.yaml:10:5: field "reply_lost" does not apply to long-script`}},
		{"a lock", withSteps("  - {actor: A, do: long-script, by: 10s, lock: other}"),
			[]string{`t.yaml:7:42: field "lock" does not apply to long-script`}},
		{"an outcome it cannot have", withSteps("  - {actor: A, do: long-script, by: 10s, expect: SCRIPT_BUSY}"),
			[]string{`t.yaml:7:50: unknown outcome "SCRIPT_BUSY" for long-script (want one of OK)`}},
		{"a paused actor", withSteps("  - {actor: A, do: pause}", "  - {actor: A, do: long-script, by: 10s}"),
			[]string{`t.yaml:8:13: step 2: actor "A" is paused; only resume may come next for it`}},
		{"a crashed actor", withSteps("  - {actor: B, do: crash}", "  - {actor: B, do: long-script, by: 10s}"),
			[]string{`t.yaml:8:13: step 2: actor "B" has crashed and can take no further step`}},
		{"an unknown actor", withSteps("  - {actor: C, do: long-script, by: 10s}"),
			[]string{`t.yaml:7:13: step 1: unknown actor "C" (declare it under actors, or create it with fork)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameLines(t, loadErrors(t, "t.yaml", tc.src), tc.want)
		})
	}
}

// TestFractionalDurationMessages: a fraction of a millisecond in a step's
// by (advance, clock-jump, long-script: how far a clock moves) is refused
// with the clock's message, lesson.by-ms; in a lease, with the lease's,
// lesson.duration-ms.
func TestFractionalDurationMessages(t *testing.T) {
	tests := []struct{ step, path, want string }{
		{"  - {do: advance, by: 1500us}", "steps[2].by", "lesson.by-ms"},
		{"  - {do: clock-jump, by: 1500us}", "steps[2].by", "lesson.by-ms"},
		{"  - {actor: A, do: long-script, by: 1500us}", "steps[2].by", "lesson.by-ms"},
		{"  - {actor: B, do: acquire, lease: 1500us}", "steps[2].lease", "lesson.duration-ms"},
	}
	for _, tc := range tests {
		_, err := sim.Load("t.yaml", []byte(longScriptHead+tc.step+"\n"))
		var errs sim.LoadErrors
		if !errors.As(err, &errs) || len(errs) != 1 {
			t.Errorf("%s: %v, want one LoadError", tc.step, err)
			continue
		}
		if e := errs[0]; e.Path != tc.path || e.Problem.ID != tc.want || e.Problem.Args["Got"] != "1500us" {
			t.Errorf("%s: %s %s %v, want %s %s with Got 1500us", tc.step, e.Path, e.Problem.ID, e.Problem.Args, tc.path, tc.want)
		}
	}
}
