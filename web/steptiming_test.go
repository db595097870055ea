package web

import (
	"testing"
	"time"
)

// TestOnStepTimings checks that Config.OnStep gets one StepTiming per
// step, back and seek message, after its frame: the step shown (clamped),
// whether the move ran on Redis, a Redis time next to nothing when it did
// not, and a Wait that covers the time the session was busy. A load gets
// none.
func TestOnStepTimings(t *testing.T) {
	got := make(chan StepTiming, 16)
	const busy = 50 * time.Millisecond
	hold := make(chan bool, 1) // the next call of OnStep keeps the session busy
	_, hs := newTestHTTP(t, Config{OnStep: func(st StepTiming) {
		select {
		case <-hold:
			time.Sleep(busy)
		default:
		}
		got <- st
	}})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, ID: 1, Lesson: "nested-reentry"})
	total := c.expect(MsgFrame).Total
	next := func(what string) StepTiming {
		t.Helper()
		select {
		case st := <-got:
			return st
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no StepTiming", what)
		}
		return StepTiming{}
	}
	moves := []struct {
		msg  ClientMessage
		step int
		ran  bool
	}{
		{ClientMessage{Type: MsgStep, ID: 2}, 1, true},
		{ClientMessage{Type: MsgStep, ID: 3}, 2, true},
		{ClientMessage{Type: MsgBack, ID: 4}, 1, false},
		{ClientMessage{Type: MsgSeek, ID: 5, Step: intp(2)}, 2, false},
		{ClientMessage{Type: MsgSeek, ID: 6, Step: intp(4)}, 4, true},
		{ClientMessage{Type: MsgSeek, ID: 7, Step: intp(0)}, 0, false},
		{ClientMessage{Type: MsgBack, ID: 8}, 0, false},                         // clamped at 0
		{ClientMessage{Type: MsgSeek, ID: 9, Step: intp(1 << 30)}, total, true}, // clamped at the end
	}
	for _, m := range moves {
		c.send(m.msg)
		if f := c.expect(MsgFrame); f.Step != m.step {
			t.Fatalf("%s: frame of step %d, want %d", m.msg.Type, f.Step, m.step)
		}
		st := next(m.msg.Type)
		if st.Step != m.step || st.Ran != m.ran {
			t.Errorf("%s: StepTiming step %d ran %v, want step %d ran %v", m.msg.Type, st.Step, st.Ran, m.step, m.ran)
		}
		if st.Wait < 0 || st.Redis < 0 || st.Draw <= 0 || m.ran && st.Redis <= 0 {
			t.Errorf("%s: durations %+v: want wait ≥ 0, Redis > 0 when it ran, draw > 0", m.msg.Type, st)
		}
		// A move that runs nothing spends next to nothing on Redis, and
		// drawing its frame takes longer than that.
		if !m.ran && st.Redis >= st.Draw {
			t.Errorf("%s: ran nothing but Redis %s ≥ draw %s", m.msg.Type, st.Redis, st.Draw)
		}
	}
	// Two messages at once, the session busy for `busy` after the first:
	// the second waited at least that long.
	hold <- true
	c.send(ClientMessage{Type: MsgBack, ID: 10})
	c.send(ClientMessage{Type: MsgBack, ID: 11})
	c.expect(MsgFrame)
	c.expect(MsgFrame)
	if first, second := next("back"), next("back"); second.Wait < busy*9/10 || first.Wait >= busy {
		t.Errorf("waits %s then %s: want the second at least %s, the first less", first.Wait, second.Wait, busy)
	}
	// A load is not a move: no timing for it.
	c.send(ClientMessage{Type: MsgLoad, ID: 12, Lesson: "nested-reentry"})
	c.expect(MsgFrame)
	select {
	case st := <-got:
		t.Errorf("a load gave a StepTiming: %+v", st)
	case <-time.After(100 * time.Millisecond):
	}
}
