package sim_test

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	"lockstep/sim"
)

// header starts most test lessons: two actors, A and B, and the steps key, so
// that the first step line a case adds is line 7.
const header = `variant: token-count
lease: 30s
actors:
  - id: A
  - id: B
steps:
`

// withSteps returns header followed by lines, the first of which is line 7.
func withSteps(lines ...string) string {
	return header + strings.Join(lines, "\n") + "\n"
}

// doc joins lines into a lesson file; lines[0] is line 1.
func doc(lines ...string) string {
	return strings.Join(lines, "\n") + "\n"
}

// mustLoad loads src as the named file; an error fails the test.
func mustLoad(t *testing.T, file, src string) *sim.Lesson {
	t.Helper()
	l, err := sim.Load(file, []byte(src))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

// loadErrors loads src as the named file, requires it to fail, and returns
// the error's lines.
func loadErrors(t *testing.T, file, src string) []string {
	t.Helper()
	l, err := sim.Load(file, []byte(src))
	if err == nil {
		t.Fatalf("Load succeeded, want an error; got lesson %+v", l)
	}
	if l != nil {
		t.Errorf("Load returned a lesson together with the error")
	}
	if !errors.Is(err, sim.ErrInvalidLesson) {
		t.Errorf("error does not wrap ErrInvalidLesson: %v", err)
	}
	return strings.Split(err.Error(), "\n")
}

// sameLines fails the test unless got, the problems read, is want.
func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(want, "\n       "))
	}
}

// loadErrorCase is a lesson file src, read as t.yaml, and the problems
// Load must report for it (want, FILE:LINE:COL: message lines).
type loadErrorCase struct {
	name string
	src  string
	want []string
}

// checkLoadErrors runs each case as a subtest: loading its src reports
// exactly its want (sameLines).
func checkLoadErrors(t *testing.T, cases []loadErrorCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, loadErrors(t, "t.yaml", tt.src), tt.want)
		})
	}
}

// join lists names as the loader's messages do. The lists of actions,
// variants and outcomes come from the package, which may add to them.
func join[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

var (
	wantActions    = join(sim.Actions)
	wantVariants   = join(sim.Variants())
	wantInvariants = join(sim.Invariants)
)

const wantActorID = "want a letter, then letters, digits, '_' or '-'"

// badOutcome is the message for expect: got on a step doing a.
func badOutcome(got string, a sim.Action) string {
	return fmt.Sprintf("unknown outcome %q for %s (want one of %s)", got, a, join(sim.OutcomesFor(a)))
}

// TestLoadErrors has one case per kind of problem; each case pins the full
// message, with the line and column of the offending token (the value, or the
// key for a key that does not belong).
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		file string // default t.yaml
		want []string
	}{
		// The kinds the spec's "Errors" section lists.
		{
			name: "unknown action",
			src:  withSteps("  - actor: A", "    do: jump"),
			want: []string{`t.yaml:8:9: unknown action "jump" (want one of ` + wantActions + `)`},
		},
		{
			name: "unknown actor",
			src:  withSteps("  - actor: C", "    do: acquire"),
			want: []string{`t.yaml:7:12: step 1: unknown actor "C" (declare it under actors, or create it with fork)`},
		},
		{
			name: "unknown variant",
			src:  doc("variant: redlock", "lease: 30s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:1:10: unknown variant "redlock" (want one of ` + wantVariants + `)`},
		},
		{
			name: "empty variant",
			src:  doc(`variant: ""`, "lease: 30s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:1:10: unknown variant "" (want one of ` + wantVariants + `)`},
		},
		{
			name: "unknown outcome",
			src:  withSteps("  - actor: A", "    do: acquire", "    expect: GRANTED"),
			want: []string{`t.yaml:9:13: ` + badOutcome("GRANTED", sim.ActAcquire)},
		},
		{
			name: "outcome of another action: BUSY on a release",
			src:  withSteps("  - actor: A", "    do: release", "    expect: BUSY"),
			want: []string{`t.yaml:9:13: ` + badOutcome("BUSY", sim.ActRelease)},
		},
		{
			name: "outcome of another action: ACQUIRED on a pause",
			src:  withSteps("  - actor: A", "    do: pause", "    expect: ACQUIRED"),
			want: []string{`t.yaml:9:13: unknown outcome "ACQUIRED" for pause (want one of OK)`},
		},
		{
			name: "outcome in lower case",
			src:  withSteps("  - actor: A", "    do: write", "    value: x", "    expect: accepted"),
			want: []string{`t.yaml:10:13: unknown outcome "accepted" for write (want one of ACCEPTED, REJECTED, PENDING)`},
		},
		{
			name: "unknown locale in a flow mapping",
			src:  doc("variant: token-count", "lease: 30s", "title: {en: Hi, fr: Salut}", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:17: title: unknown locale "fr" (want en, zh-CN or zh-TW)`},
		},
		{
			name: "unknown locale in a block mapping",
			src:  withSteps("  - do: advance", "    by: 1s", "    say:", "      en: one second", "      zh: yi miao"),
			want: []string{`t.yaml:11:7: say: unknown locale "zh" (want en, zh-CN or zh-TW)`},
		},
		{
			name: "zero duration",
			src:  withSteps("  - do: advance", "    by: 0s"),
			want: []string{`t.yaml:8:9: by: duration must be greater than zero, got 0s`},
		},
		{
			name: "zero lease without a unit",
			src:  doc("variant: token-count", "lease: 0", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:2:8: lease: duration must be greater than zero, got 0`},
		},
		{
			name: "negative duration",
			src:  withSteps("  - do: advance", "    by: -5s"),
			want: []string{`t.yaml:8:9: by: duration must be greater than zero, got -5s`},
		},
		{
			name: "negative lease on an acquire",
			src:  withSteps("  - actor: A", "    do: acquire", "    lease: -1s"),
			want: []string{`t.yaml:9:12: lease: duration must be greater than zero, got -1s`},
		},
		{
			name: "step for a paused actor",
			src:  withSteps("  - actor: A", "    do: pause", "  - actor: A", "    do: acquire"),
			want: []string{`t.yaml:9:12: step 2: actor "A" is paused; only resume may come next for it`},
		},
		{
			name: "step for a crashed actor",
			src:  withSteps("  - actor: A", "    do: crash", "  - actor: A", "    do: release"),
			want: []string{`t.yaml:9:12: step 2: actor "A" has crashed and can take no further step`},
		},
		{
			name: "resume of a crashed actor",
			src:  withSteps("  - actor: B", "    do: crash", "  - actor: B", "    do: resume"),
			want: []string{`t.yaml:9:12: step 2: actor "B" has crashed and can take no further step`},
		},
		{
			name: "duplicate actor ids",
			src:  doc("variant: token-count", "lease: 30s", "actors:", "  - id: A", "  - id: A", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:5:9: duplicate actor id "A"`},
		},
		{
			name: "fork of an existing actor",
			src:  withSteps("  - actor: A", "    do: fork", "    child: B", "    context: lost", "  - actor: A", "    do: fork", "    child: B", "    context: lost"),
			want: []string{`t.yaml:13:12: step 2: fork child "B" already exists`},
		},
		{
			name: "missing variant",
			src:  doc("# no variant", "lease: 30s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:2:1: missing required field "variant"`},
		},
		{
			name: "missing lease",
			src:  doc("variant: token-count", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:1:1: missing required field "lease"`},
		},
		{
			name: "missing steps",
			src:  doc("variant: token-count", "lease: 30s"),
			want: []string{`t.yaml:1:1: missing required field "steps"`},
		},
		{
			name: "missing do",
			src:  withSteps("  - actor: A", "    expect: ACQUIRED"),
			want: []string{`t.yaml:7:5: step: missing required field "do"`},
		},
		{
			name: "missing value of a write",
			src:  withSteps("  - actor: A", "    do: write"),
			want: []string{`t.yaml:7:5: write: missing required field "value"`},
		},
		{
			name: "missing child of a fork",
			src:  withSteps("  - actor: A", "    do: fork", "    context: inherit"),
			want: []string{`t.yaml:7:5: fork: missing required field "child"`},
		},
		{
			name: "missing context of a fork",
			src:  withSteps("  - actor: A", "    do: fork", "    child: A1"),
			want: []string{`t.yaml:7:5: fork: missing required field "context"`},
		},
		{
			name: "missing by of an advance",
			src:  withSteps("  - do: advance", "    say: time passes"),
			want: []string{`t.yaml:7:5: advance: missing required field "by"`},
		},
		{
			name: "missing actor of an acquire",
			src:  withSteps("  - do: acquire", "    expect: ACQUIRED"),
			want: []string{`t.yaml:7:5: acquire: missing required field "actor"`},
		},
		{
			name: "missing actor of a flow-style step",
			src:  withSteps("  - {do: release}"),
			want: []string{`t.yaml:7:5: release: missing required field "actor"`},
		},
		{
			name: "empty step", // used to panic: index out of range
			src:  withSteps("  - {}"),
			want: []string{`t.yaml:7:5: step: missing required field "do"`},
		},
		{
			name: "empty list item",
			src:  withSteps("  - do: advance", "    by: 1s", "  -"),
			want: []string{`t.yaml:9:3: step: want a mapping (key: value lines), got nothing`},
		},
		{
			name: "missing id of an actor",
			src:  doc("variant: token-count", "lease: 30s", "actors:", "  - name: Bob", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:4:5: actor: missing required field "id"`},
		},
		{
			name: "empty value",
			src:  withSteps("  - do: advance", "    by:"),
			want: []string{`t.yaml:8:5: by: want a duration such as 30s or 1500ms, got nothing`},
		},
		{
			name: "empty value of the last key",
			src:  doc("variant: token-count", "lease:"),
			want: []string{
				`t.yaml:1:1: missing required field "steps"`,
				`t.yaml:2:1: lease: want a duration such as 30s or 1500ms, got nothing`,
			},
		},

		// YAML syntax.
		{
			name: "unclosed flow sequence",
			src:  withSteps("  - do: [advance"),
			want: []string{`t.yaml:7:9: YAML syntax: sequence end token ']' not found`},
		},
		{
			name: "unclosed quote",
			src:  withSteps("  - actor: A", `    do: "acquire`),
			want: []string{`t.yaml:8:9: YAML syntax: could not find end character of double-quoted text`},
		},
		{
			name: "not a mapping",
			src:  "just some words\n",
			want: []string{`t.yaml:1:1: lesson: want a mapping (key: value lines), got "just some words"`},
		},
		{
			name: "two documents",
			src:  doc("variant: token-count", "---", "lease: 30s"),
			want: []string{`t.yaml:1:1: want exactly one YAML document holding a mapping`},
		},

		// Keys that do not belong.
		{
			name: "misspelt lesson field",
			src:  doc("variant: token-count", "lease: 30s", "leese: 10s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:1: unknown field "leese" in lesson`},
		},
		{
			name: "misspelt field in a step",
			src:  withSteps("  - actor: A", "    do: acquire", "    acquier: true"),
			want: []string{`t.yaml:9:5: unknown field "acquier" in step`},
		},
		{
			name: "misspelt field in an actor",
			src:  doc("variant: token-count", "lease: 30s", "actors:", "  - id: A", "    nmae: Alice", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:5:5: unknown field "nmae" in actor`},
		},
		{
			name: "by on an acquire",
			src:  withSteps("  - actor: A", "    do: acquire", "    by: 5s"),
			want: []string{`t.yaml:9:5: field "by" does not apply to acquire`},
		},
		{
			name: "why without because",
			src:  withSteps("  - actor: A", "    do: acquire", "    why: Why?"),
			want: []string{`t.yaml:7:5: why: a why question needs its reasons (because: a list, the right one first)`},
		},
		{
			name: "because without why",
			src:  withSteps("  - actor: A", "    do: acquire", "    because: [yes, no]"),
			want: []string{`t.yaml:7:5: because: the reasons need their question (why)`},
		},
		{
			name: "one reason only",
			src:  withSteps("  - actor: A", "    do: acquire", "    why: Why?", "    because: [yes]"),
			want: []string{`t.yaml:10:14: because: want 2 to 4 reasons, got 1`},
		},
		{
			name: "why on an advance",
			src:  withSteps("  - do: advance", "    by: 1s", "    why: Why?", "    because: [yes, no]"),
			want: []string{`t.yaml:9:5: field "why" does not apply to advance`, `t.yaml:10:5: field "because" does not apply to advance`},
		},
		{
			name: "actor on an advance",
			src:  withSteps("  - do: advance", "    by: 1s", "    actor: A"),
			want: []string{`t.yaml:9:5: field "actor" does not apply to advance`},
		},
		{
			name: "duplicate key",
			src:  withSteps("  - actor: A", "    do: acquire", "    expect: ACQUIRED", "    expect: BUSY"),
			want: []string{`t.yaml:10:5: YAML syntax: mapping key "expect" already defined at [9:5]`},
		},

		// Other rules of the format.
		{
			name: "unknown invariant",
			src:  withSteps("  - actor: A", "    do: acquire", "    expect_violation: double-holders"),
			want: []string{`t.yaml:9:23: unknown invariant "double-holders" (want one of ` + wantInvariants + `)`},
		},
		{
			name: "unknown invariant in a list",
			src:  withSteps("  - actor: A", "    do: acquire", "    expect_violation: [stale-write, bogus]"),
			want: []string{`t.yaml:9:37: unknown invariant "bogus" (want one of ` + wantInvariants + `)`},
		},
		{
			name: "fencing not a boolean",
			src:  doc("variant: token-count", "lease: 30s", "fencing: yes please", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:10: fencing: want true or false, got "yes please"`},
		},
		{
			name: "actor used before the fork that creates it",
			src: withSteps("  - actor: A1", "    do: acquire",
				"  - actor: A", "    do: fork", "    child: A1", "    context: inherit"),
			want: []string{`t.yaml:7:12: step 1: actor "A1" acts before it exists: it is a fork child, created by the fork at step 2`},
		},
		{
			name: "declared fork child used before its fork",
			src: doc("variant: token-count", "lease: 30s", "actors:", "  - id: A", "  - id: A1", "steps:",
				"  - actor: A1", "    do: acquire",
				"  - actor: A", "    do: fork", "    child: A1", "    context: inherit"),
			want: []string{`t.yaml:7:12: step 1: actor "A1" acts before it exists: it is a fork child, created by the fork at step 2`},
		},
		{
			name: "bad lesson id",
			src:  doc("id: Stale_Owner", "variant: token-count", "lease: 30s", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:1:5: id "Stale_Owner": want lowercase letters, digits and '-'`},
		},
		{
			name: "no id, and a file name that is no id",
			src:  doc("variant: token-count", "lease: 30s", "steps: [{do: advance, by: 1s}]"),
			file: "lessons/Stale Owner.yaml",
			want: []string{`lessons/Stale Owner.yaml:1:1: id "Stale Owner" (the file name): want lowercase letters, digits and '-'; add an id field`},
		},
		{
			name: "bad actor id",
			src:  doc("variant: token-count", "lease: 30s", "actors:", "  - id: 1st", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:4:9: actor id "1st": ` + wantActorID},
		},
		{
			name: "bad fork child id",
			src:  withSteps("  - actor: A", "    do: fork", "    child: a.b", "    context: lost"),
			want: []string{`t.yaml:9:12: child id "a.b": ` + wantActorID},
		},
		{
			name: "bad fork context",
			src:  withSteps("  - actor: A", "    do: fork", "    child: A1", "    context: copy"),
			want: []string{`t.yaml:10:14: context: want inherit or lost, got "copy"`},
		},
		{
			name: "lock name with a control character",
			src:  doc("variant: token-count", "lease: 30s", `lock: "order\t42"`, "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:7: lock: a lock name is 1 to 200 bytes of text without control characters`},
		},
		{
			name: "lock name too long",
			src:  withSteps("  - actor: A", "    do: acquire", "    lock: "+strings.Repeat("é", 101)),
			want: []string{`t.yaml:9:11: lock: a lock name is 1 to 200 bytes of text without control characters`},
		},
		{
			name: "fork child that already exists",
			src:  withSteps("  - {actor: A, do: fork, child: A1, context: inherit}", "  - {actor: A, do: fork, child: A1, context: lost}"),
			want: []string{`t.yaml:8:33: step 2: fork child "A1" already exists`},
		},
		{
			name: "empty lock name",
			src:  doc("variant: token-count", "lease: 30s", `lock: ""`, "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:7: lock: lock name must not be empty`},
		},
		{
			name: "empty lock name on a step",
			src:  withSteps("  - actor: A", "    do: acquire", `    lock: ""`),
			want: []string{`t.yaml:9:11: lock: lock name must not be empty`},
		},
		{
			name: "duration without a unit",
			src:  doc("variant: token-count", "lease: 30", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:2:8: lease: want a duration such as 30s or 1500ms (Go syntax, with a unit), got "30"`},
		},
		{
			name: "lease below a millisecond",
			src:  doc("variant: token-count", "lease: 1500us", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:2:8: lease: Redis leases count whole milliseconds, got 1500us`},
		},
		{
			name: "resume of a running actor",
			src:  withSteps("  - actor: A", "    do: resume"),
			want: []string{`t.yaml:7:12: step 1: actor "A" is not paused, so it cannot resume`},
		},
		{
			name: "list where one value belongs",
			src:  withSteps("  - actor: [A, B]", "    do: acquire"),
			want: []string{`t.yaml:7:12: actor: want a single value, got a list`},
		},
		{
			name: "alias",
			src:  withSteps("  - actor: &who A", "    do: acquire", "  - actor: *who", "    do: release"),
			want: []string{`t.yaml:9:12: actor: want a single value, got a YAML alias (not supported in lessons; write the value out)`},
		},
		{
			name: "seed not a number",
			src:  doc("variant: token-count", "lease: 30s", "seed: -1", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:3:7: seed: want a whole number from 0 to 2^64-1, got "-1"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "t.yaml"
			}
			sameLines(t, loadErrors(t, file, tt.src), tt.want)
		})
	}
}

// TestLoadReportsEveryProblem checks that problems the decoder finds and
// problems the step replay finds come back together, in file order.
func TestLoadReportsEveryProblem(t *testing.T) {
	src := doc(
		"variant: token-count", // 1
		"lease: 30s",
		"leese: 10s", // 3: unknown field
		"actors:",
		"  - id: A",
		"  - id: A", // 6: duplicate id
		"steps:",
		"  - actor: C", // 8: unknown actor
		"    do: acquire",
		"  - actor: A",
		"    do: release",
		"    expect: BUSY", // 12: wrong outcome
		"  - do: advance",
		"    by: 0s", // 14: zero duration
		"  - actor: A",
		"    do: pause",
		"  - actor: A", // 17: paused
		"    do: write",
		"    value: x",
		"    by: 1s", // 20: by on a write
	)
	l, err := sim.Load("multi.yaml", []byte(src))
	if l != nil {
		t.Errorf("Load returned a lesson for an invalid file")
	}
	if !errors.Is(err, sim.ErrInvalidLesson) {
		t.Errorf("errors.Is(err, ErrInvalidLesson) = false for %v", err)
	}
	var errs sim.LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("errors.As(err, *LoadErrors) = false for %T", err)
	}
	var got []string
	for _, e := range errs {
		if e.File != "multi.yaml" {
			t.Errorf("%v: File = %q, want multi.yaml", e, e.File)
		}
		got = append(got, e.Error())
	}
	sameLines(t, got, []string{
		`multi.yaml:3:1: unknown field "leese" in lesson`,
		`multi.yaml:6:9: duplicate actor id "A"`,
		`multi.yaml:8:12: step 1: unknown actor "C" (declare it under actors, or create it with fork)`,
		`multi.yaml:12:13: ` + badOutcome("BUSY", sim.ActRelease),
		`multi.yaml:14:9: by: duration must be greater than zero, got 0s`,
		`multi.yaml:17:12: step 5: actor "A" is paused; only resume may come next for it`,
		`multi.yaml:20:5: field "by" does not apply to write`,
	})
	if want := strings.Join(got, "\n"); err.Error() != want {
		t.Errorf("Error() = %q, want the entries one per line", err.Error())
	}
}

// TestLoadNoCascade checks that one mistake is reported once: a step the
// loader cannot make sense of does not make later steps of its actor fail,
// and a fork that cannot run still creates its child.
func TestLoadNoCascade(t *testing.T) {
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "misspelt pause",
			src: withSteps("  - actor: A", "    do: paus", // 8
				"  - actor: A", "    do: resume"),
			want: []string{`t.yaml:8:9: unknown action "paus" (want one of ` + wantActions + `)`},
		},
		{
			name: "fork by an unknown actor",
			src: withSteps("  - actor: Z", "    do: fork", "    child: Z1", "    context: lost",
				"  - actor: Z1", "    do: acquire"),
			want: []string{`t.yaml:7:12: step 1: unknown actor "Z" (declare it under actors, or create it with fork)`},
		},
		{
			name: "fencing with an unknown variant",
			src:  doc("variant: redlock", "lease: 30s", "fencing: true", "steps: [{do: advance, by: 1s}]"),
			want: []string{`t.yaml:1:10: unknown variant "redlock" (want one of ` + wantVariants + `)`},
		},
		{
			name: "list as an outcome",
			src:  withSteps("  - actor: A", "    do: acquire", "    expect: [ACQUIRED]"),
			want: []string{`t.yaml:9:13: expect: want a single value, got a list`},
		},
	})
}

// TestLoadSpecExample loads the example of the lesson format and checks every
// field it sets.
func TestLoadSpecExample(t *testing.T) {
	l, err := sim.Load("lessons/whatever.yaml", []byte(specExample))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := sim.Validate(l); err != nil {
		t.Errorf("Validate of a loaded lesson: %v", err)
	}
	check := func(field string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", field, got, want)
		}
	}
	check("ID", l.ID, "stale-owner")
	check("File", l.File, "lessons/whatever.yaml")
	check("Title", l.Title, sim.Text{
		sim.English:            "Lease expires under a paused owner",
		sim.SimplifiedChinese:  "租约过期后旧持有者恢复",
		sim.TraditionalChinese: "租約過期後舊持有者恢復",
	})
	check("Summary", l.Summary, sim.Text{
		sim.English:            "A pauses past its lease.",
		sim.SimplifiedChinese:  "A 暂停超过了租约。",
		sim.TraditionalChinese: "A 暫停超過了租約。",
	})
	check("Takeaway", l.Takeaway, sim.Text(nil))
	check("Source", l.Source, "001_5402deabadbfda6d.txt")
	check("Variant", l.Variant, "token-count")
	check("Lease", l.Lease, 30*time.Second)
	check("Fencing", l.Fencing, true)
	check("Lock", l.Lock, "order:42")
	check("Actors", l.Actors, []sim.ActorSpec{
		{
			ID:       "A",
			Name:     sim.Text{sim.English: "Order request A", sim.SimplifiedChinese: "订单请求 A", sim.TraditionalChinese: "訂單請求 A"},
			Instance: "svc-1",
			Pos:      sim.Pos{Line: 10, Col: 9},
		},
		{ID: "B", Pos: sim.Pos{Line: 13, Col: 9}},
	})

	const lock = "order:42" // the lesson's lock, which no step overrides
	at := func(line int) sim.Pos { return sim.Pos{Line: line, Col: 5} }
	actorAt := func(line int) sim.Pos { return sim.Pos{Line: line, Col: 12} }
	want := []sim.Step{
		{Actor: "A", Do: sim.ActAcquire, Lock: lock, Expect: sim.Acquired, Pos: at(15), ActorPos: actorAt(15),
			Say: sim.Text{
				sim.English:            "A takes the lock: a fresh grant token, count 1, lease 30 s.",
				sim.SimplifiedChinese:  "A 拿到锁：新的授权令牌，计数 1，租约 30 秒。",
				sim.TraditionalChinese: "A 拿到鎖：新的授權令牌，計數 1，租約 30 秒。",
			}},
		{Actor: "A", Do: sim.ActPause, Lock: lock, Pos: at(19), ActorPos: actorAt(19)},
		{Do: sim.ActAdvance, By: 31 * time.Second, Lock: lock, Pos: at(21)},
		{Actor: "B", Do: sim.ActAcquire, Lock: lock, Expect: sim.Acquired, ExpectViolations: []string{sim.InvOverlappingHolders}, Pos: at(23), ActorPos: actorAt(23)},
		{Actor: "B", Do: sim.ActWrite, Lock: lock, Value: "shipped", Expect: sim.Accepted, Pos: at(27), ActorPos: actorAt(27)},
		{Actor: "A", Do: sim.ActResume, Lock: lock, Pos: at(31), ActorPos: actorAt(31)},
		{Actor: "A", Do: sim.ActWrite, Lock: lock, Value: "paid", Expect: sim.Rejected, Pos: at(33), ActorPos: actorAt(33)},
		{Actor: "A", Do: sim.ActRelease, Lock: lock, Expect: sim.NotOwner, Pos: at(37), ActorPos: actorAt(37)},
	}
	if len(l.Steps) != len(want) {
		t.Fatalf("got %d steps, want %d", len(l.Steps), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(l.Steps[i], want[i]) {
			t.Errorf("step %d:\n  got  %+v\n  want %+v", i+1, l.Steps[i], want[i])
		}
	}

	// The seed is derived from the id, so every load draws the same tokens.
	again, err := sim.Load("elsewhere.yaml", []byte(specExample))
	if err != nil {
		t.Fatal(err)
	}
	if l.Seed == 0 || again.Seed != l.Seed {
		t.Errorf("Seed = %d, then %d; want the same non-zero seed", l.Seed, again.Seed)
	}
}

// TestLoadDefaultsAndOverrides covers what the spec example does not: the
// id from the file name, the default lock, per-step lock and lease, plain
// texts, an expect_violation list and an explicit seed.
func TestLoadDefaultsAndOverrides(t *testing.T) {
	src := withSteps(
		"  - actor: A",
		"    do: acquire",
		"    lock: stock:7",
		"    lease: 1500ms",
		"    say: plain words",
		"  - actor: A",
		"    do: fork",
		"    child: A1",
		"    context: inherit",
		"  - actor: A1",
		"    do: acquire",
		"    expect_violation: [stale-write, overlapping-holders]",
	)
	l, err := sim.Load("lessons/my-lesson.yaml", []byte("seed: 7\n"+src))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if l.ID != "my-lesson" {
		t.Errorf("ID = %q, want the file name my-lesson", l.ID)
	}
	if l.Lock != "lock" {
		t.Errorf("Lock = %q, want the default lock", l.Lock)
	}
	if l.Fencing {
		t.Errorf("Fencing = true, want the default false")
	}
	if l.Seed != 7 {
		t.Errorf("Seed = %d, want 7", l.Seed)
	}
	if len(l.Steps) != 3 {
		t.Fatalf("got %d steps, want 3", len(l.Steps))
	}
	s := l.Steps[0]
	if s.Lock != "stock:7" || s.Lease != 1500*time.Millisecond {
		t.Errorf("step 1: Lock %q, Lease %v; want stock:7, 1.5s", s.Lock, s.Lease)
	}
	if !reflect.DeepEqual(s.Say, sim.Plain("plain words")) || s.Say.In(sim.TraditionalChinese) != "plain words" {
		t.Errorf("step 1: Say = %#v, want a plain text", s.Say)
	}
	if s := l.Steps[1]; s.Child != "A1" || s.Context != "inherit" || s.Lock != "lock" {
		t.Errorf("step 2: Child %q, Context %q, Lock %q; want A1, inherit, lock", s.Child, s.Context, s.Lock)
	}
	if got, want := l.Steps[2].ExpectViolations, []string{sim.InvStaleWrite, sim.InvOverlappingHolders}; !reflect.DeepEqual(got, want) {
		t.Errorf("step 3: ExpectViolations = %q, want %q", got, want)
	}
}

func TestLoadFile(t *testing.T) {
	l, err := sim.LoadFile("testdata/loader/two-actors.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	if l.ID != "two-actors" || l.File != "testdata/loader/two-actors.yaml" || len(l.Steps) != 4 {
		t.Errorf("got ID %q, File %q, %d steps; want two-actors, the path, 4 steps", l.ID, l.File, len(l.Steps))
	}

	_, err = sim.LoadFile("testdata/loader/bad-action.yaml")
	want := `testdata/loader/bad-action.yaml:9:9: unknown action "aquire" (want one of ` + wantActions + `)`
	if err == nil || err.Error() != want {
		t.Errorf("LoadFile(bad-action.yaml) = %v, want %s", err, want)
	}

	_, err = sim.LoadFile("testdata/loader/no-such-file.yaml")
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, sim.ErrInvalidLesson) {
		t.Errorf("LoadFile of a missing file = %v; want fs.ErrNotExist, not ErrInvalidLesson", err)
	}
}

func TestLoadTooLarge(t *testing.T) {
	src := header + "# " + strings.Repeat("x", 1<<20) + "\n"
	sameLines(t, loadErrors(t, "t.yaml", src), []string{
		fmt.Sprintf("t.yaml:1:1: file is %d bytes; lessons may be at most 1048576", len(src)),
	})
}

// TestLoadDeepNesting checks that deep nesting is refused before the YAML
// parser, which takes time quadratic in the depth, sees it: without the
// bound, half a megabyte of '[' would keep Load busy for hours.
func TestLoadDeepNesting(t *testing.T) {
	const tooDeep = "lists and mappings nest more than 32 deep here; a lesson needs a few levels"
	checkLoadErrors(t, []loadErrorCase{
		{
			name: "flow lists",
			src:  "steps: " + strings.Repeat("[", 1<<14), // the 33rd '[' is at column 8+32
			want: []string{"t.yaml:1:40: " + tooDeep},
		},
		{
			name: "flow mappings",
			src:  "steps: " + strings.Repeat("{a: ", 1<<12),
			want: []string{"t.yaml:1:136: " + tooDeep},
		},
		{
			name: "block entries on one line",
			src:  "steps:\n" + strings.Repeat("- ", 1<<13), // the 33rd '-' is at column 1+2*32
			want: []string{"t.yaml:2:65: " + tooDeep},
		},
		{
			name: "32 levels are allowed",
			src:  doc("variant: token-count", "lease: 30s", "steps: "+strings.Repeat("[", 32)+strings.Repeat("]", 32)),
			want: []string{"t.yaml:3:9: step: want a mapping (key: value lines), got a list"},
		},
	})
}

// validLesson is a lesson built in code that Validate accepts.
func validLesson() *sim.Lesson {
	return &sim.Lesson{
		ID:      "hand",
		Variant: "token-count",
		Lease:   30 * time.Second,
		Lock:    "lock",
		Actors:  []sim.ActorSpec{{ID: "A"}, {ID: "B"}},
		Steps: []sim.Step{
			{Actor: "A", Do: sim.ActAcquire, Lock: "lock"},
			{Do: sim.ActAdvance, By: time.Second},
			{Actor: "A", Do: sim.ActRelease, Lock: "lock"},
		},
	}
}

// validateCase is a change to a lesson Validate accepts and the problems
// Validate reports once it is made.
type validateCase struct {
	name   string
	change func(l *sim.Lesson)
	want   []string
}

// checkValidate checks that Validate accepts base() and that, for each
// case, it refuses base() changed so with exactly the problems wanted and
// an error that is sim.ErrInvalidLesson.
func checkValidate(t *testing.T, base func() *sim.Lesson, tests []validateCase) {
	t.Helper()
	if err := sim.Validate(base()); err != nil {
		t.Fatalf("Validate(base) = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := base()
			tt.change(l)
			err := sim.Validate(l)
			if err == nil {
				t.Fatal("Validate = nil, want an error")
			}
			if !errors.Is(err, sim.ErrInvalidLesson) {
				t.Errorf("errors.Is(err, ErrInvalidLesson) = false")
			}
			sameLines(t, strings.Split(err.Error(), "\n"), tt.want)
		})
	}
}

func TestValidate(t *testing.T) {
	checkValidate(t, validLesson, []validateCase{
		{
			name:   "unknown variant",
			change: func(l *sim.Lesson) { l.Variant = "redlock" },
			want:   []string{`variant: unknown variant "redlock" (want one of ` + wantVariants + `)`},
		},
		{
			name:   "no variant",
			change: func(l *sim.Lesson) { l.Variant = "" },
			want:   []string{`variant: missing required field "variant"`},
		},
		{
			name:   "zero lease",
			change: func(l *sim.Lesson) { l.Lease = 0 },
			want:   []string{`lease: duration must be greater than zero, got 0s`},
		},
		{
			name:   "negative lease",
			change: func(l *sim.Lesson) { l.File = "hand.yaml"; l.Lease = -time.Second },
			want:   []string{`hand.yaml: lease: duration must be greater than zero, got -1s`},
		},
		{
			name: "step for a paused actor, at its position",
			change: func(l *sim.Lesson) {
				l.Steps[1] = sim.Step{Actor: "A", Do: sim.ActPause, Lock: "lock"}
				l.Steps[2].Pos = sim.Pos{Line: 9, Col: 5}
				l.Steps[2].ActorPos = sim.Pos{Line: 9, Col: 12}
			},
			want: []string{`<lesson>:9:12: step 3: actor "A" is paused; only resume may come next for it`},
		},
		{
			name:   "step for a paused actor, no position",
			change: func(l *sim.Lesson) { l.Steps[1] = sim.Step{Actor: "A", Do: sim.ActPause, Lock: "lock"} },
			want:   []string{`steps[3].actor: actor "A" is paused; only resume may come next for it`},
		},
		{
			name:   "unknown action",
			change: func(l *sim.Lesson) { l.Steps[0].Do = "jump" },
			want:   []string{`steps[1].do: unknown action "jump" (want one of ` + wantActions + `)`},
		},
		{
			name:   "empty lock",
			change: func(l *sim.Lesson) { l.Steps[2].Lock = "" },
			want:   []string{`steps[3].lock: lock name must not be empty`},
		},
	})
}

// specExample is the example of docs/lesson-format.md with the "..."
// texts filled in.
const specExample = `id: stale-owner                      # optional; default: file name without .yaml; [a-z0-9-]+
title: {en: "Lease expires under a paused owner", zh-CN: "租约过期后旧持有者恢复", zh-TW: "租約過期後舊持有者恢復"}
summary: {en: "A pauses past its lease.", zh-CN: "A 暂停超过了租约。", zh-TW: "A 暫停超過了租約。"}   # optional
source: 001_5402deabadbfda6d.txt     # optional: where the scenario comes from (a seed, a bug report)
variant: token-count                 # required: the lock algorithm, see "Variants"
lease: 30s                           # required: default lease of an acquire (Go duration, > 0)
fencing: true                        # optional, default false: outer acquires get fencing tokens
lock: order:42                       # optional, default "lock": the default lock name
actors:
  - id: A                            # [A-Za-z][A-Za-z0-9_-]*, unique
    name: {en: "Order request A", zh-CN: "订单请求 A", zh-TW: "訂單請求 A"}
    instance: svc-1                  # optional: the process it runs in (matters to instance-owner, redisson)
  - id: B
steps:
  - actor: A
    do: acquire
    expect: ACQUIRED
    say: {en: "A takes the lock: a fresh grant token, count 1, lease 30 s.", zh-CN: "A 拿到锁：新的授权令牌，计数 1，租约 30 秒。", zh-TW: "A 拿到鎖：新的授權令牌，計數 1，租約 30 秒。"}
  - actor: A
    do: pause                        # a stop-the-world pause: A runs nothing until resume
  - do: advance
    by: 31s
  - actor: B
    do: acquire
    expect: ACQUIRED
    expect_violation: overlapping-holders
  - actor: B
    do: write
    value: "shipped"
    expect: ACCEPTED
  - actor: A
    do: resume
  - actor: A
    do: write
    value: "paid"
    expect: REJECTED
  - actor: A
    do: release
    expect: NOT_OWNER
`
