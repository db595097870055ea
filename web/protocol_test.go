package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/sim"
	"lockstep/view"
)

// wsClient is a test client of the protocol.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

// serverMsg is any server message, decoded loosely.
type serverMsg struct {
	Type     string            `json:"type"`
	Re       int64             `json:"re"`
	Lesson   string            `json:"lesson"`
	Step     int               `json:"step"`
	Total    int               `json:"total"`
	Playing  bool              `json:"playing"`
	Lang     string            `json:"lang"`
	Code     string            `json:"code"`
	Message  string            `json:"message"`
	Protocol int               `json:"protocol"`
	Backend  backend.Info      `json:"backend"`
	Frame    json.RawMessage   `json:"frame"`
	Panels   map[string]string `json:"panels"`
	Chrome   map[string]string `json:"chrome"`

	TimelinePatch *view.TimelinePatch `json:"timeline_patch"`
}

func newTestHTTP(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(withDefaults(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv) // listens on 127.0.0.1
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	return srv, hs
}

func dial(t *testing.T, hs *httptest.Server, header http.Header) *wsClient {
	t.Helper()
	c, err := dialErr(hs, header, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return &wsClient{t: t, conn: c}
}

// loadedSession dials hs, takes the hello and sends load (a load message), and
// returns the client with the frame that answered it.
func loadedSession(t *testing.T, hs *httptest.Server, load ClientMessage) (*wsClient, serverMsg) {
	t.Helper()
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	load.Type = MsgLoad
	c.send(load)
	return c, c.expect(MsgFrame)
}

// stepWithRedisDown sends c a step (message id) that Redis cannot run and
// checks the answers: a redis error for id, then the frame of step at,
// where the run stays.
func stepWithRedisDown(t *testing.T, c *wsClient, id int64, at int) {
	t.Helper()
	c.send(ClientMessage{Type: MsgStep, ID: id})
	if m := c.expect(MsgError); m.Code != ErrCodeRedis || m.Re != id {
		t.Fatalf("step with Redis down: %+v", m)
	}
	if m := c.expect(MsgFrame); m.Step != at {
		t.Fatalf("after a failed step the run is at %d, want %d", m.Step, at)
	}
}

func dialErr(hs *httptest.Server, header http.Header, d *websocket.Dialer) (*websocket.Conn, error) {
	if d == nil {
		d = &websocket.Dialer{HandshakeTimeout: 20 * time.Second}
	}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil && resp != nil {
		return nil, &handshakeError{status: resp.StatusCode, err: err}
	}
	return c, err
}

type handshakeError struct {
	status int
	err    error
}

func (e *handshakeError) Error() string { return e.err.Error() }

func (c *wsClient) send(v any) {
	c.t.Helper()
	_ = c.conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
	var err error
	if s, ok := v.(string); ok {
		err = c.conn.WriteMessage(websocket.TextMessage, []byte(s))
	} else {
		err = c.conn.WriteJSON(v)
	}
	if err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// read returns the next server message.
func (c *wsClient) read() serverMsg {
	c.t.Helper()
	return readAs[serverMsg](c, time.Now().Add(60*time.Second), "read")
}

// readAs reads c's next message, waiting up to deadline, and decodes it
// into a T (serverMsg, or a test's own view of some messages). what names
// the wait in the failure of a read ("read", "waiting for frame").
func readAs[T any](c *wsClient, deadline time.Time, what string) T {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(deadline)
	_, data, err := c.conn.ReadMessage()
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	var m T
	if err := json.Unmarshal(data, &m); err != nil {
		c.t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

// expect reads the next message and checks its type.
func (c *wsClient) expect(typ string) serverMsg {
	c.t.Helper()
	m := c.read()
	if m.Type != typ {
		c.t.Fatalf("got %s message (%s %s), want %s", m.Type, m.Code, m.Message, typ)
	}
	return m
}

// closeErr reads until the connection closes and returns the close error.
func (c *wsClient) closeErr() *websocket.CloseError {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		_, _, err := c.conn.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce
		}
		c.t.Fatalf("connection ended without a close frame: %v", err)
	}
}

func intp(n int) *int { return &n }

// waitFor polls cond for a generous while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func frameOf(t *testing.T, m serverMsg) sim.Frame {
	t.Helper()
	var f sim.Frame
	if err := json.Unmarshal(m.Frame, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func sameFrame(t *testing.T, got, want sim.Frame) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("frame %d differs:\n got %s\nwant %s", want.Index, g, w)
	}
}

var allPanels = []string{view.PanelAlerts, view.PanelNarration, view.PanelDiagram, view.PanelTimeline, view.PanelRedis, view.PanelCommand, view.PanelExplore, view.PanelTools}

// TestProtocolStepBackSeek steps through lessons, back, by seeking and by
// a fresh load. The page, rebuilt from the messages as the page's script
// does (panels that changed, the timeline patched), shows at every step
// exactly what stepping forward showed, and its timeline is the whole
// timeline rendered at that step.
func TestProtocolStepBackSeek(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	all := testLessons(t)
	for _, id := range []string{"nested-reentry", "stale-owner", "test-forks"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			l := lessonByID(t, all, id)
			want := expectedFrames(t, l)
			full := make([]string, len(want))
			for i := range want {
				full[i] = shownPanel(t, fullTimeline(t, srv, l, want, i, sim.English))
			}
			c := dial(t, hs, nil)
			hello := c.expect(MsgHello)
			if hello.Protocol != ProtocolVersion || !hello.Backend.Embedded {
				t.Fatalf("hello %+v", hello)
			}
			var pg page
			c.send(ClientMessage{Type: MsgLoad, ID: 1, Lesson: id, Lang: "en"})
			m := c.expect(MsgFrame)
			if m.Re != 1 || m.Step != 0 || m.Total != len(l.Steps) || m.Chrome["header"] == "" || m.Chrome["controls"] == "" {
				t.Fatalf("load reply: re %d step %d total %d chrome %d", m.Re, m.Step, m.Total, len(m.Chrome))
			}
			pg.apply(t, m)
			sameFrame(t, frameOf(t, m), want[0])
			forward := []map[string]string{pg.snapshot(t)}
			for i := 1; i <= len(l.Steps); i++ {
				c.send(ClientMessage{Type: MsgStep, ID: int64(i + 1)})
				m := c.expect(MsgFrame)
				if m.Step != i || m.Re != int64(i+1) || m.Chrome != nil {
					t.Fatalf("step reply: step %d re %d chrome %v", m.Step, m.Re, m.Chrome != nil)
				}
				if m.TimelinePatch == nil || len(m.TimelinePatch.Cols) != 1 || m.TimelinePatch.Cols[0].Col != i {
					t.Fatalf("step %d: the timeline patch is not the one new column: %+v", i, m.TimelinePatch)
				}
				pg.apply(t, m)
				sameFrame(t, frameOf(t, m), want[i])
				if got := pg.snapshot(t)[view.PanelTimeline]; got != full[i] {
					t.Fatalf("step %d: the patched timeline differs from the whole timeline:\n got %s\nwant %s", i, got, full[i])
				}
				forward = append(forward, pg.snapshot(t))
			}
			// At the end, step stays at the end, and nothing changes.
			c.send(ClientMessage{Type: MsgStep})
			if m := c.expect(MsgFrame); m.Step != len(l.Steps) || len(m.Panels) != 0 || len(m.TimelinePatch.Cols) != 0 {
				t.Fatalf("step past the end went to %d, sending %d panels and %d columns", m.Step, len(m.Panels), len(m.TimelinePatch.Cols))
			}
			// Back lands on exactly what stepping forward showed.
			for i := len(l.Steps) - 1; i >= 0; i-- {
				c.send(ClientMessage{Type: MsgBack})
				m := c.expect(MsgFrame)
				pg.apply(t, m)
				if m.Step != i || !reflect.DeepEqual(pg.snapshot(t), forward[i]) {
					t.Fatalf("back to step %d shows other panels than stepping forward", i)
				}
				sameFrame(t, frameOf(t, m), want[i])
			}
			c.send(ClientMessage{Type: MsgBack})
			if m := c.expect(MsgFrame); m.Step != 0 {
				t.Fatalf("back before the start went to %d", m.Step)
			}
			// Seek, in a scrambled order and past the end.
			for _, s := range []int{3, 1, len(l.Steps), 0, 2, len(l.Steps) + 40} {
				c.send(ClientMessage{Type: MsgSeek, Step: intp(s)})
				m := c.expect(MsgFrame)
				pg.apply(t, m)
				wantStep := min(s, len(l.Steps))
				if m.Step != wantStep || !reflect.DeepEqual(pg.snapshot(t), forward[wantStep]) {
					t.Fatalf("seek %d: at %d, panels equal %v", s, m.Step, reflect.DeepEqual(pg.snapshot(t), forward[wantStep]))
				}
			}
			// A fresh load straight to a step (what a reconnect sends) lands
			// on the same state too, with every panel.
			c.send(ClientMessage{Type: MsgLoad, Lesson: id, Step: intp(2), Lang: "en"})
			if m := c.expect(MsgFrame); m.Step != 2 || !reflect.DeepEqual(shownPanels(t, m.Panels), forward[2]) {
				t.Fatalf("load at step 2 differs from stepping there")
			}
		})
	}
}

func TestProtocolLanguage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l := lessonByID(t, testLessons(t), "nested-reentry")
	c, en := loadedSession(t, hs, ClientMessage{Lesson: l.ID, Step: intp(1)})
	if en.Lang != "en" || !hasText(t, en.Panels[view.PanelNarration], l.Steps[0].Say.In(sim.English)) {
		t.Fatalf("narration is not in English: %s", en.Panels[view.PanelNarration])
	}
	for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese} {
		c.send(ClientMessage{Type: MsgLang, ID: 9, Lang: string(loc)})
		m := c.expect(MsgFrame)
		if m.Lang != string(loc) || m.Re != 9 || m.Step != 1 || m.Chrome == nil {
			t.Fatalf("lang reply %+v", m)
		}
		if !hasText(t, m.Panels[view.PanelNarration], l.Steps[0].Say.In(loc)) {
			t.Fatalf("narration is not in %s: %s", loc, m.Panels[view.PanelNarration])
		}
		if !hasText(t, m.Chrome["header"], l.Title.In(loc)) {
			t.Fatalf("header is not in %s", loc)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestProtocolMalformedMessages(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	cases := []struct {
		msg  string
		code string
		re   int64
	}{
		{`not json`, ErrCodeBadJSON, 0},
		{`[1,2]`, ErrCodeBadJSON, 0},
		{`{"type":"step"`, ErrCodeBadJSON, 0},
		{`{"type":7,"id":4}`, ErrCodeBadJSON, 4},
		{`{"id":5}`, ErrCodeUnknownType, 5},
		{`{"type":"jump","id":6}`, ErrCodeUnknownType, 6},
		{`{"type":"step","id":7}`, ErrCodeNoLesson, 7},
		{`{"type":"seek","id":8}`, ErrCodeBadField, 8},
		{`{"type":"seek","step":-1}`, ErrCodeBadField, 0},
		{`{"type":"seek","step":2.5,"id":11}`, ErrCodeBadField, 11},
		{`{"type":"seek","step":"3","id":12}`, ErrCodeBadJSON, 12},
		{`{"type":"seek","step":true}`, ErrCodeBadJSON, 0},
		{`{"type":"seek","step":-1e30}`, ErrCodeBadField, 0},
		{`{"type":"fork","at":1.5,"action":{"actor":"A","do":"acquire"}}`, ErrCodeBadField, 0},
		{`{"type":"lang","lang":"zh-Latn-XX-x-"}`, ErrCodeUnknownLang, 0},
		{`{"type":"load"}`, ErrCodeBadField, 0},
		{`{"type":"load","lesson":"no-such-lesson","id":9}`, ErrCodeUnknownLesson, 9},
		{`{"type":"load","lesson":"nested-reentry","lang":"fr"}`, ErrCodeUnknownLang, 0},
		{`{"type":"lang","lang":"de"}`, ErrCodeUnknownLang, 0},
		{`{"type":"play","speed":1000}`, ErrCodeBadField, 0},
		{`{"type":"play","speed":-1}`, ErrCodeBadField, 0},
		{`{"type":"lesson","lesson":"<script>alert(1)</script>"}`, ErrCodeUnknownType, 0},
	}
	for _, tc := range cases {
		c.send(tc.msg)
		m := c.expect(MsgError)
		if m.Code != tc.code || m.Re != tc.re || m.Message == "" || strings.HasPrefix(m.Message, "web:") || strings.Contains(m.Message, catalog.Missing) {
			t.Errorf("%s: got code %q re %d message %q, want code %q re %d", tc.msg, m.Code, m.Re, m.Message, tc.code, tc.re)
		}
	}
	if err := c.conn.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if m := c.expect(MsgError); m.Code != ErrCodeBinary {
		t.Errorf("binary message: code %q", m.Code)
	}
	// The session still works after all that.
	c.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry", Step: intp(2)})
	if m := c.expect(MsgFrame); m.Step != 2 {
		t.Fatalf("load after errors: step %d", m.Step)
	}
	c.send(`{"type":"step","unknown_field":{"nested":[1,2]}}`)
	if m := c.expect(MsgFrame); m.Step != 3 {
		t.Fatalf("unknown fields should be ignored: step %d", m.Step)
	}
}

func TestProtocolReadLimit(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{ReadLimit: 512})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(`{"type":"load","lesson":"` + strings.Repeat("x", 2000) + `"}`)
	ce := c.closeErr()
	if ce.Code != websocket.CloseMessageTooBig || ce.Text != "web: message too big (limit 512 bytes)" {
		t.Fatalf("close %d %q", ce.Code, ce.Text)
	}
	// A message at the limit is fine.
	c2 := dial(t, hs, nil)
	c2.expect(MsgHello)
	msg := `{"type":"load","lesson":"nested-reentry","pad":"`
	msg += strings.Repeat("y", 512-len(msg)-2) + `"}`
	if len(msg) != 512 {
		t.Fatalf("message is %d bytes", len(msg))
	}
	c2.send(msg)
	c2.expect(MsgFrame)
}

func TestProtocolSessionLimit(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{MaxSessions: 2})
	a := dial(t, hs, nil)
	a.expect(MsgHello)
	b := dial(t, hs, nil)
	b.expect(MsgHello)
	waitFor(t, "two sessions", func() bool { return srv.Sessions() == 2 })
	c := dial(t, hs, nil)
	m := c.expect(MsgError)
	if m.Code != ErrCodeBusy || !strings.Contains(m.Message, "limit 2") {
		t.Fatalf("third session: %+v", m)
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseTryAgainLater {
		t.Fatalf("close code %d, want 1013", ce.Code)
	}
	a.conn.Close()
	waitFor(t, "a session to end", func() bool { return srv.Sessions() == 1 })
	d := dial(t, hs, nil)
	d.expect(MsgHello)
}

func TestProtocolIdleTimeout(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{IdleTimeout: time.Second})
	c, _ := loadedSession(t, hs, ClientMessage{Lesson: "nested-reentry"})
	ce := c.closeErr()
	if ce.Code != CloseIdle || !strings.HasPrefix(ce.Text, "web: idle for") {
		t.Fatalf("close %d %q", ce.Code, ce.Text)
	}
	waitFor(t, "the idle session to end", func() bool { return srv.Sessions() == 0 })
}

func TestProtocolOriginChecked(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	_, err := dialErr(hs, http.Header{"Origin": {"http://evil.example"}}, nil)
	var he *handshakeError
	if !errors.As(err, &he) || he.status != http.StatusForbidden {
		t.Fatalf("foreign origin: %v", err)
	}
	same := dial(t, hs, http.Header{"Origin": {hs.URL}})
	same.expect(MsgHello)
}

func TestProtocolShutdown(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	c, _ := loadedSession(t, hs, ClientMessage{Lesson: "stale-owner", Step: intp(3)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseGoingAway || ce.Text != "web: server shutting down" {
		t.Fatalf("close %d %q", ce.Code, ce.Text)
	}
	if _, err := dialErr(hs, nil, nil); err == nil {
		t.Fatal("a closed server took a new session")
	}
}

func TestProtocolPlay(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l := lessonByID(t, testLessons(t), "nested-reentry")
	c, _ := loadedSession(t, hs, ClientMessage{Lesson: l.ID})
	c.send(ClientMessage{Type: MsgPlay, ID: 3, Speed: MaxSpeed})
	if m := c.expect(MsgState); !m.Playing || m.Re != 3 {
		t.Fatalf("play: %+v", m)
	}
	last := 0
	for last < len(l.Steps) {
		m := c.read()
		switch m.Type {
		case MsgFrame:
			if m.Step != last+1 {
				t.Fatalf("play went from %d to %d", last, m.Step)
			}
			last = m.Step
			if m.Playing != (last < len(l.Steps)) {
				t.Fatalf("step %d: playing %v", last, m.Playing)
			}
		case MsgState:
		default:
			t.Fatalf("unexpected %s", m.Type)
		}
	}
	// Play at the end starts over; pause stops.
	c.send(ClientMessage{Type: MsgPlay})
	if m := c.expect(MsgFrame); m.Step != 0 {
		t.Fatalf("play at the end went to %d", m.Step)
	}
	c.expect(MsgState)
	c.send(ClientMessage{Type: MsgPause, ID: 4})
	for {
		m := c.read()
		if m.Type == MsgState && m.Re == 4 {
			if m.Playing {
				t.Fatal("still playing after pause")
			}
			break
		}
	}
}

// TestProtocolSlowClientDropped: a client that never reads is dropped, and a
// second client is served all along.
func TestProtocolSlowClientDropped(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	small := &websocket.Dialer{
		HandshakeTimeout: 20 * time.Second,
		NetDialContext: (&net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			})
			if err != nil {
				return err
			}
			return serr
		}}).DialContext,
	}
	slow, err := dialErr(hs, nil, small)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	good, _ := loadedSession(t, hs, ClientMessage{Lesson: "stale-owner"})
	waitFor(t, "two sessions", func() bool { return srv.Sessions() == 2 })
	l := lessonByID(t, testLessons(t), "stale-owner")
	_ = slow.SetWriteDeadline(time.Now().Add(60 * time.Second))
	if err := slow.WriteJSON(ClientMessage{Type: MsgLoad, Lesson: "stale-owner"}); err != nil {
		t.Fatal(err)
	}
	dropped := false
	for i := 0; i < 5000 && !dropped; i++ {
		// Big frames, never read.
		if err := slow.WriteJSON(ClientMessage{Type: MsgSeek, Step: intp((i % 2) * len(l.Steps))}); err != nil {
			dropped = true // the server closed the connection
			break
		}
		if i%50 == 49 {
			// Meanwhile the other client is served.
			good.send(ClientMessage{Type: MsgSeek, Step: intp(i % len(l.Steps))})
			good.expect(MsgFrame)
			dropped = srv.Sessions() == 1
		}
	}
	waitFor(t, "the slow client to be dropped", func() bool { return srv.Sessions() == 1 })
	good.send(ClientMessage{Type: MsgStep})
	good.expect(MsgFrame)
}

// TestProtocolRealRedis runs a lesson through the websocket on a real
// redis-server, checks it shows the same frames as the embedded backend,
// and that ending the session (and loading another lesson) deletes the
// run's keys.
func TestProtocolRealRedis(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	srv, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	rc := rs.Client(t)
	keys := func() []string {
		ks, err := rc.Keys(context.Background(), backend.KeyNamespace+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	l := lessonByID(t, testLessons(t), "stale-owner")
	want := expectedFrames(t, l)
	c := dial(t, hs, nil)
	if h := c.expect(MsgHello); h.Backend.Embedded || h.Backend.Addr != rs.Addr {
		t.Fatalf("hello backend %+v", h.Backend)
	}
	c.send(ClientMessage{Type: MsgLoad, Lesson: l.ID})
	m := c.expect(MsgFrame)
	// The header names no address or version, which every visitor sees
	// (issue 37, item 8); the hello tells them a local peer only.
	if label := backendLabel(t, m.Chrome["header"]); label != "a real Redis (the server's -redis)" || strings.Contains(label, rs.Addr) {
		t.Fatalf("header's backend badge %q", label)
	}
	far := dial(t, hs, http.Header{"X-Forwarded-For": {"203.0.113.5"}})
	if h := far.expect(MsgHello); h.Backend.Addr != "" || h.Backend.Version != "" || h.Backend.Embedded {
		t.Fatalf("a peer not on this machine was told %+v", h.Backend)
	}
	far.conn.Close()
	for i := 1; i <= len(l.Steps); i++ {
		c.send(ClientMessage{Type: MsgStep})
		m := c.expect(MsgFrame)
		sameFrame(t, frameOf(t, m), want[i])
		if i == 1 && !strings.Contains(redisPrefix(t, m.Panels[view.PanelRedis]), backend.KeyNamespace+"{run-") {
			t.Fatalf("Redis panel does not name the run's key prefix")
		}
	}
	if len(keys()) == 0 {
		t.Fatal("the run left no keys in Redis mid-lesson")
	}
	// Loading another lesson closes the first run.
	c.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry"})
	c.expect(MsgFrame)
	waitFor(t, "the first run's keys to go", func() bool { return len(keys()) == 0 })
	c.send(ClientMessage{Type: MsgStep})
	c.expect(MsgFrame)
	if len(keys()) == 0 {
		t.Fatal("the second run wrote no key")
	}
	c.conn.Close()
	waitFor(t, "the session to end", func() bool { return srv.Sessions() == 0 })
	waitFor(t, "the second run's keys to go", func() bool { return len(keys()) == 0 })
}

// TestProtocolRedisDown: a step that fails on Redis answers an error
// message and leaves the run where it was; it works again once Redis is back.
func TestProtocolRedisDown(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	l := lessonByID(t, testLessons(t), "nested-reentry")
	want := expectedFrames(t, l)
	c, _ := loadedSession(t, hs, ClientMessage{Lesson: l.ID, Step: intp(2)})
	rs.Stop()
	stepWithRedisDown(t, c, 5, 2)
	// Going back still works: those frames are computed.
	c.send(ClientMessage{Type: MsgBack})
	if m := c.expect(MsgFrame); m.Step != 1 {
		t.Fatalf("back: %d", m.Step)
	}
	rs.Restart(t)
	c.send(ClientMessage{Type: MsgSeek, Step: intp(3)})
	for {
		m := c.read()
		if m.Type == MsgError {
			// The pool may need a moment to redial; try again.
			time.Sleep(100 * time.Millisecond)
			c.send(ClientMessage{Type: MsgSeek, Step: intp(3)})
			continue
		}
		if m.Type == MsgFrame && m.Step == 3 {
			sameFrame(t, frameOf(t, m), want[3])
			break
		}
	}
}

// TestProtocolRedisDownRemoteInItsLanguage: a remote page (not on this
// machine) whose step fails on Redis is told so in its language, naming
// a real Redis without its address, as its header's badge does (it was
// told "a real Redis (the server's -redis)" in English).
func TestProtocolRedisDownRemoteInItsLanguage(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	far := dial(t, hs, http.Header{"X-Forwarded-For": {"203.0.113.5"}})
	far.expect(MsgHello)
	far.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry", Lang: "zh-TW"})
	far.expect(MsgFrame)
	rs.Stop()
	far.send(ClientMessage{Type: MsgStep, ID: 7})
	m := far.expect(MsgError)
	if want := tr(sim.TraditionalChinese).T("BackendReal"); m.Code != ErrCodeRedis || !strings.Contains(m.Message, want) || strings.Contains(m.Message, rs.Addr) {
		t.Errorf("remote step error %+v, want %q in it and no address", m, want)
	}
}

// TestProtocolBurstWhileReading: a page that sends a burst of messages (a
// held key, a presenter remote) within its rate limit and reads every reply
// gets every reply; it is not taken for a client that does not read.
func TestProtocolBurstWhileReading(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, Lesson: "stale-owner"})
	total := c.expect(MsgFrame).Total
	const burst = 80 // under DefaultMessageBurst
	frames := make(chan error, 1)
	go func() {
		for i := 0; i < burst; i++ {
			_ = c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, data, err := c.conn.ReadMessage()
			if err != nil {
				frames <- fmt.Errorf("reply %d: %w", i+1, err)
				return
			}
			var m serverMsg
			if err := json.Unmarshal(data, &m); err != nil || m.Type != MsgFrame {
				frames <- fmt.Errorf("reply %d: %s", i+1, data)
				return
			}
		}
		frames <- nil
	}()
	for i := 0; i < burst; i++ {
		// Whole-lesson jumps: each reply carries the panels that changed.
		step := (i % 2) * total
		if err := c.conn.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"type":"seek","step":%d}`, step))); err != nil {
			t.Fatalf("send %d: %v", i+1, err)
		}
	}
	if err := <-frames; err != nil {
		t.Fatal(err)
	}
}

// TestProtocolWholeNumbersAndLanguageTags: a step is any JSON number that
// is a whole number, however written (a page's JSON.stringify writes
// 1e21 and up with an exponent), and a step past the end goes to the end
// however large; a lang field takes the language tags the lang query
// parameter takes.
func TestProtocolWholeNumbersAndLanguageTags(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(`{"type":"load","lesson":"nested-reentry","step":2.0,"lang":"zh-hant","id":1}`)
	m := c.expect(MsgFrame)
	if m.Re != 1 || m.Step != 2 || m.Lang != string(sim.TraditionalChinese) {
		t.Fatalf("load with step 2.0 and lang zh-hant: re %d step %d lang %q", m.Re, m.Step, m.Lang)
	}
	last := m.Total
	for i, step := range []string{"1e9", "1E+30", "4294967296", "1.0e400"} {
		c.send(fmt.Sprintf(`{"type":"seek","step":%s,"id":%d}`, step, 10+i))
		if m := c.expect(MsgFrame); m.Re != int64(10+i) || m.Step != last {
			t.Fatalf("seek %s: re %d step %d, want the last step %d", step, m.Re, m.Step, last)
		}
	}
	c.send(`{"type":"seek","step":3e0}`)
	if m := c.expect(MsgFrame); m.Step != 3 {
		t.Fatalf("seek 3e0: step %d", m.Step)
	}
	// An error is in the session's language (zh-TW since the load), as the
	// catalogue words it.
	c.send(`{"type":"play","speed":"fast"}`)
	if e := c.expect(MsgError); e.Message != tr(sim.TraditionalChinese).Msg(sim.M("ws.wrong-type", "Field", "speed")) || !strings.Contains(e.Message, "speed") {
		t.Fatalf("a zh-TW session's error: %q", e.Message)
	}
	c.send(`{"type":"lang","lang":"en"}`)
	if m := c.expect(MsgFrame); m.Lang != "en" {
		t.Fatalf("lang en: %s", m.Lang)
	}
	// Errors name the field as the message has it, and repeat at most a
	// short piece of what was sent.
	for _, tc := range []struct{ msg, code, has string }{
		{`{"type":"play","speed":"fast"}`, ErrCodeBadJSON, `field "speed" has the wrong type`},
		{`{"type":"fork","action":{"do":"advance","by_ms":"5"}}`, ErrCodeBadJSON, `field "action.by_ms" has the wrong type`},
		{`{"type":"seek","step":1e-400}`, ErrCodeBadField, "step must be a whole number, not 1e-400"},
		{`{"type":"lang","lang":"` + strings.Repeat("x", 10000) + `"}`, ErrCodeUnknownLang, "unknown language"},
		{`{"type":"load","lesson":"` + strings.Repeat("y", 10000) + `"}`, ErrCodeUnknownLesson, "no lesson"},
		{`{"type":"` + strings.Repeat("z", 10000) + `"}`, ErrCodeUnknownType, "unknown message type"},
		{`{"type":"fork","action":{"actor":"` + strings.Repeat("Z", 3000) + `","do":"acquire"}}`, ErrCodeBadField, "action.actor is 3000 bytes long (at most 200)"},
		{`{"type":"fork","action":{"actor":"A","do":"` + strings.Repeat("d", 201) + `"}}`, ErrCodeBadField, "action.do is 201 bytes long"},
		{`{"type":"fork","at":1e12,"action":{"actor":"A","do":"acquire"}}`, ErrCodeBadStep, fmt.Sprintf("at is past the end: the run has %d steps", len(lessonByID(t, testLessons(t), "nested-reentry").Steps))},
	} {
		c.send(tc.msg)
		if e := c.expect(MsgError); e.Code != tc.code || !strings.Contains(e.Message, tc.has) || len(e.Message) > 300 {
			t.Fatalf("%.60s: code %q, message (%d bytes) %.300q", tc.msg, e.Code, len(e.Message), e.Message)
		}
	}
	for _, tc := range []struct{ tag, want string }{{"en_US", "en"}, {"ZH", "zh-CN"}, {"zh-Hans-CN", "zh-CN"}, {"zh-HK", "zh-TW"}, {"zh-TW", "zh-TW"}} {
		c.send(map[string]any{"type": "lang", "lang": tc.tag})
		if m := c.expect(MsgFrame); m.Lang != tc.want || m.Step != 3 || m.Chrome == nil {
			t.Fatalf("lang %q: lang %q step %d", tc.tag, m.Lang, m.Step)
		}
	}
}
