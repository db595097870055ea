package web

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/webnet"
)

// wireFrames puts prepared messages on the wire once for every connection
// of a compression choice: a server-to-client websocket frame is not
// masked, and gorilla's permessage-deflate keeps no context between
// messages (server_no_context_takeover), so the bytes gorilla writes for a
// PreparedMessage are the same on every connection of the server that
// compresses, and on every one that does not. A class move's frame and
// status, the same for nearly every student, are then made into bytes once
// per move and choice (classserve's feed keeps them with the move) and
// written as they are by each student's writer (client.Deliver,
// webnet.BatchConn's TryWrite), without gorilla's per-connection write: a
// lookup of the prepared frame under its lock, the connection's write
// lock, a deadline and a copy into the batch buffer, per message and
// student (docs/performance.md, Classes).
//
// The bytes are gorilla's own: written by a gorilla connection of each
// choice that the server's own Upgrader made, over a connection that keeps
// what is written (wireConn), so they follow the server's frame size and
// compression level as its students' connections do.
type wireFrames struct {
	upgrader websocket.Upgrader
	// probe is a message written once into each new connection's batch
	// and discarded, whose first byte tells whether the connection
	// deflates (deflates).
	probe *websocket.PreparedMessage

	mu sync.Mutex
	// conns are the connections that write for the plain ([0]) and the
	// deflating ([1]) choice, made on first use; nil until then.
	conns [2]*wireConn
	// made counts the bytes made per choice (one per move at most): tests
	// see the fast path taken.
	made [2]atomic.Int64
}

// newWireFrames is the wireFrames of a server whose connections upgrader
// makes.
func newWireFrames(upgrader websocket.Upgrader) (*wireFrames, error) {
	probe, err := websocket.NewPreparedMessage(websocket.TextMessage, []byte("{}"))
	if err != nil {
		return nil, err
	}
	upgrader.CheckOrigin = func(*http.Request) bool { return true } // no one's page: no Origin
	return &wireFrames{upgrader: upgrader, probe: probe}, nil
}

// rsv1 is the bit of a websocket frame's first byte that marks a message
// compressed (RFC 7692, 6).
const rsv1 = 0x40

// deflates reports whether conn, a new connection whose network connection
// is bc, compresses the messages it sends (permessage-deflate negotiated
// and write compression on): it has gorilla write the probe into bc's
// batch, discards it and reads the frame's RSV1 bit. Only before the
// connection's reader and writer start: nothing else may write meanwhile.
func (w *wireFrames) deflates(conn *websocket.Conn, bc *webnet.BatchConn) bool {
	bc.Hold()
	err := conn.WritePreparedMessage(w.probe)
	b := bc.Discard()
	return err == nil && len(b) > 0 && b[0]&rsv1 != 0
}

// bytes is frame then status (either nil: left out) as a connection of
// this server that deflates or not puts them on the wire; nil when gorilla
// could not frame them (the caller writes them through its connection, as
// it would without).
func (w *wireFrames) bytes(deflate bool, frame, status *websocket.PreparedMessage) []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := 0
	if deflate {
		i = 1
	}
	if w.conns[i] == nil {
		c, err := newWireConn(w.upgrader, deflate)
		if err != nil {
			return nil
		}
		w.conns[i] = c
	}
	c := w.conns[i]
	c.buf.Reset()
	for _, pm := range [2]*websocket.PreparedMessage{frame, status} {
		if pm == nil {
			continue
		}
		if err := c.ws.WritePreparedMessage(pm); err != nil {
			w.conns[i] = nil // a write error stays with a gorilla connection
			return nil
		}
	}
	w.made[i].Add(1)
	return bytes.Clone(c.buf.Bytes())
}

// wireConn is a gorilla connection that writes into buf: a handshake
// answered into it by the server's Upgrader (then dropped), with
// permessage-deflate offered or not, over a network connection that keeps
// what is written and has nothing to read.
type wireConn struct {
	ws  *websocket.Conn
	buf bytes.Buffer
}

// newWireConn is a wireConn of upgrader's that deflates or not.
func newWireConn(upgrader websocket.Upgrader, deflate bool) (*wireConn, error) {
	c := &wireConn{}
	r := &http.Request{Method: http.MethodGet, Header: http.Header{}}
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "websocket")
	r.Header.Set("Sec-WebSocket-Version", "13")
	r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==") // RFC 6455's example
	if deflate {
		r.Header.Set("Sec-WebSocket-Extensions", "permessage-deflate")
	}
	ws, err := upgrader.Upgrade(wireHijacker{c}, r, nil)
	if err != nil {
		return nil, err
	}
	ws.EnableWriteCompression(deflate)
	c.ws = ws
	return c, nil
}

// errWireConn is what a wireConn's network connection says to anything but
// a write: it has no peer.
var errWireConn = errors.New("web: wire conn: no peer")

// wireNetConn is a wireConn's network connection: writes go to its buffer.
type wireNetConn struct{ c *wireConn }

func (n wireNetConn) Write(p []byte) (int, error)        { return n.c.buf.Write(p) }
func (n wireNetConn) Read([]byte) (int, error)           { return 0, errWireConn }
func (n wireNetConn) Close() error                       { return nil }
func (n wireNetConn) LocalAddr() net.Addr                { return wireAddr{} }
func (n wireNetConn) RemoteAddr() net.Addr               { return wireAddr{} }
func (n wireNetConn) SetDeadline(time.Time) error        { return nil }
func (n wireNetConn) SetReadDeadline(time.Time) error    { return nil }
func (n wireNetConn) SetWriteDeadline(t time.Time) error { return nil }

// wireAddr is a wireNetConn's address, for gorilla's LocalAddr.
type wireAddr struct{}

func (wireAddr) Network() string { return "wire" }
func (wireAddr) String() string  { return "wire" }

// wireHijacker is the http.ResponseWriter of a wireConn's handshake: its
// Hijack hands the Upgrader the wireConn's network connection.
type wireHijacker struct{ c *wireConn }

func (h wireHijacker) Header() http.Header         { return http.Header{} }
func (h wireHijacker) Write(p []byte) (int, error) { return h.c.buf.Write(p) }
func (h wireHijacker) WriteHeader(int)             {}
func (h wireHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc := wireNetConn{h.c}
	return nc, bufio.NewReadWriter(bufio.NewReader(nc), bufio.NewWriter(nc)), nil
}
