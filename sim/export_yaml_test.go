package sim_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"lockstep/sim"
)

// trickyStrings are values a YAML writer must quote or escape to read them
// back unchanged.
var trickyStrings = []string{
	"", "yes", "no", "Yes", "NO", "on", "off", "y", "n", "true", "False", "null", "Null", "~", "NaN", ".nan", ".inf", "-.inf",
	"0", "1", "-1", "+1", "0x10", "0o17", "017", "1e3", "1_000", "3.14", ".5", "1:20", "2001-12-14", "2001-12-14T21:59:43.10Z",
	"a: b", "a:b", "key:", ":", "x #y", "#comment", "# comment", "'single'", "\"double\"", "it's", `say "hi"`, `back\slash`,
	" leading space", "trailing space ", "  ", "\ttab", "line one\nline two", "ends with newline\n", "\n", "cr\r\nlf",
	"- dash", "-", "--- doc", "...", "? key", "[list]", "{map}", "a, b", "a]b", "a}b", "*alias", "&anchor", "!tag", "!!str x",
	"%percent", "@at", "`tick`", "|", ">", "| literal", "> folded", "<<", "=", "30s",
	"支付任务 A", "租约过期后旧持有者恢复：A 醒来", "柵欄令牌為 2。", "中文: 冒号", "全角：冒号＃井号", "emoji 🔒", "é\u00a0nbsp", "\u2028sep", "\ufeffbom",
	"A takes the lock: a fresh grant token, count 1, lease 30 s.",
}

var genText = rapid.OneOf(
	rapid.SampledFrom(trickyStrings),
	rapid.String(),
	rapid.StringMatching(`[a-z :#'"\\\-]{0,12}`),
)

func drawText(t *rapid.T, label string) sim.Text {
	switch rapid.IntRange(0, 4).Draw(t, label+"_kind") {
	case 0:
		return nil
	case 1:
		return sim.Plain(genText.Draw(t, label))
	default:
		tx := sim.Text{}
		for _, loc := range sim.Locales {
			if rapid.IntRange(0, 4).Draw(t, label+"_has_"+string(loc)) > 0 {
				tx[loc] = genText.Draw(t, label+"_"+string(loc))
			}
		}
		return tx
	}
}

// genExportLesson draws a random lesson that sim.Validate accepts, in the
// form Load gives (every step carries its lock), with tricky strings in
// every free-form field.
func genExportLesson(t *rapid.T) *sim.Lesson {
	lease := time.Duration(rapid.OneOf(
		rapid.Int64Range(1, 600_000),
		rapid.SampledFrom([]int64{1000, 30_000, 60_000, 90_000, 1500, 3_600_000, 7_200_000}),
	).Draw(t, "lease_ms")) * time.Millisecond
	lockNames := rapid.StringMatching(`[A-Za-z0-9][A-Za-z0-9:._-]{0,10}`)
	l := &sim.Lesson{
		ID:       rapid.StringMatching(`[a-z0-9-]{1,16}`).Draw(t, "id"),
		Title:    drawText(t, "title"),
		Summary:  drawText(t, "summary"),
		Takeaway: drawText(t, "takeaway"),
		Source:   rapid.OneOf(rapid.Just(""), genText).Draw(t, "source"),
		Group:    rapid.SampledFrom(append([]string{""}, sim.Groups...)).Draw(t, "group"),
		Variant:  rapid.SampledFrom(sim.Variants()).Draw(t, "variant"),
		Lease:    lease,
		Fencing:  rapid.Bool().Draw(t, "fencing"),
		Lock:     rapid.OneOf(rapid.Just("lock"), lockNames).Draw(t, "lock"),
		Replica:  rapid.Bool().Draw(t, "replica"),
	}
	if rapid.Bool().Draw(t, "own_seed") {
		l.Seed = rapid.Uint64Min(1).Draw(t, "seed")
	} else {
		l.Seed = fnvSeed(l.ID)
	}
	otherLock := lockNames.Draw(t, "other_lock")

	status := map[string]string{}
	var ids []string
	nActors := rapid.IntRange(1, 3).Draw(t, "actors")
	for i := range nActors {
		id := string(rune('A' + i))
		if rapid.IntRange(0, 3).Draw(t, "long_id_"+id) == 0 {
			id += rapid.StringMatching(`[A-Za-z0-9_-]{1,6}`).Draw(t, "id_tail_"+id)
		}
		ids = append(ids, id)
		status[id] = "running"
		l.Actors = append(l.Actors, sim.ActorSpec{
			ID:        id,
			Name:      drawText(t, "name_"+id),
			Instance:  rapid.OneOf(rapid.Just(""), genText).Draw(t, "instance_"+id),
			RequestID: rapid.OneOf(rapid.Just(""), genText).Draw(t, "request_id_"+id),
		})
	}
	kinds := []sim.Action{sim.ActAcquire, sim.ActAcquire, sim.ActRelease, sim.ActWrite, sim.ActPause, sim.ActResume,
		sim.ActAdvance, sim.ActFork, sim.ActCrash, sim.ActExit, sim.ActClockJump, sim.ActFinishRelease, sim.ActFailover, sim.ActLongScript}
	failedOver := false
	forks := 0
	nSteps := rapid.IntRange(1, 15).Draw(t, "steps")
	for len(l.Steps) < nSteps {
		do := rapid.SampledFrom(kinds).Draw(t, "do")
		st := sim.Step{Do: do, Lock: l.Lock}
		var running, paused []string
		for _, id := range ids {
			switch status[id] {
			case "running":
				running = append(running, id)
			case "paused":
				paused = append(paused, id)
			}
		}
		switch do {
		case sim.ActAdvance, sim.ActClockJump:
			st.By = time.Duration(rapid.Int64Range(1, 200_000).Draw(t, "by_ms")) * time.Millisecond
		case sim.ActFailover:
			if !l.Replica || failedOver {
				continue
			}
			failedOver = true
		case sim.ActResume:
			if len(paused) == 0 {
				continue
			}
			st.Actor = rapid.SampledFrom(paused).Draw(t, "actor")
			status[st.Actor] = "running"
		default:
			if len(running) == 0 {
				continue
			}
			st.Actor = rapid.SampledFrom(running).Draw(t, "actor")
			switch do {
			case sim.ActPause:
				status[st.Actor] = "paused"
			case sim.ActCrash:
				status[st.Actor] = "crashed"
			case sim.ActExit:
				status[st.Actor] = "exited"
			case sim.ActLongScript:
				st.By = time.Duration(rapid.Int64Range(1, 200_000).Draw(t, "script_ms")) * time.Millisecond
			case sim.ActFork:
				forks++
				st.Child = fmt.Sprintf("F%d", forks)
				st.Context = rapid.SampledFrom([]string{"inherit", "lost"}).Draw(t, "context")
				ids = append(ids, st.Child)
				status[st.Child] = "running"
				if rapid.Bool().Draw(t, "declare_child") {
					l.Actors = append(l.Actors, sim.ActorSpec{ID: st.Child, Name: drawText(t, "name_"+st.Child)})
				}
			case sim.ActAcquire, sim.ActRelease, sim.ActWrite, sim.ActFinishRelease:
				if rapid.IntRange(0, 4).Draw(t, "other_lock_step") == 0 {
					st.Lock = otherLock
				}
				if do != sim.ActFinishRelease && l.Replica && !failedOver {
					st.Unreplicated = rapid.IntRange(0, 3).Draw(t, "unreplicated") == 0
				}
				switch do {
				case sim.ActAcquire:
					if rapid.IntRange(0, 3).Draw(t, "own_lease") == 0 {
						st.Lease = time.Duration(rapid.Int64Range(1, 120_000).Draw(t, "step_lease_ms")) * time.Millisecond
					}
				case sim.ActRelease:
					st.ReplyLost = rapid.IntRange(0, 4).Draw(t, "reply_lost") == 0
				case sim.ActWrite:
					st.Value = genText.Draw(t, "value")
				}
			}
		}
		if rapid.Bool().Draw(t, "expect") {
			st.Expect = rapid.SampledFrom(sim.OutcomesFor(do)).Draw(t, "outcome")
		}
		if n := rapid.IntRange(0, 5).Draw(t, "n_violations"); n <= 2 {
			for range n {
				st.ExpectViolations = append(st.ExpectViolations, rapid.SampledFrom(sim.Invariants).Draw(t, "violation"))
			}
		}
		st.Say = drawText(t, "say")
		l.Steps = append(l.Steps, st)
	}
	return l
}

// fnvSeed is the seed sim.Load derives from a lesson id (FNV-1a, 64 bits).
func fnvSeed(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h
}

// withoutPositions returns a copy of l without File and positions, which a
// lesson file does not state.
func withoutPositions(l *sim.Lesson) *sim.Lesson {
	c := *l
	c.File = ""
	c.Actors = append([]sim.ActorSpec(nil), l.Actors...)
	for i := range c.Actors {
		c.Actors[i].Pos = sim.Pos{}
	}
	c.Steps = append([]sim.Step(nil), l.Steps...)
	for i := range c.Steps {
		c.Steps[i].Pos, c.Steps[i].ActorPos = sim.Pos{}, sim.Pos{}
	}
	return &c
}

// TestMarshalLessonRoundTrip: any valid lesson, with tricky strings in every
// text, survives MarshalLesson and Load unchanged.
func TestMarshalLessonRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := genExportLesson(t)
		if err := sim.Validate(l); err != nil {
			t.Fatalf("generator made an invalid lesson: %v", err)
		}
		src, err := sim.MarshalLesson(l)
		if err != nil {
			t.Fatalf("MarshalLesson: %v", err)
		}
		back, err := sim.Load("exported.yaml", src)
		if err != nil {
			t.Fatalf("Load of the exported lesson: %v\n%s", err, src)
		}
		if got, want := withoutPositions(back), withoutPositions(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("the lesson read back differs:\n got %#v\nwant %#v\n%s", got, want, src)
		}
		again, err := sim.MarshalLesson(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(src) {
			t.Fatalf("a second export differs:\n%s\n---\n%s", src, again)
		}
	})
}

func TestMarshalLessonFormat(t *testing.T) {
	// head is the lesson's fields that the export writes as they are given.
	const head = `id: demo
title: {en: "Stale owner", zh-CN: "过期持有者", zh-TW: "過期持有者"}
variant: token-count
lease: 1500ms
fencing: true
lock: order:42
seed: 7
actors:
`
	src := head + `  - {id: A, name: "yes", instance: "null"}
  - id: B
steps:
  - {actor: A, do: acquire, lease: 2m, expect: ACQUIRED}
  - {actor: A, do: write, lock: other, value: "a: b # c", expect_violation: [stale-write, leaked-hold]}
  - {do: advance, by: 31s, say: "0x10"}
  - {actor: B, do: fork, child: C, context: inherit, expect_violation: overlapping-holders}
`
	l, err := sim.Load("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := sim.MarshalLesson(l)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Lesson exported by Lockstep (sim.MarshalLesson).\n" + head + `  - id: A
    name: "yes"
    instance: "null"
  - id: B
steps:
  - actor: A
    do: acquire
    lease: 2m
    expect: ACQUIRED
  - actor: A
    do: write
    lock: other
    value: "a: b # c"
    expect_violation: [stale-write, leaked-hold]
  - do: advance
    by: 31s
    say: "0x10"
  - actor: B
    do: fork
    child: C
    context: inherit
    expect_violation: overlapping-holders
`
	if string(out) != want {
		t.Errorf("MarshalLesson:\n%s\nwant:\n%s", out, want)
	}
}

// TestMarshalLessonOtherLocale: a text in a locale beyond the format's three
// (one the catalogue adds) is written after them and reads back with it.
func TestMarshalLessonOtherLocale(t *testing.T) {
	l := &sim.Lesson{ID: "x", Variant: "token-count", Lease: time.Second, Lock: "lock", Seed: 1,
		Title: sim.Text{"jbo": "coi", sim.English: "hi"}, Steps: []sim.Step{{Do: sim.ActAdvance, By: time.Second, Lock: "lock"}}}
	out, err := sim.MarshalLesson(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `title: {en: "hi", jbo: "coi"}`) {
		t.Errorf("title not written in the format's order, then jbo:\n%s", out)
	}
	back, err := sim.Options{Locales: []sim.Locale{sim.English, "jbo"}}.Load("x.yaml", out)
	if err != nil || back.Title["jbo"] != "coi" {
		t.Fatalf("read back: %v", err)
	}
}

func TestMarshalLessonRefuses(t *testing.T) {
	base := func() *sim.Lesson {
		return &sim.Lesson{ID: "x", Variant: "token-count", Lease: time.Second, Lock: "lock", Seed: 1,
			Steps: []sim.Step{{Do: sim.ActAdvance, By: time.Second, Lock: "lock"}}}
	}
	for name, mutate := range map[string]func(l *sim.Lesson){
		"seed 0":     func(l *sim.Lesson) { l.Seed = 0 },
		"mixed text": func(l *sim.Lesson) { l.Title = sim.Text{"": "a", sim.English: "b"} },
	} {
		l := base()
		if _, err := sim.MarshalLesson(l); err != nil {
			t.Fatalf("base lesson: %v", err)
		}
		mutate(l)
		if _, err := sim.MarshalLesson(l); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "MarshalLesson") {
			t.Errorf("%s: error %q does not name MarshalLesson", name, err)
		}
	}
}
