package web

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"lockstep/classserve"
	"lockstep/view"
)

// rawAwait reads c's messages until one of type typ, and returns it with
// its fields undecoded.
func (c *wsClient) rawAwait(typ string) map[string]json.RawMessage {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", typ, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("decode %s: %v", data, err)
		}
		var got string
		_ = json.Unmarshal(m["type"], &got)
		if got == typ {
			return m
		}
	}
}

// keysOf is the sorted keys of the JSON object raw.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestClassFollowerFrame: a following student's frames carry what its page
// reads: the join's frame every panel (chrome too), a move's no explore
// panel (hidden while following); the raw frame only its outcome, the
// presenter's.
func TestClassFollowerFrame(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 1)
	s, _ := student(t, hs, pm.Code, "")
	first := s.rawAwait(MsgFrame)
	if _, ok := first["chrome"]; !ok {
		t.Fatal("the join's frame has no chrome")
	}
	if panels := keysOf(t, first["panels"]); !slices.Contains(panels, view.PanelExplore) {
		t.Fatalf("the join's frame: panels %v, no %s", panels, view.PanelExplore)
	}
	s.await(classserve.MsgClassStatus, nil)
	for want := 2; want <= 4; want++ {
		p.send(ClientMessage{Type: MsgStep})
		var pf struct {
			Outcome string `json:"outcome"`
		}
		raw := p.rawAwait(MsgFrame)
		if err := json.Unmarshal(raw["frame"], &pf); err != nil {
			t.Fatal(err)
		}
		if len(keysOf(t, raw["frame"])) < 2 {
			t.Fatalf("the presenter's frame %s: not the whole sim.Frame", raw["frame"])
		}
		f := s.rawAwait(MsgFrame)
		var step int
		_ = json.Unmarshal(f["step"], &step)
		if step != want {
			t.Fatalf("student at %d, want %d", step, want)
		}
		if panels := keysOf(t, f["panels"]); slices.Contains(panels, view.PanelExplore) {
			t.Fatalf("step %d: a move's frame carries the explore panel (%v)", want, panels)
		}
		var sf struct {
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal(f["frame"], &sf); err != nil {
			t.Fatal(err)
		}
		if keys := keysOf(t, f["frame"]); len(keys) > 1 || (len(keys) == 1 && keys[0] != "outcome") || sf.Outcome != pf.Outcome {
			t.Fatalf("step %d: the student's frame %s, the presenter's outcome %q", want, f["frame"], pf.Outcome)
		}
		s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Step == want })
	}
}

// TestClassFollowerIdle: a student who follows a lecture sends nothing;
// the moves its connection's writer shows it (classFollower) are its
// session's activity, so it is not closed as idle while the class moves.
func TestClassFollowerIdle(t *testing.T) {
	t.Parallel()
	// 6 s, not 1 or 3: under -race on a loaded 2-core machine a move's
	// round trip took over half a second, and a 1 s timeout closed the
	// student between two moves 400 ms apart; at load 15-30 a 3 s one
	// closed it between moves 1.2 s apart (the test's own slowness, not
	// idling). Moves 2.4 s apart leave 3.6 s for a round trip.
	const idle = 6 * time.Second
	_, hs := newTestHTTP(t, Config{IdleTimeout: idle})
	p, pm := presenterAt(t, hs, 1)
	s, _ := student(t, hs, pm.Code, "")
	s.rawAwait(MsgFrame)
	// Moves for 1.6 idle timeouts, each well within one.
	for want := 2; want <= 5; want++ {
		time.Sleep(idle * 2 / 5)
		p.send(ClientMessage{Type: MsgStep})
		p.rawAwait(MsgFrame)
		f := s.rawAwait(MsgFrame)
		var step int
		_ = json.Unmarshal(f["step"], &step)
		if step != want {
			t.Fatalf("student at %d, want %d", step, want)
		}
	}
}
