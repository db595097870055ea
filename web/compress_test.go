package web

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/view"
)

// firstFrameRSV1 does a websocket handshake with hs by hand, offering
// permessage-deflate as browsers do, and reports whether the deflate
// extension was agreed and whether the server's first message (hello) came
// compressed (the frame's RSV1 bit).
func firstFrameRSV1(t *testing.T, hs *httptest.Server) (agreed, compressed bool) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(hs.URL, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	req := "GET /ws HTTP/1.1\r\nHost: " + strings.TrimPrefix(hs.URL, "http://") + "\r\n" +
		"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
		"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: status %d", resp.StatusCode)
	}
	agreed = strings.Contains(resp.Header.Get("Sec-WebSocket-Extensions"), "permessage-deflate")
	b0, err := br.ReadByte()
	if err != nil {
		t.Fatal(err)
	}
	if op := b0 & 0x0f; op != websocket.TextMessage {
		t.Fatalf("first frame: opcode %d, want a text message", op)
	}
	return agreed, b0&0x40 != 0
}

// A browser on the same machine (the default: `go run .` serves on
// loopback) gets its messages plain, though it offered permessage-deflate;
// a peer on the network gets them compressed.
func TestLoopbackPeersGetPlainMessages(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	if agreed, compressed := firstFrameRSV1(t, hs); !agreed || compressed {
		t.Fatalf("loopback peer: deflate agreed %v, hello compressed %v; want agreed and plain", agreed, compressed)
	}

	// The same server, its peers made to look remote.
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = "203.0.113.5:40000"
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(remote.Close)
	if agreed, compressed := firstFrameRSV1(t, remote); !agreed || !compressed {
		t.Fatalf("remote peer: deflate agreed %v, hello compressed %v; want both", agreed, compressed)
	}
	// And a compressing client gets the same protocol from it.
	d := &websocket.Dialer{HandshakeTimeout: 20 * time.Second, EnableCompression: true}
	conn, err := dialErr(remote, nil, d)
	if err != nil {
		t.Fatal(err)
	}
	c := &wsClient{t: t, conn: conn}
	t.Cleanup(func() { conn.Close() })
	c.expect(MsgHello)
	c.send(`{"type":"load","lesson":"stale-owner"}`)
	if m := c.expect(MsgFrame); m.Step != 0 || m.Panels[view.PanelTimeline] == "" {
		t.Fatalf("load over a compressed connection: step %d, %d panels", m.Step, len(m.Panels))
	}
	c.send(`{"type":"step"}`)
	if m := c.expect(MsgFrame); m.Step != 1 || m.TimelinePatch == nil {
		t.Fatalf("step over a compressed connection: step %d, patch %v", m.Step, m.TimelinePatch)
	}
}
