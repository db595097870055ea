package explore

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpus of FuzzDecode under testdata/fuzz/FuzzDecode")

// tricky are strings that break naive URL, JSON or text handling.
var tricky = []string{
	"", " ", `"quoted"`, `it's`, `back\slash`, "100%", "%41%zz", "a&b=c", "#frag", "?q=1&r=2", "a=b",
	"😀🔒", "锁被重入", "鎖被重入", "<b>&amp;</b>", "tab\tnew\nline", "\u2028\u2029", "+/=", "1.eJw",
}

func trickyString(t *rapid.T, label string) string {
	return rapid.OneOf(
		rapid.SampledFrom(tricky),
		rapid.StringN(0, 24, -1),
		rapid.Custom(func(t *rapid.T) string {
			return rapid.SampledFrom(tricky).Draw(t, "a") + rapid.SampledFrom(tricky).Draw(t, "b")
		}),
	).Draw(t, label)
}

// genText draws nil, a plain string, or translations in 1-3 locales.
func genText(t *rapid.T, label string) sim.Text {
	switch rapid.IntRange(0, 2).Draw(t, label+"_kind") {
	case 0:
		return nil
	case 1:
		return sim.Plain(trickyString(t, label))
	}
	locs := rapid.SliceOfNDistinct(rapid.SampledFrom(sim.Locales), 1, 3, func(l sim.Locale) sim.Locale { return l }).Draw(t, label+"_locales")
	out := sim.Text{}
	for _, l := range locs {
		out[l] = trickyString(t, label+"_"+string(l))
	}
	return out
}

func maybe(t *rapid.T, label string) bool { return rapid.IntRange(0, 2).Draw(t, label) == 0 }

// sometimes draws an optional field: gen's value under label when maybe
// draws yes under "has_"+label, else the zero value (the field left out).
func sometimes[T any](t *rapid.T, label string, gen func(*rapid.T, string) T) T {
	if maybe(t, "has_"+label) {
		return gen(t, label)
	}
	var zero T
	return zero
}

// genLesson draws a lesson that sim.Validate accepts, with every field a
// Runner reads, and an origin for it. nSteps < 0 draws 1-20 steps.
func genLesson(t *rapid.T, nSteps int) (*sim.Lesson, Origin) {
	locks := []string{"lock", "order:42", "a.b_c-d", "L9"}
	l := &sim.Lesson{
		File:    "lessons/generated.yaml",
		ID:      rapid.SampledFrom([]string{"", "sandbox", "stale-owner", "x-1"}).Draw(t, "id"),
		Title:   genText(t, "title"),
		Variant: rapid.SampledFrom(sim.Variants()).Draw(t, "variant"),
		Lease:   time.Duration(rapid.Int64Range(1, 600_000).Draw(t, "lease_ms")) * time.Millisecond,
		Fencing: rapid.Bool().Draw(t, "fencing"),
		Lock:    rapid.SampledFrom(locks).Draw(t, "lock"),
		Seed:    rapid.OneOf(rapid.Just(uint64(0)), rapid.Uint64(), rapid.Just(uint64(1<<64-1))).Draw(t, "seed"),
		Replica: rapid.Bool().Draw(t, "replica"),
	}
	l.Summary = sometimes(t, "summary", genText)
	l.Takeaway = sometimes(t, "takeaway", genText)
	l.Source = sometimes(t, "source", trickyString)
	l.Group = sometimes(t, "group", rapid.SampledFrom(sim.Groups).Draw)

	const (
		unborn = iota
		running
		paused
		gone // crashed or exited
	)
	status := map[string]int{}
	var order []string
	ids := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z][A-Za-z0-9_-]{0,5}`), 1, 4, func(s string) string { return s }).Draw(t, "actor_ids")
	for i, id := range ids {
		a := sim.ActorSpec{ID: id, Pos: sim.Pos{Line: 10 + i, Col: 7}}
		a.Name = sometimes(t, "name", genText)
		a.Instance = sometimes(t, "instance", trickyString)
		a.RequestID = sometimes(t, "request_id", trickyString)
		l.Actors = append(l.Actors, a)
		status[id] = running
		order = append(order, id)
	}
	// A fork child may be declared under actors to give it a name.
	children := 0
	newChild := func() string {
		for {
			children++
			c := fmt.Sprintf("K%d", children)
			if _, taken := status[c]; !taken {
				return c
			}
		}
	}
	var declared []string // declared children not forked yet
	if maybe(t, "declare_child") {
		c := newChild()
		l.Actors = append(l.Actors, sim.ActorSpec{ID: c, Name: genText(t, "child_name")})
		status[c] = unborn
		declared = append(declared, c)
	}

	kinds := []sim.Action{
		sim.ActAcquire, sim.ActAcquire, sim.ActRelease, sim.ActRelease, sim.ActWrite, sim.ActPause, sim.ActResume,
		sim.ActCrash, sim.ActFork, sim.ActAdvance, sim.ActExit, sim.ActFinishRelease, sim.ActClockJump, sim.ActFailover,
		sim.ActLongScript,
	}
	if nSteps < 0 {
		nSteps = rapid.IntRange(1, 20).Draw(t, "steps")
	}
	failedOver := false
	for i := range nSteps {
		run, pau := lessontest.ByStatus(order, status, running, paused)
		kind := rapid.SampledFrom(kinds).Draw(t, "do")
		switch {
		case kind == sim.ActFailover && (!l.Replica || failedOver):
			kind = sim.ActAdvance
		case kind == sim.ActResume && len(pau) == 0:
			kind = sim.ActAdvance
		case kind != sim.ActResume && kind != sim.ActAdvance && kind != sim.ActClockJump && kind != sim.ActFailover && len(run) == 0:
			kind = sim.ActAdvance
		}
		st := sim.Step{Do: kind, Pos: sim.Pos{Line: 30 + i, Col: 5}, ActorPos: sim.Pos{Line: 30 + i, Col: 14}}
		switch kind {
		case sim.ActAdvance, sim.ActClockJump, sim.ActFailover:
			// Load gives these the lesson's lock; a hand-built lesson may leave it empty.
			st.Lock = rapid.SampledFrom([]string{l.Lock, ""}).Draw(t, "clock_lock")
		case sim.ActResume:
			st.Actor = rapid.SampledFrom(pau).Draw(t, "actor")
			st.Lock = l.Lock
			status[st.Actor] = running
		default:
			st.Actor = rapid.SampledFrom(run).Draw(t, "actor")
			st.Lock = l.Lock
			if maybe(t, "other_lock") {
				st.Lock = rapid.SampledFrom(locks).Draw(t, "step_lock")
			}
		}
		switch kind {
		case sim.ActAdvance, sim.ActClockJump:
			st.By = time.Duration(rapid.Int64Range(1, 3_600_000).Draw(t, "by_ms")) * time.Millisecond
		case sim.ActFailover:
			failedOver = true
		case sim.ActAcquire:
			if maybe(t, "own_lease") {
				st.Lease = time.Duration(rapid.Int64Range(1, 600_000).Draw(t, "step_lease_ms")) * time.Millisecond
			}
		case sim.ActRelease:
			st.ReplyLost = rapid.Bool().Draw(t, "reply_lost")
		case sim.ActWrite:
			st.Value = trickyString(t, "value")
		case sim.ActLongScript:
			st.By = time.Duration(rapid.Int64Range(1, 3_600_000).Draw(t, "script_ms")) * time.Millisecond
		case sim.ActPause:
			status[st.Actor] = paused
		case sim.ActCrash, sim.ActExit:
			status[st.Actor] = gone
		case sim.ActFork:
			var c string
			if len(declared) > 0 && rapid.Bool().Draw(t, "fork_declared") {
				c, declared = declared[0], declared[1:]
			} else {
				c = newChild()
			}
			st.Child = c
			st.Context = rapid.SampledFrom([]string{"inherit", "lost"}).Draw(t, "context")
			status[c] = running
			order = append(order, c)
		}
		if l.Replica && !failedOver && (kind == sim.ActAcquire || kind == sim.ActRelease || kind == sim.ActWrite) {
			st.Unreplicated = maybe(t, "unreplicated")
		}
		if maybe(t, "has_say") {
			st.Say = genText(t, "say")
		}
		if maybe(t, "has_expect") {
			st.Expect = rapid.SampledFrom(sim.OutcomesFor(kind)).Draw(t, "expect")
		}
		if maybe(t, "has_violations") {
			st.ExpectViolations = rapid.SliceOfNDistinct(rapid.SampledFrom(sim.Invariants), 1, 3, func(s string) string { return s }).Draw(t, "violations")
		}
		l.Steps = append(l.Steps, st)
	}
	// Children declared but never forked cannot stay: drop them.
	l.Actors = slices.DeleteFunc(l.Actors, func(a sim.ActorSpec) bool { return slices.Contains(declared, a.ID) })

	var o Origin
	if l.ID != "" && rapid.Bool().Draw(t, "forked") {
		o = Origin{Lesson: l.ID, At: rapid.IntRange(0, len(l.Steps)).Draw(t, "at")}
	}
	if err := sim.Validate(l); err != nil {
		t.Fatalf("generator drew an invalid lesson: %v", err)
	}
	return l, o
}

var urlSafe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		l, o := genLesson(t, -1)
		code, err := Encode(l, o, sim.Options{})
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if !strings.HasPrefix(code, "1.") || !urlSafe.MatchString(code) {
			t.Fatalf("code %q is not \"1.\" and URL-safe characters", code)
		}
		got, gotO, err := Decode(code, sim.Options{})
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if want := lessontest.WithoutPositions(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("lesson changed on the way:\n got %#v\nwant %#v", got, want)
		}
		if gotO != o {
			t.Fatalf("origin: got %+v, want %+v", gotO, o)
		}
		// Encoding is deterministic.
		if again, _ := Encode(got, gotO, sim.Options{}); again != code {
			t.Fatalf("Encode(Decode(code)) = %q, want %q", again, code)
		}
	})
}

func TestFifteenStepCodesAreShortAndURLSafe(t *testing.T) {
	t.Parallel()
	longest := 0
	rapid.Check(t, func(t *rapid.T) {
		l, o := genLesson(t, 15)
		code, err := Encode(l, o, sim.Options{})
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if !urlSafe.MatchString(code) {
			t.Fatalf("code %q has characters a URL would escape", code)
		}
		if len(code) > MaxCodeLen {
			t.Fatalf("code of a 15-step lesson is %d bytes; MaxCodeLen is %d", len(code), MaxCodeLen)
		}
		longest = max(longest, len(code))
	})
	t.Logf("longest code of a 15-step lesson: %d bytes", longest)
}

// TestCourseLessonsRunTheSame shares every course lesson and checks that the
// decoded lesson equals the loaded one (but for File and positions) and that
// it gives the same frames on the embedded backend (but for StepInfo.Line,
// the step's line in the lesson file).
func TestCourseLessonsRunTheSame(t *testing.T) {
	t.Parallel()
	all := lessontest.Course(t)
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	frames := func(l *sim.Lesson) []sim.Frame {
		fs, _ := lessontest.Run(t, be, l)
		return fs
	}
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			o := Origin{Lesson: l.ID, At: len(l.Steps) / 2}
			code, err := Encode(l, o, sim.Options{})
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			t.Logf("%d steps, code %d bytes", len(l.Steps), len(code))
			got, gotO, err := Decode(code, sim.Options{})
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, lessontest.WithoutPositions(l)) || gotO != o {
				t.Fatalf("lesson changed on the way:\n got %#v\nwant %#v", got, lessontest.WithoutPositions(l))
			}
			if a, b := lessontest.FramesWithoutLines(frames(l)), lessontest.FramesWithoutLines(frames(got)); !reflect.DeepEqual(a, b) {
				for i := range a {
					if !reflect.DeepEqual(a[i], b[i]) {
						t.Fatalf("frame %d differs after sharing:\n got %#v\nwant %#v", i, b[i], a[i])
					}
				}
			}
		})
	}
}

// mutate changes code at one place after the "1." prefix: a character is
// replaced by another of the link alphabet, deleted, or inserted.
func mutate(t *rapid.T, code string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := rapid.IntRange(2, len(code)-1).Draw(t, "at")
	c := rapid.SampledFrom([]byte(alphabet)).Draw(t, "char")
	switch rapid.IntRange(0, 2).Draw(t, "op") {
	case 0:
		if code[i] == c {
			c = alphabet[(strings.IndexByte(alphabet, c)+1)%len(alphabet)]
		}
		return code[:i] + string(c) + code[i+1:]
	case 1:
		return code[:i] + code[i+1:]
	}
	return code[:i] + string(c) + code[i:]
}

func TestTamperedCodes(t *testing.T) {
	t.Parallel()
	accepted, refused := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		l, o := genLesson(t, -1)
		code, err := Encode(l, o, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		bad := mutate(t, code)
		got, _, err := Decode(bad, sim.Options{})
		if err != nil {
			refused++
			if !errors.Is(err, ErrBadLink) {
				t.Fatalf("error %v does not wrap ErrBadLink", err)
			}
			if msg := strings.TrimPrefix(err.Error(), ErrBadLink.Error()+": "); msg == "" || msg == err.Error() {
				t.Fatalf("error %q says nothing after ErrBadLink", err)
			}
			return
		}
		accepted++
		if err := sim.Validate(got); err != nil {
			t.Fatalf("a tampered code decoded to an invalid lesson: %v", err)
		}
	})
	t.Logf("tampered codes: %d refused, %d still decoded", refused, accepted)
}

func TestVersionPrefix(t *testing.T) {
	t.Parallel()
	valid := mustEncode(t, smallLesson(), Origin{})
	body := strings.TrimPrefix(valid, "1.")
	for _, c := range []struct{ code, want string }{
		{"2." + body, "the link was made by a newer Lockstep (format 2); this one reads format 1"},
		{"3.abc", "newer Lockstep (format 3)"},
		{"0." + body, `the link is in format "0", which this Lockstep does not read (it reads format 1)`},
		{"01." + body, `format "01"`},
		{"v1." + body, `format "v1"`},
		{"x", `the link has no format version (a share code starts with "1.")`},
		{body, `no format version (a share code starts with "1.")`},
		{"", `the link is empty (a share code starts with "1.")`},
		{"   ", `the link is empty`},
		{"1.", "the link is cut short"},
		{"1", "the link is cut short"},
	} {
		_, _, err := Decode(c.code, sim.Options{})
		if !errors.Is(err, ErrBadLink) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%.20q): got %v, want an ErrBadLink saying %q", c.code, err, c.want)
		}
	}
	// Surrounding white space, as pasted, is fine.
	if _, _, err := Decode(" \n"+valid+"\n", sim.Options{}); err != nil {
		t.Errorf("Decode of a pasted code: %v", err)
	}
}

func TestTooLongRefusedWithoutDecoding(t *testing.T) {
	t.Parallel()
	// A valid code padded past the limit with white space (which Decode
	// would otherwise trim) must be refused on its length alone.
	code := mustEncode(t, smallLesson(), Origin{}) + strings.Repeat(" ", MaxCodeLen)
	_, _, err := Decode(code, sim.Options{})
	if !errors.Is(err, ErrBadLink) || !strings.Contains(err.Error(), fmt.Sprintf("Lockstep links are at most %d", MaxCodeLen)) {
		t.Fatalf("got %v", err)
	}
	if _, _, err := Decode("1."+strings.Repeat("A", MaxCodeLen), sim.Options{}); err == nil || !strings.Contains(err.Error(), "bytes long") {
		t.Fatalf("got %v", err)
	}
}

func TestZipBomb(t *testing.T) {
	t.Parallel()
	code := "1." + base64.RawURLEncoding.EncodeToString(zlibOf(t, bytes.Repeat([]byte(" "), 10<<20)))
	if len(code) > MaxCodeLen {
		t.Fatalf("the bomb's code is %d bytes: the test would not reach the inflate limit", len(code))
	}
	_, _, err := Decode(code, sim.Options{})
	if !errors.Is(err, ErrBadLink) || !strings.Contains(err.Error(), "the link unpacks to more than 512 KiB") {
		t.Fatalf("got %v", err)
	}
}

func TestDamagedCodes(t *testing.T) {
	t.Parallel()
	packed := zlibOf(t, []byte(`{"v":"token-count","l":1000,"k":"lock","a":[{"i":"A"}],"t":[{"a":"A","d":"acquire"}]}`))
	enc := base64.RawURLEncoding.EncodeToString
	if _, _, err := Decode("1."+enc(packed), sim.Options{}); err != nil {
		t.Fatalf("the undamaged code: %v", err)
	}
	sum := slices.Clone(packed)
	sum[len(sum)-1] ^= 0x01
	for _, c := range []struct{ name, code, want string }{
		{"checksum", "1." + enc(sum), "the link is damaged (checksum)"},
		{"cut", "1." + enc(packed[:len(packed)-6]), "the link is cut short"},
		{"cut base64", "1." + enc(packed)[:len(enc(packed))-5], "cut short"},
		{"header", "1." + enc(append([]byte{0x78, 0x00}, packed[2:]...)), "the link is damaged (header)"},
		{"after stream", "1." + enc(append(slices.Clone(packed), 'x', 'y')), "2 bytes of extra data after its end"},
		{"percent-escaped", "1." + enc(packed)[:4] + "%2D" + enc(packed)[4:], `character '%' at position 7`},
		{"padding", "1." + enc(packed) + "==", `character '='`},
		{"emoji", "1.😀", `character '😀'`},
	} {
		_, _, err := Decode(c.code, sim.Options{})
		if !errors.Is(err, ErrBadLink) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ErrBadLink saying %q", c.name, err, c.want)
		}
	}
}

// TestBrokenRules decodes codes whose JSON is well formed but breaks the
// lesson rules: the error gives the validator's message, without the
// meaningless "<lesson>:1:1:" of a hand-built lesson.
func TestBrokenRules(t *testing.T) {
	t.Parallel()
	const ab = `"a":[{"i":"A"},{"i":"B"}]`
	for _, c := range []struct{ name, json, want string }{
		{"unknown variant", `{"v":"nope","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, `unknown variant "nope"`},
		{"no variant", `{"l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, `missing required field "variant"`},
		{"crashed", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"crash"},{"a":"A","d":"acquire"}]}`,
			`steps[2].actor: actor "A" has crashed and can take no further step`},
		{"paused", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"B","d":"pause"},{"a":"A","d":"acquire"},{"b":5,"d":"advance"},{"a":"B","d":"release"}]}`,
			`steps[4].actor: actor "B" is paused; only resume may come next for it`},
		{"negative lease", `{"v":"token-count","l":-5,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, "lease: duration must be greater than zero"},
		{"negative step lease", `{"v":"token-count","l":5,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire","l":-1}]}`, "steps[1].lease: duration must be greater than zero, got -1ms"},
		{"huge lease", `{"v":"token-count","l":9223372036854775807,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, "lease: 9223372036854775807 ms is over the 86400000 ms that explore mode allows"},
		{"huge advance", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"d":"advance","b":9000000000000}]}`, "steps[1].by: 9000000000000 ms is over the 604800000 ms"},
		{"unknown action", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"dance"}]}`, `steps[1].do: unknown action "dance"`},
		{"advance by 0", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"d":"advance"}]}`, `steps[1].by: advance: missing required field "by"`},
		{"no actor", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"d":"acquire"}]}`, `steps[1].actor: acquire: missing required field "actor"`},
		{"unknown actor", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"Z","d":"acquire"}]}`, `steps[1].actor: unknown actor "Z"`},
		{"no lock", `{"v":"token-count","l":1000,` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, "lock: lock name must not be empty"},
		{"bad lock", `{"v":"token-count","l":1000,"k":"a\tb",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, `lock: a lock name is 1 to 200 bytes of text without control characters`},
		{"bad outcome", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire","e":"OK"}]}`, `steps[1].expect: unknown outcome "OK" for acquire`},
		{"bad invariant", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire","ev":["oops"]}]}`, `steps[1].expect_violation[1]: unknown invariant "oops"`},
		{"bad locale", `{"v":"token-count","l":1000,"k":"lock","ti":{"fr":"x"},` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, `title: unknown locale "fr"`},
		{"bad actor id", `{"v":"token-count","l":1000,"k":"lock","a":[{"i":"1x"}],"t":[{"a":"1x","d":"acquire"}]}`, `actor id "1x"`},
		{"duplicate actor", `{"v":"token-count","l":1000,"k":"lock","a":[{"i":"A"},{"i":"A"}],"t":[{"a":"A","d":"acquire"}]}`, `duplicate actor id "A"`},
		{"bad context", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"fork","c":"C","x":"maybe"}]}`, `context: want inherit or lost, got "maybe"`},
		{"failover without replica", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"d":"failover"}]}`, "steps[1].do: failover needs a replica"},
		{"at too far", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}],"o":"x","at":2}`, "the fork point, after step 2, is past the timeline's end (it has 1 step)"},
		{"at without lesson", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}],"at":1}`, "forks no lesson"},
		{"bad origin", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[{"a":"A","d":"acquire"}],"o":"../etc"}`, `forked lesson's id "../etc"`},
		{"long string", `{"v":"token-count","l":1000,"k":"lock","so":"` + strings.Repeat("x", 2001) + `",` + ab + `,"t":[{"a":"A","d":"acquire"}]}`, "source: 2001 bytes long; at most 2000"},
		{"too many actors", `{"v":"token-count","l":1000,"k":"lock","a":[` + strings.Repeat(`{"i":"A"},`, 64) + `{"i":"A"}],"t":[]}`, "the timeline has 65 actors; at most 64"},
		{"too many steps", `{"v":"token-count","l":1000,"k":"lock",` + ab + `,"t":[` + strings.Repeat(`{"d":"advance","b":1},`, 500) + `{"d":"advance","b":1}]}`, "the timeline has 501 steps; at most 500"},
		{"unknown field", `{"v":"token-count","zz":1}`, `unknown field "zz"`},
		{"wrong type", `{"v":"token-count","l":"30s"}`, `field "l" holds string`},
		{"not JSON", `not json`, "broken JSON"},
		{"two values", `{"v":"token-count"} {}`, "extra data after the timeline"},
		{"empty", ``, "it ends too early"},
	} {
		_, _, err := Decode("1."+base64.RawURLEncoding.EncodeToString(zlibOf(t, []byte(c.json))), sim.Options{})
		switch {
		case !errors.Is(err, ErrBadLink) || !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: got %v, want an ErrBadLink saying %q", c.name, err, c.want)
		case strings.Contains(err.Error(), "<lesson>") || strings.Contains(err.Error(), ":1:1:"):
			t.Errorf("%s: %v names a position a shared lesson does not have", c.name, err)
		}
	}
}

func TestEncodeRefusesInvalidLessons(t *testing.T) {
	t.Parallel()
	l := smallLesson()
	l.Steps = append(l.Steps, sim.Step{Actor: "A", Do: sim.ActResume, Lock: "lock"})
	if _, err := Encode(l, Origin{}, sim.Options{}); err == nil || !strings.Contains(err.Error(), `steps[2].actor: actor "A" is not paused, so it cannot resume`) {
		t.Errorf("Encode of an invalid lesson: got %v", err)
	}
	if _, err := Encode(smallLesson(), Origin{Lesson: "nested-reentry", At: 5}, sim.Options{}); err == nil || !strings.Contains(err.Error(), "fork point") {
		t.Errorf("Encode with an origin past the end: got %v", err)
	}
	big := smallLesson()
	big.Source = string([]byte{0xff, 0xfe})
	if _, err := Encode(big, Origin{}, sim.Options{}); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Encode of invalid UTF-8: got %v", err)
	}
	if _, err := Encode(nil, Origin{}, sim.Options{}); err == nil {
		t.Errorf("Encode(nil) succeeded")
	}
}

func smallLesson() *sim.Lesson {
	return &sim.Lesson{
		ID: "sandbox", Title: sim.Text{sim.English: "Mine", sim.SimplifiedChinese: "我的"}, Variant: "token-count",
		Lease: 30 * time.Second, Lock: "lock", Seed: 42,
		Actors: []sim.ActorSpec{{ID: "A"}},
		Steps:  []sim.Step{{Actor: "A", Do: sim.ActAcquire, Lock: "lock", Expect: sim.Acquired}},
	}
}

func mustEncode(t testing.TB, l *sim.Lesson, o Origin) string {
	t.Helper()
	code, err := Encode(l, o, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func zlibOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// corpusLessons are the lessons whose codes seed FuzzDecode.
func corpusLessons(t testing.TB) map[string]string {
	fork := smallLesson()
	fork.ID = "stale-owner"
	fork.Fencing = true
	fork.Actors = append(fork.Actors, sim.ActorSpec{ID: "B", Name: sim.Plain("B & \"co\" 😀"), Instance: "svc-1"})
	fork.Steps = append(fork.Steps,
		sim.Step{Actor: "A", Do: sim.ActPause, Lock: "lock"},
		sim.Step{Do: sim.ActAdvance, By: 31 * time.Second, Lock: "lock", Say: sim.Text{sim.TraditionalChinese: "租約過期"}},
		sim.Step{Actor: "B", Do: sim.ActAcquire, Lock: "lock", Expect: sim.Acquired, ExpectViolations: []string{sim.InvOverlappingHolders}},
		sim.Step{Actor: "A", Do: sim.ActResume, Lock: "lock"},
		sim.Step{Actor: "A", Do: sim.ActWrite, Lock: "resource:1", Value: "paid?&=#"},
	)
	return map[string]string{
		"sandbox":     mustEncode(t, smallLesson(), Origin{}),
		"stale-owner": mustEncode(t, fork, Origin{Lesson: "stale-owner", At: 3}),
	}
}

// TestFuzzCorpus checks that the seed corpus of FuzzDecode holds the codes
// of corpusLessons; go test -run TestFuzzCorpus -update-corpus rewrites it.
func TestFuzzCorpus(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	for name, code := range corpusLessons(t) {
		want := "go test fuzz v1\nstring(" + strconv.Quote(code) + ")\n"
		path := filepath.Join(dir, name)
		if *updateCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is not the current code of lesson %q (err %v); run go test ./explore -run TestFuzzCorpus -update-corpus", path, name, err)
		}
	}
}
