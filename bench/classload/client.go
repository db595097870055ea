package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// dialer is every connection's: small buffers of its own, since a student
// reads a move's bytes from the socket through a shared one (pooledConn),
// decodes only a frame message's first bytes and reads the rest through.
var dialer = websocket.Dialer{HandshakeTimeout: 30 * time.Second, ReadBufferSize: 4096, WriteBufferSize: 512, NetDialContext: dialPooled}

// dial opens the websocket of the server at base (http://HOST:PORT).
func dial(ctx context.Context, base string) (*websocket.Conn, error) {
	u := "ws" + base[len("http"):] + "/ws"
	h := http.Header{"Origin": {base}}
	if dialer.EnableCompression {
		// As a reverse proxy would: the server compresses for this peer
		// as for a classroom's network (webnet.CompressWrites).
		h.Set("X-Forwarded-For", "192.0.2.1")
	}
	c, resp, err := dialer.DialContext(ctx, u, h)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: %w (HTTP %d)", u, err, resp.StatusCode)
		}
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	return c, nil
}

// head is what the load generator reads of a server message: its type and
// the few fields it needs. A frame message is 16 KiB of JSON, mostly HTML;
// a student decodes only its first bytes (peek).
type head struct {
	Type    string `json:"type"`
	Re      int64  `json:"re"`
	Step    *int   `json:"step"`
	Code    string `json:"code"`
	Key     string `json:"key"`
	Student string `json:"student"`
	Message string `json:"message"`
}

// peekLen is how much of a message a student decodes by hand: the type and
// step of a frame come first in its JSON.
const peekLen = 160

// peekType reads "type" and "step" from the start of a message without
// decoding the rest.
func peekType(b []byte) (typ string, step int, ok bool) {
	typ = field(b, `"type":"`, '"')
	s := field(b, `"step":`, ',')
	if s == "" {
		return typ, 0, false
	}
	n, err := strconv.Atoi(s)
	return typ, n, err == nil
}

// peekFrame is peekType for a student's reader, which allocates nothing:
// the step of a frame message (ok false for any other message).
func peekFrame(b []byte) (step int, ok bool) {
	if !bytes.Equal(fieldBytes(b, `"type":"`, '"'), []byte("frame")) {
		return 0, false
	}
	s := fieldBytes(b, `"step":`, ',')
	if len(s) == 0 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' || step > 1<<30 {
			return 0, false
		}
		step = 10*step + int(c-'0')
	}
	return step, true
}

// readRest appends what is left of r to b, growing b only when it is full.
func readRest(b []byte, r io.Reader) []byte {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			return b
		}
	}
}

func field(b []byte, key string, end byte) string {
	return string(fieldBytes(b, key, end))
}

// fieldBytes is field's value, a part of b.
func fieldBytes(b []byte, key string, end byte) []byte {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, end)
	if j < 0 {
		j = bytes.IndexByte(rest, '}')
		if j < 0 {
			return nil
		}
	}
	return rest[:j]
}

// student is one simulated student's connection.
type student struct {
	n      int    // index
	server int    // index of the server it is on
	id     string // the student id the server gave
	conn   *websocket.Conn
	wmu    sync.Mutex // one writer at a time
	step   atomic.Int64
	msg    []byte       // the last message other than a frame, read into again
	asked  atomic.Bool  // a class-status with an open question came
	answer atomic.Value // []byte: the class-answer sent, sent again after a class-bus error
	closed chan struct{}
}

func (s *student) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

// join connects s to server base and joins class code, returning once the
// first frame of the class arrived (its step in s.step).
func (s *student) join(ctx context.Context, base, code string) error {
	c, err := dial(ctx, base)
	if err != nil {
		return err
	}
	s.conn = c
	msg := map[string]any{"type": "class-join", "code": code, "id": 1}
	if s.id != "" {
		msg["student"] = s.id
	}
	if err := s.write(msg); err != nil {
		c.Close()
		return err
	}
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			c.Close()
			return fmt.Errorf("student %d: join: %w", s.n, err)
		}
		var h head
		if err := json.Unmarshal(b, &h); err != nil {
			continue
		}
		switch h.Type {
		case "class-joined":
			s.id = h.Student
		case "error":
			c.Close()
			return fmt.Errorf("student %d: join refused: %s", s.n, b)
		case "frame":
			if h.Step != nil {
				s.step.Store(int64(*h.Step))
			}
			c.SetReadDeadline(time.Time{})
			return nil
		}
	}
}

// arrival is a student's frame of a step.
type arrival struct {
	student int
	step    int
	at      time.Time
}

// read reads s's messages until its connection ends: each frame's step is
// reported to frames, each other message to other (when not nil), with
// only what peek shows. It closes s.closed when done.
func (s *student) read(frames chan<- arrival, other func(s *student, b []byte)) {
	defer close(s.closed)
	buf := make([]byte, peekLen)
	for {
		_, r, err := s.conn.NextReader()
		if err != nil {
			return
		}
		n, _ := io.ReadFull(r, buf)
		at := time.Now()
		if step, ok := peekFrame(buf[:n]); ok {
			s.step.Store(int64(step))
			_, _ = io.Copy(io.Discard, r)
			frames <- arrival{s.n, step, at}
			continue
		}
		if other != nil {
			s.msg = readRest(append(s.msg[:0], buf[:n]...), r)
			other(s, s.msg)
		} else {
			_, _ = io.Copy(io.Discard, r)
		}
	}
}

// presenter is the presenter's connection: it loads a lesson, starts a
// class and moves it.
type presenter struct {
	conn  *websocket.Conn
	code  string
	key   string
	id    int64
	mu    sync.Mutex
	msgs  chan []byte // every message but frames
	step  atomic.Int64
	total int
}

func newPresenter(ctx context.Context, base, lesson string) (*presenter, error) {
	c, err := dial(ctx, base)
	if err != nil {
		return nil, err
	}
	p := &presenter{conn: c, msgs: make(chan []byte, 1024)}
	go func() {
		defer close(p.msgs)
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				return
			}
			typ, step, ok := peekType(b[:min(len(b), peekLen)])
			if typ == "frame" && ok {
				p.step.Store(int64(step))
				if t := field(b, `"total":`, ','); t != "" {
					p.total, _ = strconv.Atoi(t)
				}
			}
			for sent := false; !sent; {
				select {
				case p.msgs <- b:
					sent = true
				default: // full: the oldest goes, nobody waited for it
					select {
					case <-p.msgs:
					default:
					}
				}
			}
		}
	}()
	if _, err := p.ask(ctx, map[string]any{"type": "load", "lesson": lesson, "step": 0, "lang": "en"}, "frame"); err != nil {
		c.Close()
		return nil, err
	}
	b, err := p.ask(ctx, map[string]any{"type": "class-start"}, "class-presenter")
	if err != nil {
		c.Close()
		return nil, err
	}
	var h head
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	p.code, p.key = h.Code, h.Key
	if p.code == "" {
		return nil, fmt.Errorf("class-presenter without a code: %.200s", b)
	}
	return p, nil
}

// send sends msg with a new id and returns the id.
func (p *presenter) send(msg map[string]any) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.id++
	msg["id"] = p.id
	b, _ := json.Marshal(msg)
	p.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return p.id, p.conn.WriteMessage(websocket.TextMessage, b)
}

// ask sends msg and waits for the reply of type want (re = its id); an error
// reply fails.
func (p *presenter) ask(ctx context.Context, msg map[string]any, want string) ([]byte, error) {
	id, err := p.send(msg)
	if err != nil {
		return nil, err
	}
	return p.await(ctx, func(h head, b []byte) bool { return h.Type == want && h.Re == id }, id)
}

// await reads the presenter's messages until match holds; an error message
// answering id fails.
func (p *presenter) await(ctx context.Context, match func(head, []byte) bool, id int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		select {
		case b, ok := <-p.msgs:
			if !ok {
				return nil, errors.New("presenter: connection closed")
			}
			var h head
			if err := json.Unmarshal(b, &h); err != nil {
				continue
			}
			if h.Type == "error" && id != 0 && h.Re == id {
				return nil, fmt.Errorf("presenter: %s", b)
			}
			if match(h, b) {
				return b, nil
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("presenter: waiting: %w", ctx.Err())
		}
	}
}
