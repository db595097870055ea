package proxy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"lockstep/backend"
	"lockstep/sim"
)

// savedStep is a step of a saved lesson as the test reads it back.
type savedStep struct {
	Actor           string `yaml:"actor"`
	Do              string `yaml:"do"`
	Expect          string `yaml:"expect"`
	ExpectViolation string `yaml:"expect_violation"`
}

// laneOf is the lane of the first command event whose arguments are
// args.
func laneOf(evs []Event, args ...string) (lane string, seq uint64) {
	for _, e := range evs {
		if e.Kind == EventCommand && slices.Equal(e.Command.Args, args) {
			return e.Lane, e.Seq
		}
	}
	return "", 0
}

// findingsOf are the snapshot's findings as code, lane, other and
// message id, for comparing.
func findingsOf(snap Snapshot) []string {
	var out []string
	for _, f := range snap.Findings {
		out = append(out, f.Code+" "+f.Lane+" "+f.Other+" "+f.Message.ID)
	}
	return out
}

// replaySaved loads saved (lesson and variant file) and runs it on url
// (a real Redis), or on the embedded Redis when url is "", failing t on
// any step whose outcome differs from its expect; it returns the lesson.
func replaySaved(t *testing.T, saved Saved, url string) *sim.Lesson {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for name, body := range map[string][]byte{saved.LessonFile: saved.Lesson, saved.VariantFile: saved.Variant} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := sim.LoadFile(filepath.Join(dir, saved.LessonFile))
	if err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, saved.Lesson, saved.Variant)
	}
	be, err := backend.Open(ctx, backend.Config{URL: url, AllowCustomScripts: true})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	store, err := be.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	r, err := sim.NewRunner(l, store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx); err != nil || len(r.Failures()) > 0 {
		t.Errorf("replay on %q: %v %v\n%s\n%s", url, err, r.Failures(), saved.Lesson, saved.Variant)
	}
	return l
}

// savedSteps are the steps of saved's lesson but its advances, and t
// fails unless saved's missing notes name command seq (what it did).
func savedSteps(t *testing.T, saved Saved, seq uint64, what string) []savedStep {
	t.Helper()
	prefix := "command " + strconv.FormatUint(seq, 10) + ":"
	if !slices.ContainsFunc(saved.Missing, func(m string) bool { return strings.HasPrefix(m, prefix) }) {
		t.Errorf("saved's missing %q: want %s (command %d) named", saved.Missing, what, seq)
	}
	var lesson struct {
		Steps []savedStep `yaml:"steps"`
	}
	if err := yaml.Unmarshal(saved.Lesson, &lesson); err != nil {
		t.Fatal(err)
	}
	var steps []savedStep
	for _, s := range lesson.Steps {
		if s.Do != "advance" {
			steps = append(steps, s)
		}
	}
	return steps
}

// TestOverwrittenHold: a holds lock:tx (SET NX PX 3000); b sends a plain
// SET lock:tx other PX 3000 (no NX) with about 3 s of a's lease left. No
// lease ran out: the finding is overwritten (b over a), with no overlap
// beside it, and b then holds the key. a never released, so it is stale:
// c's acquire after b's release is an overlap with a, said as after an
// overwrite, and a's own release later is answered "not owner". The
// saved lesson lists the overwrite as missing and replays it as a
// clock-jump and b's acquire, with the same outcomes on both Redises.
// Before, the findings were lease-expired (a's lease "ran out") and an
// overlap "after the lease ran out", and the saved lesson dropped the SET
// without a word.
func TestOverwrittenHold(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p := startOn(t, realRedis, Config{Locks: "lock:*"})
		a, b, c := dialRaw(t, p.Addr()), dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
		for _, step := range []struct {
			rc   *rawClient
			cmd  []string
			want string
		}{
			{a, cmd("SET lock:tx tokA NX PX 3000"), "OK"},
			{b, cmd("SET lock:tx other PX 3000"), "OK"},
			{b, []string{"EVAL", releaseLua, "1", "lock:tx", "other"}, "(integer) 1"},
			{c, cmd("SET lock:tx tokC NX PX 3000"), "OK"},
			{a, []string{"EVAL", releaseLua, "1", "lock:tx", "tokA"}, "(integer) 0"},
			{c, []string{"EVAL", releaseLua, "1", "lock:tx", "tokC"}, "(integer) 1"},
		} {
			if got := step.rc.pipeline(t, step.cmd); got[0] != step.want {
				t.Fatalf("%q answered %q, want %q", step.cmd, got, step.want)
			}
			// A command's event reaches the analyzer once the read after
			// it is back, which may be after the client saw its reply
			// and the next client's command was handed: wait for it.
			settle(p)
		}
		settle(p)
		snap := p.Snapshot()
		laneA, _ := laneOf(snap.Events, cmd("SET lock:tx tokA NX PX 3000")...)
		laneB, overwrite := laneOf(snap.Events, cmd("SET lock:tx other PX 3000")...)
		laneC, _ := laneOf(snap.Events, cmd("SET lock:tx tokC NX PX 3000")...)
		want := []string{
			FindingOverwritten + " " + laneB + " " + laneA + " proxy.finding.overwritten",
			FindingOverlap + " " + laneC + " " + laneA + " proxy.finding.overlap-overwritten",
			FindingReleaseNotOwner + " " + laneA + "  proxy.finding.release-not-owner",
		}
		if got := findingsOf(snap); !slices.Equal(got, want) {
			t.Errorf("findings\n%q\nwant\n%q", got, want)
		}
		for _, f := range snap.Findings {
			if f.Code != FindingOverwritten {
				continue
			}
			left, ok := f.Message.Args["Left"].(sim.Msg)
			if !ok || left.ID != "proxy.finding.lease-left" {
				t.Errorf("overwritten's Left %+v, want the lease left", f.Message.Args["Left"])
			} else if ms := left.Args["Left"].(sim.Millis); ms <= 2000 || ms > 3000 {
				t.Errorf("lease left %d ms, want about 3 s", ms)
			}
		}
		// After b's SET, b held the key.
		for _, st := range statesAfter(snap.Events, overwrite) {
			if st.Holder != laneB || st.Owner != "other" {
				t.Errorf("after b's SET: %+v, want b holding other", st)
			}
		}

		saved, err := p.SaveLesson(context.Background(), SaveOptions{ID: "overwritten"})
		if err != nil {
			t.Fatal(err)
		}
		steps := savedSteps(t, saved, overwrite, "the overwrite")
		wantSteps := []savedStep{
			{Actor: "A", Do: "acquire", Expect: "ACQUIRED"},
			{Do: "clock-jump"},
			{Actor: "B", Do: "acquire", Expect: "ACQUIRED", ExpectViolation: "overlapping-holders"},
			{Actor: "B", Do: "release", Expect: "RELEASED"},
			{Actor: "C", Do: "acquire", Expect: "ACQUIRED", ExpectViolation: "overlapping-holders"},
			{Actor: "A", Do: "release", Expect: "NOT_OWNER"},
			{Actor: "C", Do: "release", Expect: "RELEASED"},
		}
		if !slices.Equal(steps, wantSteps) {
			t.Errorf("saved steps\n%+v\nwant\n%+v\n%s", steps, wantSteps, saved.Lesson)
		}
		replaySaved(t, saved, p.cfg.RedisURL)
	})
}

// TestRemovedUnderHolder: b ends a's hold with lease left by commands
// that are no release. PEXPIRE 0 removes the key: overwritten (its
// removal form), not lease-expired, and a stays stale, so c's acquire is
// an overlap with a; the saved lesson lists the removal as missing and
// replays it as a clock-jump. A DEL by b is a release (isRelease), found
// as release-by-other, as analyzer.update says why.
func TestRemovedUnderHolder(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p := startOn(t, realRedis, Config{Locks: "lock:*"})
		a, b, c := dialRaw(t, p.Addr()), dialRaw(t, p.Addr()), dialRaw(t, p.Addr())
		for _, step := range []struct {
			rc   *rawClient
			cmd  []string
			want string
		}{
			{a, cmd("SET lock:rm tokA NX PX 3000"), "OK"},
			{b, cmd("PEXPIRE lock:rm 0"), "(integer) 1"},
			{c, cmd("SET lock:rm tokC NX PX 3000"), "OK"},
			{a, []string{"EVAL", releaseLua, "1", "lock:rm", "tokA"}, "(integer) 0"},
			{c, []string{"EVAL", releaseLua, "1", "lock:rm", "tokC"}, "(integer) 1"},
			{a, cmd("SET lock:del tokA NX PX 3000"), "OK"},
			{b, cmd("DEL lock:del"), "(integer) 1"},
		} {
			if got := step.rc.pipeline(t, step.cmd); got[0] != step.want {
				t.Fatalf("%q answered %q, want %q", step.cmd, got, step.want)
			}
			settle(p) // as in TestOverwrittenHold
		}
		snap := p.Snapshot()
		laneA, _ := laneOf(snap.Events, cmd("SET lock:rm tokA NX PX 3000")...)
		laneB, removal := laneOf(snap.Events, cmd("PEXPIRE lock:rm 0")...)
		laneC, _ := laneOf(snap.Events, cmd("SET lock:rm tokC NX PX 3000")...)
		want := []string{
			FindingOverwritten + " " + laneB + " " + laneA + " proxy.finding.overwritten-deleted",
			FindingOverlap + " " + laneC + " " + laneA + " proxy.finding.overlap-overwritten",
			FindingReleaseNotOwner + " " + laneA + "  proxy.finding.release-not-owner",
			FindingReleaseByOther + " " + laneB + " " + laneA + " proxy.finding.release-by-other",
		}
		if got := findingsOf(snap); !slices.Equal(got, want) {
			t.Errorf("findings\n%q\nwant\n%q", got, want)
		}
		saved, err := p.SaveLesson(context.Background(), SaveOptions{ID: "removed", Key: "lock:rm"})
		if err != nil {
			t.Fatal(err)
		}
		steps := savedSteps(t, saved, removal, "the removal")
		wantSteps := []savedStep{
			{Actor: "A", Do: "acquire", Expect: "ACQUIRED"},
			{Do: "clock-jump"},
			{Actor: "B", Do: "acquire", Expect: "ACQUIRED", ExpectViolation: "overlapping-holders"},
			{Actor: "A", Do: "release", Expect: "NOT_OWNER"},
			{Actor: "B", Do: "release", Expect: "RELEASED"},
		}
		if !slices.Equal(steps, wantSteps) {
			t.Errorf("saved steps\n%+v\nwant\n%+v\n%s", steps, wantSteps, saved.Lesson)
		}
		replaySaved(t, saved, p.cfg.RedisURL)
	})
}

// TestOverwriteNeedsLeaseLeft: whether a write with a new owner came
// before the holder's lease ran out is judged by the earliest the lease
// could end in Redis (expiresLow: the PTTL counted from the command's
// Sent), not by expiresAt, which counts it from the read's reply and may
// be late by the read's round trip (here 50 ms). A plain SET answered 10
// ms after that earliest end may have found the key expired: the lease
// ran out, then an overlap; one answered well before it overwrote.
func TestOverwriteNeedsLeaseLeft(t *testing.T) {
	for _, tc := range []struct {
		at    time.Duration // b's SET, sent and answered, after a's
		codes []string
	}{
		{410 * time.Millisecond, []string{FindingLeaseExpired, FindingOverlap}},
		{200 * time.Millisecond, []string{FindingOverwritten}},
	} {
		p := &Proxy{trace: newRing(100, 0), sessions: map[int64]*session{}}
		a := newAnalyzer(p)
		t0 := time.Now()
		set := func(seq uint64, lane string, sent time.Time, args ...string) obs {
			raw := make([][]byte, len(args))
			for i, s := range args {
				raw[i] = []byte(s)
			}
			c := parseCommand(raw, func(string) *Script { return nil })
			return obs{e: Event{Seq: seq, Kind: EventCommand, Lane: lane,
				Command: &CommandEvent{Name: "SET", Sent: sent, Replied: sent, Locks: []string{"lock:job"}, cmd: c, value: Value{Kind: '+', Str: "OK"}}}}
		}
		// a's state read 50 ms after its SET was sent.
		a.update("lock:job", LockState{Key: "lock:job", Type: "string", Value: "A", PTTL: 400, Read: t0.Add(50 * time.Millisecond)},
			set(1, "c1", t0, "SET", "lock:job", "A", "NX", "PX", "400"), t0)
		at := t0.Add(tc.at)
		a.update("lock:job", LockState{Key: "lock:job", Type: "string", Value: "B", PTTL: 400, Read: at},
			set(2, "c2", at, "SET", "lock:job", "B", "PX", "400"), at)
		_, findings := a.snapshot()
		var codes []string
		for _, f := range findings {
			codes = append(codes, f.Code)
		}
		if !slices.Equal(codes, tc.codes) {
			t.Errorf("b's SET %v after a's: findings %v, want %v", tc.at, codes, tc.codes)
		}
	}
}
