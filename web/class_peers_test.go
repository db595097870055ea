package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"lockstep/classbus"
	"lockstep/classserve"
)

// TestClassPeersOrigin: the websocket accepts a page of its own origin,
// of a listed peer (a student page served by another server of the
// class) and a client without Origin, and refuses any other origin with 403.
func TestClassPeersOrigin(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{ClassPeers: []string{"http://peer-a.example:8080/", "HTTPS://Peer-B.example"}}, "127.0.0.1:0")
	wsURL := "ws://" + ts.addr + "/ws"
	for _, c := range []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{ts.url, true},
		{"http://peer-a.example:8080", true},
		{"https://peer-b.example", true},
		{"http://peer-a.example:8081", false},  // another port is another origin
		{"https://peer-a.example:8080", false}, // another scheme too
		{"http://evil.example", false},
	} {
		h := http.Header{}
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		conn, resp, err := websocket.DefaultDialer.Dial(wsURL, h)
		if c.ok {
			if err != nil {
				t.Errorf("origin %q refused: %v", c.origin, err)
				continue
			}
			_ = conn.Close()
			continue
		}
		if err == nil {
			_ = conn.Close()
			t.Errorf("origin %q accepted", c.origin)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: %v, response %v; want 403", c.origin, err, resp)
		}
	}
}

// TestClassPeersConfig: a peer that is not an absolute http(s) base URL
// is refused by New, naming it.
func TestClassPeersConfig(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"peer-a.example:8080", "ws://peer-a.example", "http://peer-a.example/x", "http://u@peer-a.example", "http://peer-a.example/?q=1", ""} {
		_, err := New(withDefaults(t, Config{ClassPeers: []string{bad}}))
		if err == nil || !strings.Contains(err.Error(), "peer") {
			t.Errorf("peer %q: err %v", bad, err)
		}
	}
	for in, want := range map[string]string{"http://10.0.0.2:8080/": "http://10.0.0.2:8080", " HTTPS://B.example ": "https://b.example"} {
		if got, err := classserve.ParsePeer(in); err != nil || got != want {
			t.Errorf("classserve.ParsePeer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestClassPeersStudentMovesOn: a student's page on server A, whose
// class's presenter is on B (one bus), lists B as its peer; when A is
// gone, the page's websocket to B (Origin A, a listed peer) joins the
// class and lands on its current step, moved while A was down.
func TestClassPeersStudentMovesOn(t *testing.T) {
	t.Parallel()
	bus := classbus.NewMemory(nil)
	t.Cleanup(func() { _ = bus.Close() })
	hsA, hsB := httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	urlA, urlB := "http://"+hsA.Listener.Addr().String(), "http://"+hsB.Listener.Addr().String()
	serve := func(hs *httptest.Server, peer string) *Server {
		srv, err := New(withDefaults(t, Config{ClassBus: bus, ClassPeers: []string{peer}}))
		if err != nil {
			t.Fatal(err)
		}
		hs.Config.Handler = srv
		hs.Start()
		t.Cleanup(func() { hs.Close(); _ = srv.Close(context.Background()) })
		return srv
	}
	srvA := serve(hsA, urlB)
	serve(hsB, urlA)
	p, pm := presenterAt(t, hsB, 1)
	page, err := http.Get(urlA + "/class/" + pm.Code)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-class-peers="`+urlB+`"`) {
		t.Fatalf("A's student page (%d) does not list B as its peer", page.StatusCode)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' ws"+strings.TrimPrefix(urlB, "http")+";") {
		t.Fatalf("A's page may not open B's websocket: %s", csp)
	}
	a, _ := student(t, hsA, pm.Code, "")
	a.await(MsgFrame, func(m classMsg) bool { return m.Step == 1 })
	hsA.CloseClientConnections()
	_ = srvA.Close(context.Background())
	p.send(ClientMessage{Type: MsgStep})
	p.await(MsgFrame, func(m classMsg) bool { return m.Step == 2 })
	c, err := dialErr(hsB, http.Header{"Origin": {urlA}}, nil)
	if err != nil {
		t.Fatalf("B refused a page of its peer A: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	b := &wsClient{t: t, conn: c}
	b.expect(MsgHello)
	b.send(ClientMessage{Type: classserve.MsgClassJoin, ID: 3, Code: pm.Code})
	b.await(classserve.MsgClassJoined, nil)
	if f := b.await(MsgFrame, nil); f.Step != 2 || f.Lesson != classLesson {
		t.Fatalf("on B the student landed on step %d of %s, want the class's step 2", f.Step, f.Lesson)
	}
}
