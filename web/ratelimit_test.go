package web

import (
	"errors"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// TestProtocolFloodRateLimited: a connection that floods the server with
// messages gets rate-limited errors and then close code 1008, while another
// connection's steps are all answered, in order, with the right frames.
// Nothing is timed: the flood is sent until the server closes it, and the
// other client's answers are counted.
func TestProtocolFloodRateLimited(t *testing.T) {
	t.Parallel()
	// A low rate, so that the flood trips the limit on any machine; the
	// other client sends fewer messages than the burst, so it is never
	// limited. The burst is below the send queue (16), so the flood's
	// answers cannot get it dropped as a slow client instead.
	_, hs := newTestHTTP(t, Config{MessageRate: 5, MessageBurst: 12})
	l := lessonByID(t, testLessons(t), "stale-owner")
	want := expectedFrames(t, l)

	flood := dial(t, hs, nil)
	flood.expect(MsgHello)
	type result struct {
		limited int
		close   *websocket.CloseError
		err     error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		for {
			_, data, err := flood.conn.ReadMessage()
			if err != nil {
				if !errors.As(err, &r.close) {
					r.err = err
				}
				done <- r
				return
			}
			if strings.Contains(string(data), `"code":"rate-limited"`) {
				r.limited++
			}
		}
	}()
	sendDone := make(chan int, 1)
	go func() {
		n := 0
		for ; n < 1_000_000; n++ {
			if err := flood.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"pause"}`)); err != nil {
				break
			}
		}
		sendDone <- n
	}()

	other := dial(t, hs, nil)
	other.expect(MsgHello)
	other.send(ClientMessage{Type: MsgLoad, Lesson: l.ID})
	other.expect(MsgFrame)
	steps := min(len(l.Steps), 10)
	for i := 1; i <= steps; i++ {
		other.send(ClientMessage{Type: MsgStep, ID: int64(i)})
		m := other.expect(MsgFrame)
		if m.Re != int64(i) || m.Step != i {
			t.Fatalf("other client: step %d answered with re %d step %d", i, m.Re, m.Step)
		}
		sameFrame(t, frameOf(t, m), want[i])
	}

	r := <-done
	sent := <-sendDone
	if r.err != nil {
		t.Fatalf("flooding connection ended without a close frame after %d messages: %v", sent, r.err)
	}
	if r.close.Code != websocket.ClosePolicyViolation || r.close.Text != "web: too many messages (limit 5 per second)" {
		t.Fatalf("flooding connection closed with %d %q, want 1008", r.close.Code, r.close.Text)
	}
	if r.limited == 0 {
		t.Errorf("flooding connection got no rate-limited error before the close")
	}
}
