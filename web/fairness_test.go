package web

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestFairShareUnderFlood: connections that flood a busy server, each
// under its own rate limit (finding 12), get rate-limited errors that say
// the server is busy, while a quiet client's steps are all carried out,
// in order, with the right frames. Nothing is timed: the flood runs until
// the first such error has come (a generous deadline only ends a broken
// run), and the quiet client's answers are checked.
func TestFairShareUnderFlood(t *testing.T) {
	t.Parallel()
	// One slot, so the flooders contend on any machine; their own rate
	// limit is out of the way, as for finding 12's 50 connections.
	// A fair share just big enough for the quiet client's load and steps,
	// hardly refilled, so that the flooders leave theirs soon.
	l := lessonByID(t, testLessons(t), "stale-owner")
	_, hs := newTestHTTP(t, Config{MaxBusy: 1, FairRate: 0.01, FairBurst: len(l.Steps) + 2, MessageRate: 1e6, MessageBurst: 1 << 20})
	want := expectedFrames(t, l)

	const flooders = 4
	var busy atomic.Int64
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	var conns []*websocket.Conn
	for i := 0; i < flooders; i++ {
		f := dial(t, hs, nil)
		conns = append(conns, f.conn)
		f.expect(MsgHello)
		f.send(ClientMessage{Type: MsgLoad, Lesson: l.ID, Step: intp(len(l.Steps))})
		f.expect(MsgFrame)
		wg.Add(2)
		go func() { // reads everything, counting the refusals
			defer wg.Done()
			for {
				_, data, err := f.conn.ReadMessage()
				if err != nil {
					return
				}
				if s := string(data); strings.Contains(s, `"code":"rate-limited"`) && strings.Contains(s, "the server is busy") {
					busy.Add(1)
					stopOnce.Do(func() { close(stop) })
				}
			}
		}()
		go func() { // seeks back and forth: rendering, the costly part
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := f.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"seek","step":`+[]string{"0", "9"}[n%2]+`}`)); err != nil {
					return
				}
			}
		}()
	}

	quiet, m := loadedSession(t, hs, ClientMessage{Lesson: l.ID, ID: 100})
	if m.Re != 100 {
		t.Fatalf("quiet load answered with re %d", m.Re)
	}
	for i := 1; i <= len(l.Steps); i++ {
		quiet.send(ClientMessage{Type: MsgStep, ID: int64(i)})
		m := quiet.expect(MsgFrame)
		if m.Re != int64(i) || m.Step != i {
			t.Fatalf("quiet client: step %d answered with re %d step %d", i, m.Re, m.Step)
		}
		sameFrame(t, frameOf(t, m), want[i])
	}
	select {
	case <-stop: // the flood met the bound
	case <-time.After(2 * time.Minute):
		t.Fatal("no flooder was refused in 2 minutes of flood")
	}
	if busy.Load() == 0 {
		t.Fatal("no flooder was refused")
	}
	for _, c := range conns {
		c.Close()
	}
	wg.Wait()
}
