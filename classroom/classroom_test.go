package classroom

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(1_800_000_000, 0)

const (
	alice = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	bob   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	carol = "cccccccccccccccccccccccccccccccc"
)

func TestCodesAreUniformOverTheAlphabetAndParse(t *testing.T) {
	t.Parallel()
	// Every byte value three times (248 usable each time, 744 = 124 codes):
	// the bytes past the largest multiple of the alphabet are drawn again,
	// the others give each letter equally often.
	var src []byte
	for range 3 {
		for i := 0; i < 256; i++ {
			src = append(src, byte(i))
		}
	}
	r := bytes.NewReader(src)
	count := map[rune]int{}
	for {
		code, err := NewCode(r)
		if err != nil {
			break
		}
		if got, err := ParseCode(strings.ToLower(code)); err != nil || got != code {
			t.Fatalf("ParseCode(lower %q) = %q, %v", code, got, err)
		}
		for _, c := range code {
			count[c]++
		}
	}
	if len(count) != len(CodeAlphabet) {
		t.Fatalf("letters drawn: %d, want %d", len(count), len(CodeAlphabet))
	}
	for c, n := range count {
		if n != count['2'] {
			t.Fatalf("letter %c drawn %d times, '2' %d: not uniform", c, n, count['2'])
		}
	}
	for _, bad := range []string{"", "ABCDE", "ABCDEFG", "ABCDE0", "ABCDEI", "ABC DE"} {
		if _, err := ParseCode(bad); !errors.Is(err, ErrBadCode) {
			t.Errorf("ParseCode(%q) = %v, want ErrBadCode", bad, err)
		}
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	key, err := NewKey(nil)
	if err != nil || !ValidID(key) {
		t.Fatalf("NewKey = %q, %v", key, err)
	}
	other, _ := NewKey(nil)
	h := KeyHash(key)
	if !KeyMatches(h, key) || KeyMatches(h, other) || KeyMatches(h, strings.ToUpper(key)) || KeyMatches(h, h) {
		t.Fatal("KeyMatches accepts another key or refuses its own")
	}
	if _, err := NewKey(bytes.NewReader(make([]byte, 3))); err == nil {
		t.Fatal("NewKey from a short reader: no error")
	}
}

func newClass() *Class {
	return New("K7P3QX", KeyHash(alice), "srv1", Shown{Lesson: "stale-owner", Total: 11}, 3, time.Minute, t0)
}

func TestAnswersCountOncePerStudentLastWins(t *testing.T) {
	t.Parallel()
	c := newClass()
	if err := c.Answer(alice, 4, "GRANTED", t0); !errors.Is(err, ErrNoQuestion) {
		t.Fatalf("answer before a question: %v", err)
	}
	if err := c.Ask(4, "acquire B", nil, Why{}, t0); !errors.Is(err, ErrNoChoices) {
		t.Fatalf("ask with no choices: %v", err)
	}
	seq := c.State().Seq
	if err := c.Ask(4, "acquire B", []string{"GRANTED", "BUSY"}, Why{}, t0); err != nil {
		t.Fatal(err)
	}
	if c.State().Seq != seq+1 {
		t.Fatal("Ask did not publish a new seq")
	}
	for _, a := range []struct {
		who, choice string
		step        int
		err         error
	}{
		{alice, "GRANTED", 4, nil},
		{alice, "BUSY", 4, nil}, // changed her mind: the last counts
		{bob, "BUSY", 4, nil},
		{carol, "BUSY", 5, ErrBadAnswer},
		{carol, "REENTERED", 4, ErrBadAnswer},
		{"not-an-id", "BUSY", 4, ErrBadAnswer},
		{carol, "GRANTED", 4, nil},
	} {
		if err := c.Answer(a.who, a.step, a.choice, t0); !errors.Is(err, a.err) {
			t.Fatalf("Answer(%s, %d, %s) = %v, want %v", a.who[:1], a.step, a.choice, err, a.err)
		}
	}
	counts, n := c.Tally()
	if n != 3 || !reflect.DeepEqual(counts, map[string]int{"GRANTED": 1, "BUSY": 2}) {
		t.Fatalf("tally %v of %d", counts, n)
	}
	if st := c.State(); st.Question.Correct != "" || !st.Question.Open {
		t.Fatalf("the state tells the answer before the reveal: %+v", st.Question)
	}
	if err := c.Reveal("BUSY", t0); err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(alice, 4, "GRANTED", t0); !errors.Is(err, ErrNoQuestion) {
		t.Fatalf("answer after the reveal: %v", err)
	}
	st := c.State()
	want := []Score{{Step: 4, Action: "acquire B", Choices: []string{"GRANTED", "BUSY"}, Correct: "BUSY", Answered: 3, Right: 2, Counts: map[string]int{"GRANTED": 1, "BUSY": 2}}}
	if !reflect.DeepEqual(st.Scores, want) || !st.Question.Revealed || st.Question.Correct != "BUSY" {
		t.Fatalf("after reveal: %+v %+v", st.Scores, st.Question)
	}
	if counts, n := c.Tally(); n != 3 || counts["BUSY"] != 2 {
		t.Fatalf("tally after the reveal: %v of %d", counts, n)
	}
}

func TestMovingAwayDropsTheQuestion(t *testing.T) {
	t.Parallel()
	c := newClass()
	_ = c.Ask(4, "acquire B", []string{"GRANTED", "BUSY"}, Why{}, t0)
	_ = c.Answer(alice, 4, "BUSY", t0)
	if changed, err := c.Move(c.State().Shown, 3, t0); changed || err != nil {
		t.Fatalf("a move to the same step: changed %v, %v", changed, err)
	}
	if changed, _ := c.Move(c.State().Shown, 1, t0); !changed {
		t.Fatal("a move back did not change the class")
	}
	if st := c.State(); st.Question != nil || st.Scores != nil || st.Step != 1 {
		t.Fatalf("after moving away: %+v", st)
	}
	_ = c.Ask(2, "acquire A", []string{"GRANTED", "BUSY"}, Why{}, t0)
	if _, n := c.Tally(); n != 0 {
		t.Fatal("a new question starts with the old answers")
	}
}

func TestIdleAndEnd(t *testing.T) {
	t.Parallel()
	c := newClass()
	if c.Idle(t0.Add(59 * time.Second)) {
		t.Fatal("idle before its time")
	}
	c.Join(alice, t0.Add(30*time.Second))
	c.Join(alice, t0.Add(30*time.Second))
	c.Join(bob, t0.Add(30*time.Second))
	if c.Students() != 2 {
		t.Fatalf("students %d, want 2 (two tabs of one student count once)", c.Students())
	}
	c.Leave(alice)
	c.Leave(bob)
	if c.Students() != 1 {
		t.Fatalf("students after leaves %d, want 1", c.Students())
	}
	if c.Idle(t0.Add(89*time.Second)) || !c.Idle(t0.Add(90*time.Second)) {
		t.Fatal("activity did not move the idle end")
	}
	if !c.End(EndIdle, t0.Add(90*time.Second)) || c.End(EndPresenter, t0) {
		t.Fatal("End twice")
	}
	if st := c.State(); !st.Ended || st.EndReason != EndIdle {
		t.Fatalf("ended state %+v", st)
	}
	if _, err := c.Move(Shown{Lesson: "other"}, 0, t0); !errors.Is(err, ErrEnded) {
		t.Fatalf("move after the end: %v", err)
	}
}

func TestStateAndMessagesRoundTrip(t *testing.T) {
	t.Parallel()
	c := newClass()
	_ = c.Ask(4, "acquire B", []string{"GRANTED", "BUSY"}, Why{}, t0)
	_ = c.Reveal("GRANTED", t0)
	st := c.State()
	got, err := DecodeState(st.Encode())
	if err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("state round trip: %v\n got %+v\nwant %+v", err, got, st)
	}
	// A State handed out does not change with the class.
	_ = c.Ask(6, "release A", []string{"RELEASED", "NOT_OWNER"}, Why{}, t0)
	if st.Question.Step != 4 {
		t.Fatal("a State shares its question with the class")
	}
	for _, m := range []Message{StateMessage(KindReveal, st), {Kind: KindAnswer, Student: alice, Step: 4, Choice: "BUSY"}, {Kind: KindJoin, Student: bob}} {
		back, err := DecodeMessage(m.Encode())
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("message round trip %+v: %+v, %v", m, back, err)
		}
	}
	for _, bad := range []string{``, `[]`, `{"kind":"nope"}`, `{"kind":"step"}`, `{"kind":"step","state":{"v":1,"code":"bad"}}`,
		`{"kind":"answer","student":"x","step":1,"choice":"A"}`, `{"kind":"answer","student":"` + alice + `","step":0,"choice":"A"}`,
		`{"kind":"join"}`, `{"kind":"ask","state":{"v":1,"code":"K7P3QX","question":{"step":0,"choices":[]}}}`} {
		if _, err := DecodeMessage([]byte(bad)); err == nil {
			t.Errorf("DecodeMessage(%s): no error", bad)
		}
	}
}

func TestResumeKeepsTheStateNotTheAnswers(t *testing.T) {
	t.Parallel()
	c := newClass()
	_ = c.Ask(4, "acquire B", []string{"GRANTED", "BUSY"}, Why{}, t0)
	_ = c.Answer(alice, 4, "BUSY", t0)
	r := Resume(c.State(), "srv2", time.Minute, t0.Add(time.Second))
	st := r.State()
	if st.Owner != "srv2" || st.Seq != c.State().Seq+1 || st.Question == nil || !st.Question.Open {
		t.Fatalf("resumed state %+v", st)
	}
	if _, n := r.Tally(); n != 0 {
		t.Fatal("answers counted on another server moved with the state")
	}
}

func TestCSV(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	scores := []Score{
		{Step: 4, Action: "acquire B", Choices: []string{"GRANTED", "BUSY"}, Correct: "BUSY", Answered: 3, Right: 2, Counts: map[string]int{"GRANTED": 1, "BUSY": 2}},
		{Step: 7, Action: "=release A", Choices: []string{"RELEASED", "NOT_OWNER"}, Correct: "NOT_OWNER", Counts: map[string]int{}},
	}
	if err := WriteCSV(&buf, scores); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"step", "action", "correct", "answered", "right", "right_pct", "GRANTED", "BUSY", "RELEASED", "NOT_OWNER"},
		{"4", "acquire B", "BUSY", "3", "2", "67", "1", "2", "0", "0"},
		{"7", "'=release A", "NOT_OWNER", "0", "0", "", "0", "0", "0", "0"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("csv\n got %q\nwant %q", rows, want)
	}
}
