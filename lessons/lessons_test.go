package lessons_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the embedded backend")

// runOn runs l on a fresh store of be and returns its frames, failing the
// test on a run error or a failed expectation.
func runOn(t *testing.T, be *backend.Backend, l *sim.Lesson) []sim.Frame {
	t.Helper()
	frames, failures := lessontest.Run(t, be, l)
	for _, f := range failures {
		t.Errorf("%s on %s: %v", l.ID, be.Info(), f)
	}
	return frames
}

func open(t *testing.T, url string) *backend.Backend {
	t.Helper()
	return lessontest.Open(t, backend.Config{URL: url})
}

// TestLessonsGolden runs every lesson on the embedded backend and on a real
// redis-server: every expectation must hold, the frames must match the golden
// text, and the two backends' frames must be identical down to the JSON.
func TestLessonsGolden(t *testing.T) {
	all := lessontest.Course(t)
	if len(all) < 3 {
		t.Fatalf("want at least 3 lessons, got %d", len(all))
	}
	prevGroup := 0
	for _, l := range all {
		g := slices.Index(sim.Groups, l.Group)
		if g < prevGroup {
			t.Errorf("%s: group %s comes after a later group; order the files by group", l.File, l.Group)
		}
		prevGroup = max(prevGroup, g)
	}
	embedded := open(t, "")
	real := open(t, redistest.Start(t).URL)
	// The golden files pin the violations' explanations in English, as the
	// catalogue words them.
	english := sim.Printer{Locale: sim.English, Renderer: catalogtest.New(t)}
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			emb := runOn(t, embedded, l)
			text := english.Frames(emb)
			checkGolden(t, filepath.Join("testdata", "golden", l.ID+".txt"), "frames", text)
			again := runOn(t, embedded, l)
			if english.Frames(again) != text {
				t.Errorf("a second embedded run gave other frames:\n%s", firstDiff(text, english.Frames(again)))
			}
			onReal := runOn(t, real, l)
			if got := english.Frames(onReal); got != text {
				t.Errorf("real Redis frames differ from embedded:\n%s", firstDiff(text, got))
			}
			a, _ := json.Marshal(emb)
			b, _ := json.Marshal(onReal)
			if string(a) != string(b) {
				t.Error("real Redis frames differ from embedded in JSON")
			}
		})
	}
}

// TestSummariesPoseTheQuestion: the course page shows every lesson's
// summary, so a summary that told the outcome would answer the learner's
// predictions before the first step (issue 39). Each course lesson's
// summary, in every language, sets the scene and asks what happens.
func TestSummariesPoseTheQuestion(t *testing.T) {
	for _, l := range lessontest.Course(t) {
		for _, loc := range sim.Locales {
			if s := l.Summary[loc]; !strings.ContainsAny(s, "?？") {
				t.Errorf("%s: the %s summary asks no question (pose the lesson's question, do not give its outcome): %s", l.File, loc, s)
			}
		}
	}
}

// TestTitlesKeepTheOutcomeBack checks that no course lesson's title, in
// any language, names an outcome one of its steps expects ("Nested acquire
// after expiry: LOST", "… or the script fails with CROSSSLOT"): the course
// page and the player's header show the title before the learner predicts
// (issue 39). A title names the situation.
func TestTitlesKeepTheOutcomeBack(t *testing.T) {
	for _, l := range lessontest.Course(t) {
		seen := map[sim.Outcome]bool{}
		for _, s := range l.Steps {
			if s.Expect == "" || seen[s.Expect] {
				continue
			}
			seen[s.Expect] = true
			word := regexp.MustCompile(`(^|[^A-Za-z_])` + regexp.QuoteMeta(string(s.Expect)) + `($|[^A-Za-z_])`)
			for _, loc := range sim.Locales {
				if title := l.Title[loc]; word.MatchString(title) {
					t.Errorf("%s: the %s title names the outcome %s (name the situation): %s", l.File, loc, s.Expect, title)
				}
			}
		}
	}
}

// TestLessonsComplete checks that every text a learner reads exists in all
// three languages.
func TestLessonsComplete(t *testing.T) {
	all := lessontest.Course(t)
	for _, l := range all {
		lessontest.Complete(t, l.File, "title", l.Title)
		lessontest.Complete(t, l.File, "summary", l.Summary)
		lessontest.Complete(t, l.File, "takeaway", l.Takeaway)
		if l.Note != nil {
			lessontest.Complete(t, l.File, "note", l.Note)
		}
		if l.Source == "" {
			t.Errorf("%s: no source", l.File)
		}
		if l.Group == "" {
			t.Errorf("%s: no group", l.File)
		}
		for _, a := range l.Actors {
			lessontest.Complete(t, l.File, "actor "+a.ID+" name", a.Name)
		}
		for i, s := range l.Steps {
			lessontest.Complete(t, l.File, "step "+strconv.Itoa(i+1)+" say", s.Say)
			if s.Why != nil {
				lessontest.Complete(t, l.File, "step "+strconv.Itoa(i+1)+" why", s.Why)
				for j, b := range s.Because {
					lessontest.Complete(t, l.File, "step "+strconv.Itoa(i+1)+" because "+strconv.Itoa(j+1), b)
				}
			}
			if s.Misconception != nil {
				lessontest.Complete(t, l.File, "step "+strconv.Itoa(i+1)+" misconception", s.Misconception)
			}
			if (s.Do == sim.ActAcquire || s.Do == sim.ActRelease || s.Do == sim.ActWrite || s.Do == sim.ActFinishRelease || s.Do == sim.ActFinishWrite) && s.Expect == "" {
				t.Errorf("%s: step %d (%s) asserts no outcome", l.File, i+1, s.Do)
			}
		}
	}
}

// firstDiff shows the first line where two texts differ, with context.
// checkGolden compares got, the what of a lesson ("frames", "diagram"),
// with the golden file at path; with -update it first writes got there
// (making its folder).
func checkGolden(t *testing.T, path, what, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lessons -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s not as in %s (review, then -update):\n%s", what, path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := splitLines(want), splitLines(got)
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return "(no line differs)"
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
