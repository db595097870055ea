package live_test

import (
	"testing"

	"lockstep/proxy"
)

// TestResumeFromThePage: "resume" ends a client's pause from the page,
// drawn on its lane as the pause's end; resuming a client that is not
// paused is refused in the page's language, naming the client; a resume
// without a client names the field.
func TestResumeFromThePage(t *testing.T) {
	t.Parallel()
	p, url := liveServer(t)
	ws := dial(t, url)
	next(t, ws, "snapshot", func(m msg) bool { return m.Type == "snapshot" })
	c := redisClient(t, p, "sleeper")
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	send := func(v any) {
		if err := ws.WriteJSON(v); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"type": "resume", "client": "sleeper"})
	if m := next(t, ws, "a refusal", func(m msg) bool { return m.Type == "error" || m.Type == "done" }); m.Type != "error" || m.For != "resume" || m.Message != `websocket message resume: "sleeper" is not paused` {
		t.Errorf("resume of a running client answered %+v", m)
	}
	send(map[string]any{"type": "resume"})
	if m := next(t, ws, "a refusal", func(m msg) bool { return m.Type == "error" || m.Type == "done" }); m.Type != "error" || m.Message != "websocket message resume: client is missing" {
		t.Errorf("resume without a client answered %+v", m)
	}
	send(map[string]any{"type": "pause", "client": "sleeper", "ms": 600000})
	next(t, ws, "pause done", func(m msg) bool { return m.Type == "done" && m.For == "pause" })
	send(map[string]any{"type": "resume", "client": "sleeper"})
	done, drawn := false, false
	next(t, ws, "resume done and the pause's end drawn", func(m msg) bool {
		done = done || m.Type == "done" && m.For == "resume"
		drawn = drawn || m.Type == "event" && m.Event.Kind == proxy.EventFault && m.Event.Fault.Kind == proxy.FaultPauseEnd
		return done && drawn
	})
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Errorf("the client after resume: %v", err)
	}
}
