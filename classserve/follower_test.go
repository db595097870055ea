package classserve

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"lockstep/classroom"
	"lockstep/sim"
	"lockstep/templates"
)

// drawsHost is a Host whose frame messages say what they were drawn for
// ({"from":F,"to":T}) and which counts how often each was drawn.
type drawsHost struct {
	lesson *sim.Lesson
	mu     sync.Mutex
	drawn  map[[2]int]int
}

func (h *drawsHost) Course(id string) *sim.Lesson {
	if id == h.lesson.ID {
		return h.lesson
	}
	return nil
}

func (h *drawsHost) Texts(sim.Locale) Texts { return noTexts{} }

// noTexts has no text: a class-status shows the codes.
type noTexts struct{}

func (noTexts) Maybe(string, ...any) string { return "" }
func (noTexts) Msg(sim.Msg) string          { return "" }
func (noTexts) Class() templates.ClassTexts { return templates.ClassTexts{} }

func (h *drawsHost) FrameJSON(_ context.Context, _ *sim.Lesson, _ sim.Locale, from, to int, _ string) ([]byte, error) {
	h.mu.Lock()
	h.drawn[[2]int{from, to}]++
	h.mu.Unlock()
	return fmt.Appendf(nil, `{"from":%d,"to":%d}`, from, to), nil
}

// TestFollowerEditsOnlyInSync: a following student whose page shows the
// step the class showed before a move gets the move's frame without
// chrome (drawn from that step, once for every such student); one who
// missed a move, one who joins, and every followerFullEvery moves, the
// frame with chrome (from -1); a state that does not move the class (a
// question) sends no frame and keeps the step before. The feed draws a
// move's message for the students in sync before it wakes them.
func TestFollowerEditsOnlyInSync(t *testing.T) {
	t.Parallel()
	host := &drawsHost{lesson: &sim.Lesson{ID: "l"}, drawn: map[[2]int]int{}}
	hub := New(t.Context(), Config{Host: host, DrawTimeout: time.Minute})
	feed := &classFeed{srv: hub, code: "C", members: map[*Follower]struct{}{}}
	seq := int64(1)
	st := classroom.State{Code: "C", Seq: seq, Shown: classroom.Shown{Lesson: "l", Total: 1000}}
	feed.latest = st
	feed.shown.Store(&feedState{st: st, before: -1})
	follower := func() *Follower {
		f := &Follower{srv: hub, feed: feed, code: "C", wake: make(chan struct{}, 1), session: make(chan struct{}, 1),
			direct: true, locale: "en", shown: sharedShown{step: -1}}
		feed.members[f] = struct{}{}
		return f
	}
	move := func(step int, q *classroom.Question) {
		seq++
		st.Seq, st.Step, st.Question = seq, step, q
		feed.update(st, feed.prepare(st))
	}
	// frame is what next sent f: the from and to it was drawn for, or
	// "none".
	frame := func(f *Follower) string {
		pm, _ := f.next()
		if pm == nil {
			return "none"
		}
		feed.frames.mu.RLock()
		defer feed.frames.mu.RUnlock()
		for k, m := range feed.frames.msgs {
			if m.pm == pm {
				return fmt.Sprintf("%d→%d", k.from, k.to)
			}
		}
		return "unknown"
	}
	a, b := follower(), follower()
	for _, f := range []*Follower{a, b} {
		if got := frame(f); got != "-1→0" {
			t.Fatalf("join: %s, want the frame with chrome of step 0", got)
		}
	}
	move(1, nil)
	if got := frame(a); got != "0→1" {
		t.Fatalf("in sync: %s, want 0→1", got)
	}
	move(2, nil)
	if got := frame(a); got != "1→2" {
		t.Fatalf("in sync: %s, want 1→2", got)
	}
	// b missed moves 1 and 2: its page shows 0, the class showed 1.
	if got := frame(b); got != "-1→2" {
		t.Fatalf("out of sync: %s, want -1→2 (the frame with chrome)", got)
	}
	move(2, &classroom.Question{Step: 3, Open: true, Choices: []string{"x"}})
	if got := frame(a); got != "none" {
		t.Fatalf("a question: frame %s, want none", got)
	}
	move(3, nil)
	if n := host.drawn[[2]int{2, 3}]; n != 1 {
		t.Fatalf("2→3 drawn %d times before the students read it, want once (prepare)", n)
	}
	for _, f := range []*Follower{a, b} {
		if got := frame(f); got != "2→3" {
			t.Fatalf("after a question: %s, want 2→3", got)
		}
	}
	if n := host.drawn[[2]int{2, 3}]; n != 1 {
		t.Fatalf("2→3 drawn %d times for two students, want once", n)
	}
	// a joined at step 0 and moved one step at a time: followerFullEvery
	// moves without chrome, then one with.
	for step := 4; step <= followerFullEvery+1; step++ {
		move(step, nil)
		want := fmt.Sprintf("%d→%d", step-1, step)
		if step == followerFullEvery+1 {
			want = fmt.Sprintf("-1→%d", step)
		}
		if got := frame(a); got != want {
			t.Fatalf("move to %d: %s, want %s", step, got, want)
		}
	}
	// A move with a question open: a student in sync who answered it gets
	// a class-status with its answer, not the one prepared for those who
	// did not.
	a.answer = map[int]string{followerFullEvery + 2: "x"}
	move(followerFullEvery+2, &classroom.Question{Step: followerFullEvery + 2, Open: true, Choices: []string{"x"}})
	pm, status := a.next()
	shared := feed.shown.Load().inSync("en")
	if shared == nil || pm != shared.frame {
		t.Fatalf("in sync: the frame is not the one prepared for the move (%v)", shared)
	}
	if status == nil || status == shared.status {
		t.Fatalf("an answered question: the class-status is the one of those who did not answer")
	}
}
