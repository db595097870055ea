package web

import (
	"testing"
	"time"
)

// TestOnStepTimings checks that Config.OnStep gets one StepTiming per
// step, back and seek message, after its frame, saying whether the move ran
// on Redis, and never for a load.
func TestOnStepTimings(t *testing.T) {
	got := make(chan StepTiming, 16)
	_, hs := newTestHTTP(t, Config{OnStep: func(st StepTiming) { got <- st }})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, ID: 1, Lesson: "nested-reentry"})
	c.expect(MsgFrame)
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
	}
	for _, m := range moves {
		c.send(m.msg)
		if f := c.expect(MsgFrame); f.Step != m.step {
			t.Fatalf("%s: frame of step %d, want %d", m.msg.Type, f.Step, m.step)
		}
		var st StepTiming
		select {
		case st = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no StepTiming", m.msg.Type)
		}
		if st.Step != m.step || st.Ran != m.ran {
			t.Errorf("%s: StepTiming step %d ran %v, want step %d ran %v", m.msg.Type, st.Step, st.Ran, m.step, m.ran)
		}
		if st.Wait < 0 || st.Redis <= 0 || st.Draw <= 0 {
			t.Errorf("%s: durations %+v: want wait ≥ 0, Redis and draw > 0", m.msg.Type, st)
		}
	}
	// A load is not a move: no timing for it.
	c.send(ClientMessage{Type: MsgLoad, ID: 7, Lesson: "nested-reentry"})
	c.expect(MsgFrame)
	select {
	case st := <-got:
		t.Errorf("a load gave a StepTiming: %+v", st)
	case <-time.After(100 * time.Millisecond):
	}
}
