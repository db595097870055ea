package lessons_test

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestExportedLessonsRunTheSame exports every course lesson with
// sim.MarshalLesson, loads the result and runs it: the lesson read back is the
// same apart from file and positions, and its frames are the original's.
func TestExportedLessonsRunTheSame(t *testing.T) {
	all := lessontest.Course(t)
	embedded := open(t, "")
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			src, err := sim.MarshalLesson(l)
			if err != nil {
				t.Fatal(err)
			}
			back, err := sim.Load("exported/"+filepath.Base(l.File), src)
			if err != nil {
				t.Fatalf("Load of the exported lesson: %v\n%s", err, src)
			}
			if !reflect.DeepEqual(lessontest.WithoutPositions(back), lessontest.WithoutPositions(l)) {
				t.Fatalf("the exported lesson reads back differently:\n%s", src)
			}
			if back.Seed != l.Seed {
				t.Fatalf("seed %d, want %d", back.Seed, l.Seed)
			}
			want := lessontest.FramesWithoutLines(runOn(t, embedded, l))
			got := lessontest.FramesWithoutLines(runOn(t, embedded, back))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the exported lesson runs differently:\n%s", firstDiff(sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English)))
			}
		})
	}
}

// mermaidGoldenZH are the lessons whose diagram is pinned in Simplified
// Chinese too.
var mermaidGoldenZH = []string{"stale-owner", "watchdog-renewal"}

// TestSequenceDiagramGolden pins sim.SequenceDiagram of every course lesson
// (English, and Simplified Chinese for a few) in testdata/mermaid; -update
// rewrites the files.
func TestSequenceDiagramGolden(t *testing.T) {
	cat := catalogtest.New(t)
	all := lessontest.Course(t)
	embedded := open(t, "")
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			frames := runOn(t, embedded, l)
			locales := []sim.Locale{sim.English}
			if slices.Contains(mermaidGoldenZH, l.ID) {
				locales = append(locales, sim.SimplifiedChinese)
			}
			for _, loc := range locales {
				text := sim.SequenceDiagram(l, frames, loc, cat)
				checkMermaid(t, text)
				if again := sim.SequenceDiagram(l, frames, loc, cat); again != text {
					t.Errorf("%s: a second call gave another diagram", loc)
				}
				checkGolden(t, filepath.Join("testdata", "mermaid", l.ID+"."+string(loc)+".mmd"), "diagram", text)
			}
			// A prefix of the frames gives a prefix of the diagram's lines.
			if len(frames) > 2 {
				full := sim.SequenceDiagram(l, frames, sim.English, cat)
				part := sim.SequenceDiagram(l, frames[:len(frames)/2], sim.English, cat)
				checkMermaid(t, part)
				if !strings.HasPrefix(full, part) {
					t.Errorf("the diagram of a prefix of the run is not a prefix of the whole one:\n%s", firstDiff(full, part))
				}
			}
		})
	}
}

// TestSequenceDiagramEscapes runs a lesson whose texts hold what Mermaid
// reads as syntax and checks that the diagram keeps to its grammar.
func TestSequenceDiagramEscapes(t *testing.T) {
	src := `id: escapes
title: "a; b # c <d> end"
variant: token-count
lease: 1500ms
fencing: true
lock: "x:1"
actors:
  - {id: end-1, name: "Note over; you #1"}
  - {id: R, name: "line one\nline two"}
steps:
  - {actor: end-1, do: acquire, expect: ACQUIRED}
  - {actor: end-1, do: write, value: "a;b #c\nd"}
  - {actor: R, do: fork, child: W, context: lost}
  - {actor: W, do: write, value: "wrap: w"}
  - {do: advance, by: 2s}
`
	l, err := sim.Load("escapes.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	frames := runOn(t, open(t, ""), l)
	cat := catalogtest.New(t)
	for _, loc := range sim.Locales {
		text := sim.SequenceDiagram(l, frames, loc, cat)
		checkMermaid(t, text)
		for _, want := range []string{"title a#59; b #35; c #60;d#62; end", "as Note over#59; you #35;1", "line one<br/>line two", "create participant"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q in\n%s", loc, want, text)
			}
		}
	}
}

var (
	mermaidParticipant = regexp.MustCompile(`^    (?:create )?participant ([A-Za-z][A-Za-z0-9_]*)(?: as (.+))?$`)
	mermaidMessage     = regexp.MustCompile(`^    ([A-Za-z][A-Za-z0-9_]*)(->>|-->>|--x)([A-Za-z][A-Za-z0-9_]*): (.+)$`)
	mermaidNote        = regexp.MustCompile(`^    Note over ([A-Za-z][A-Za-z0-9_]*)(?:,([A-Za-z][A-Za-z0-9_]*))?: (.+)$`)
	mermaidTitle       = regexp.MustCompile(`^    title (.+)$`)
	// mermaidEntity is an entity code; any other '#' or ';' would end a text.
	mermaidEntity = regexp.MustCompile(`#[0-9]+;|#[A-Za-z]+;`)
)

// checkMermaid checks text against the part of Mermaid's sequenceDiagram
// grammar that SequenceDiagram uses (mermaid-cli is not at hand in tests):
// the header, declared participants before use (created ones just before
// the message that creates them), and texts free of raw '#', ';' and
// newlines.
func checkMermaid(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("diagram does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != "sequenceDiagram" {
		t.Fatalf("first line %q, want sequenceDiagram", lines[0])
	}
	declared := map[string]bool{}
	created := ""
	checkText := func(i int, s string) {
		rest := mermaidEntity.ReplaceAllString(s, "")
		if strings.ContainsAny(rest, "#;\r") || strings.TrimSpace(s) == "" {
			t.Errorf("line %d: text %q has a raw '#' or ';', or is empty", i+1, s)
		}
		if strings.ContainsAny(rest, "<>") && !strings.Contains(s, "<br/>") {
			t.Errorf("line %d: text %q has raw markup", i+1, s)
		}
	}
	use := func(i int, ids ...string) {
		for _, id := range ids {
			if id != "" && !declared[id] {
				t.Errorf("line %d: participant %s used before it is declared", i+1, id)
			}
		}
	}
	for i, line := range lines[1:] {
		i++
		if created != "" && !strings.Contains(line, "->>"+created+":") {
			t.Errorf("line %d: created participant %s is not the recipient of the next message", i+1, created)
		}
		switch {
		case mermaidTitle.MatchString(line):
			if i != 1 {
				t.Errorf("line %d: title not right after the header", i+1)
			}
			checkText(i, mermaidTitle.FindStringSubmatch(line)[1])
		case mermaidParticipant.MatchString(line):
			m := mermaidParticipant.FindStringSubmatch(line)
			if declared[m[1]] {
				t.Errorf("line %d: participant %s declared twice", i+1, m[1])
			}
			declared[m[1]] = true
			if m[2] != "" {
				checkText(i, m[2])
			}
			created = ""
			if strings.HasPrefix(line, "    create ") {
				created = m[1]
			}
			continue
		case mermaidMessage.MatchString(line):
			m := mermaidMessage.FindStringSubmatch(line)
			use(i, m[1], m[3])
			checkText(i, m[4])
		case mermaidNote.MatchString(line):
			m := mermaidNote.FindStringSubmatch(line)
			use(i, m[1], m[2])
			checkText(i, m[3])
		default:
			t.Errorf("line %d: not a line SequenceDiagram writes: %q", i+1, line)
		}
		created = ""
	}
	for id := range declared {
		for _, kw := range []string{"end", "note", "over", "opt", "alt", "par", "and", "loop", "box", "rect", "title", "actor", "participant", "create", "destroy"} {
			if strings.HasPrefix(strings.ToLower(id), kw) {
				t.Errorf("participant id %s starts with the Mermaid keyword %q", id, kw)
			}
		}
	}
}

// TestLockNamesAsApplicationsWriteThem: a lock name may hold Cluster hash
// tags, spaces, any script and what exports must escape (issue 17). Such a
// lesson runs the same on the embedded and a real Redis (the run's own hash
// tag comes first in every key), exports to a lesson file that reads back
// to it, and draws a sequence diagram that keeps to Mermaid's grammar.
func TestLockNamesAsApplicationsWriteThem(t *testing.T) {
	src := `id: lock-names
variant: hash-refresh
lease: 10s
lock: "{order}:42 订单 #1; <b>"
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {actor: B, do: acquire, lock: "{user} {x}", expect: ACQUIRED}
  - {actor: B, do: acquire, expect: BUSY}
  - {actor: A, do: release, expect: RELEASED}
`
	l, err := sim.Load("lock-names.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	emb := runOn(t, open(t, ""), l)
	real := runOn(t, open(t, redistest.Start(t).URL), l)
	if !reflect.DeepEqual(emb, real) {
		t.Fatalf("the backends differ:\n%s", firstDiff(sim.FormatFrames(emb, sim.English), sim.FormatFrames(real, sim.English)))
	}
	if got := emb[1].Locks[0].Name; got != l.Lock {
		t.Fatalf("frame shows lock %q, want %q", got, l.Lock)
	}
	out, err := sim.MarshalLesson(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := sim.Load("lock-names.yaml", out)
	if err != nil || !reflect.DeepEqual(lessontest.WithoutPositions(back), lessontest.WithoutPositions(l)) {
		t.Fatalf("the exported lesson reads back differently (%v):\n%s", err, out)
	}
	text := sim.SequenceDiagram(l, emb, sim.English, catalogtest.New(t))
	checkMermaid(t, text)
	if !strings.Contains(text, "{order}:42 订单 #35;1#59; #60;b#62;") {
		t.Errorf("the lock name is not in the diagram, escaped:\n%s", text)
	}
}

// hanSpaceHan is a space between two Chinese characters, which Chinese
// text does not write ("25 秒 内" for "25 秒内").
var hanSpaceHan = regexp.MustCompile(`\p{Han} +\p{Han}`)

// TestSequenceDiagramChineseSpacing: in both Chinese locales, no message
// or note of any course lesson's diagram has a space between two Chinese
// characters (a template's placeholder followed by " 内" would give one).
func TestSequenceDiagramChineseSpacing(t *testing.T) {
	cat := catalogtest.New(t)
	embedded := open(t, "")
	for _, l := range lessontest.Course(t) {
		frames := runOn(t, embedded, l)
		for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese} {
			for i, line := range strings.Split(sim.SequenceDiagram(l, frames, loc, cat), "\n") {
				var text string
				if m := mermaidMessage.FindStringSubmatch(line); m != nil {
					text = m[4]
				} else if m := mermaidNote.FindStringSubmatch(line); m != nil {
					text = m[3]
				}
				if bad := hanSpaceHan.FindString(text); bad != "" {
					t.Errorf("%s %s line %d: %q in %q", l.ID, loc, i+1, bad, text)
				}
			}
		}
	}
}
