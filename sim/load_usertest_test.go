package sim_test

import (
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// Problems a first user hit by hand; each must be reported clearly, at its
// place, once.
func TestLoadUserReportedProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"an actor forking itself", doc(
			"variant: token-count", "lease: 30s", "actors: [{id: A}]", "steps:",
			"  - {actor: A, do: fork, child: A, context: lost}",
			"  - {actor: A, do: acquire}"),
			[]string{`t.yaml:5:33: step 1: actor "A" cannot fork itself; name a new child`}},
		{"no steps", doc("variant: token-count", "lease: 30s", "steps: []"),
			[]string{"t.yaml:3:8: steps: a lesson needs at least one step"}},
		{"a duration past Go's range", doc("variant: token-count", "lease: 9999999999999999999999h", "steps: [{do: advance, by: 1s}]"),
			[]string{"t.yaml:2:8: lease: duration 9999999999999999999999h is too long (Go durations end at about 2562047h)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := loadErrors(t, "t.yaml", c.src)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("errors:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(c.want, "\n      "))
			}
		})
	}
}

// TestLoadByteOrderMark: a file saved with a UTF-8 BOM loads like one without.
func TestLoadByteOrderMark(t *testing.T) {
	src := "\ufeff" + doc("variant: token-count", "lease: 30s", "actors: [{id: A}]", "steps: [{actor: A, do: acquire}]")
	l, err := sim.Load("bom.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if l.Variant != "token-count" {
		t.Fatalf("variant %q", l.Variant)
	}
}

// TestLoadFileUnreadable names the path and the reason, with no position.
func TestLoadFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	_, err := sim.LoadFile(dir)
	if err == nil || err.Error() != "sim: "+dir+": cannot read the lesson file: is a directory" {
		t.Fatalf("got %v", err)
	}
}

// TestFencingOnEveryVariant: the spec lets any lesson set fencing: true.
// Variants whose acquire script does not issue fencing tokens get them from
// resource/fence in the same transaction; a second owner gets a higher one.
func TestFencingOnEveryVariant(t *testing.T) {
	for _, v := range sim.Variants() {
		t.Run(v, func(t *testing.T) {
			src := doc("variant: "+v, "lease: 10s", "fencing: true", "actors: [{id: A}, {id: B}]", "steps:",
				"  - {actor: A, do: acquire, expect: ACQUIRED}",
				"  - {actor: A, do: pause}", // a paused watchdog renews nothing
				"  - {do: advance, by: 11s}",
				"  - {actor: B, do: acquire, expect: ACQUIRED}",
				"  - {actor: B, do: write, value: b, expect: ACCEPTED}",
				"  - {actor: A, do: resume}",
				"  - {actor: A, do: write, value: a, expect: REJECTED}")
			l, err := sim.Load("f.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			frames, failures := runModel(t, l)
			if len(failures) > 0 {
				t.Fatalf("%v\n%s", failures, sim.FormatFrames(frames, sim.English))
			}
			var fences []int64
			for _, a := range frames[4].Actors {
				for _, h := range a.Holds {
					fences = append(fences, h.Fence)
				}
			}
			if len(fences) != 2 || fences[0] != 1 || fences[1] != 2 {
				t.Fatalf("fencing tokens %v, want [1 2]\n%s", fences, sim.FormatFrame(frames[4], sim.English))
			}
		})
	}
}

func runModel(t *testing.T, l *sim.Lesson) ([]sim.Frame, []sim.Failure) {
	t.Helper()
	return lessontest.Run(t, lessontest.Open(t, backend.Config{}), l)
}
