package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/classserve"
)

// recordingConn is a client's network connection that keeps every byte it
// reads: the server's frames as they came on the wire.
type recordingConn struct {
	net.Conn
	mu   sync.Mutex
	read []byte
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.read = append(c.read, p[:n]...)
	c.mu.Unlock()
	return n, err
}

// textFrames are the RSV1 bits (compressed) of the first frames of the text
// messages in what rec read: the handshake's answer, then unmasked server
// frames.
func (c *recordingConn) textFrames(t *testing.T) []bool {
	t.Helper()
	c.mu.Lock()
	b := bytes.Clone(c.read)
	c.mu.Unlock()
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		t.Fatal("no handshake answer read")
	}
	b = b[end+4:]
	var rsv1 []bool
	for len(b) >= 2 {
		op, n, h := b[0]&0x0f, int(b[1]&0x7f), 2
		if b[1]&0x80 != 0 {
			t.Fatal("a server frame is masked")
		}
		switch n {
		case 126:
			if len(b) < 4 {
				return rsv1
			}
			n, h = int(b[2])<<8|int(b[3]), 4
		case 127:
			if len(b) < 10 {
				return rsv1
			}
			n = 0
			for _, x := range b[2:10] {
				n = n<<8 | int(x)
			}
			h = 10
		}
		if len(b) < h+n {
			return rsv1 // a frame read in part (the test stopped reading)
		}
		if op == websocket.TextMessage {
			rsv1 = append(rsv1, b[0]&0x40 != 0)
		}
		b = b[h+n:]
	}
	return rsv1
}

// wireStudent joins class code from a connection that offers
// permessage-deflate or not (offer) and whose request says it is forwarded
// (remote: the server compresses for it, webnet.CompressWrites) or not, and
// returns it with the connection that records what it reads, once it has
// the class's status.
func wireStudent(t *testing.T, hs *httptest.Server, code string, offer, remote bool) (*wsClient, *recordingConn) {
	t.Helper()
	var rec *recordingConn
	d := &websocket.Dialer{HandshakeTimeout: 20 * time.Second, EnableCompression: offer,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			rec = &recordingConn{Conn: c}
			return rec, nil
		}}
	var header http.Header
	if remote {
		header = http.Header{"X-Forwarded-For": {"203.0.113.7"}}
	}
	conn, err := dialErr(hs, header, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &wsClient{t: t, conn: conn}
	s.expect(MsgHello)
	s.send(ClientMessage{Type: classserve.MsgClassJoin, ID: 2, Code: strings.ToLower(code)})
	s.await(classserve.MsgClassJoined, nil)
	s.await(classserve.MsgClassStatus, nil)
	return s, rec
}

// readMove reads s's messages up to the frame of step want and the
// class-status of it, and returns both as they decoded.
func (c *wsClient) readMove(want int) (frame, status []byte) {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for frame == nil || status == nil {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for step %d: %v", want, err)
		}
		var m classMsg
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("decode %s: %v", data, err)
		}
		switch {
		case m.Type == MsgFrame && m.Step == want:
			frame = data
		case m.Type == classserve.MsgClassStatus && m.Step == want:
			status = data
		case m.Type == MsgError:
			c.t.Fatalf("waiting for step %d: error %s: %s", want, m.Code, m.Message)
		}
	}
	return frame, status
}

// TestClassMoveWireBytes: a class move's frame and status, written to the
// students in sync as bytes made once per move and compression choice
// (wireFrames, client.Deliver), decode on each student's connection to
// the very messages drawn for the move (the frame: classFrameJSON from
// the step before; the status: the same for every student), whether the
// connection deflates or not: plain and compressed students never get the
// other choice's bytes (a compressed student's every message is marked
// compressed, a plain one's none), nor a move's bytes on the next move.
func TestClassMoveWireBytes(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 1)
	type kind struct {
		name          string
		offer, remote bool
		deflated      bool
		conn          *wsClient
		rec           *recordingConn
	}
	students := []*kind{
		{name: "no deflate offered", offer: false, remote: false},
		{name: "deflate offered, loopback", offer: true, remote: false},
		{name: "deflate offered, remote", offer: true, remote: true, deflated: true},
		{name: "deflate offered, remote, second", offer: true, remote: true, deflated: true},
		{name: "no deflate offered, remote", offer: false, remote: true},
	}
	for _, k := range students {
		k.conn, k.rec = wireStudent(t, hs, pm.Code, k.offer, k.remote)
	}
	l := srv.byID[classLesson]
	last := min(len(l.Steps)-1, 6)
	for want := 2; want <= last; want++ {
		p.send(ClientMessage{Type: MsgStep})
		p.rawAwait(MsgFrame)
		wantFrame, err := srv.classFrameJSON(context.Background(), l, "en", want-1, want, pm.Code)
		if err != nil {
			t.Fatal(err)
		}
		var firstStatus []byte
		for _, k := range students {
			frame, status := k.conn.readMove(want)
			if !bytes.Equal(frame, wantFrame) {
				t.Errorf("%s, move to %d: the frame decoded (%d B) is not the move's (%d B)", k.name, want, len(frame), len(wantFrame))
			}
			if firstStatus == nil {
				firstStatus = status
			} else if !bytes.Equal(status, firstStatus) {
				t.Errorf("%s, move to %d: the class-status decoded differs from %s's", k.name, want, students[0].name)
			}
		}
	}
	// The moves went the fast path, for both choices: else this test
	// shows nothing of it.
	if plain, deflated := srv.wire.made[0].Load(), srv.wire.made[1].Load(); plain == 0 || deflated == 0 {
		t.Fatalf("wire bytes made: %d plain, %d deflated; want both", plain, deflated)
	}
	for _, k := range students {
		rsv1 := k.rec.textFrames(t)
		if len(rsv1) < 2*(last-1) {
			t.Fatalf("%s: %d text messages read, want at least %d", k.name, len(rsv1), 2*(last-1))
		}
		for i, c := range rsv1 {
			if c != k.deflated {
				t.Fatalf("%s: text message %d compressed %v, want %v", k.name, i, c, k.deflated)
			}
		}
	}
}
