package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

// ClientInfo describes one client connection: its lane on the timeline.
type ClientInfo struct {
	Lane string `json:"lane"` // "c1", "c2", ... in the order of connection
	Addr string `json:"addr"`
	// Name is what CLIENT SETNAME (or HELLO ... SETNAME) gave; Library and
	// LibraryVersion what CLIENT SETINFO LIB-NAME / LIB-VER gave.
	Name           string    `json:"name,omitempty"`
	Library        string    `json:"library,omitempty"`
	LibraryVersion string    `json:"library_version,omitempty"`
	Protocol       int       `json:"protocol"` // 2, or 3 after HELLO 3
	Connected      time.Time `json:"connected"`
	Closed         time.Time `json:"closed,omitzero"`
}

// pending is a command sent upstream whose reply has not come back.
type pending struct {
	cmd   command
	locks []string
	sent  time.Time
}

// session is one client connection and its own upstream connection: a
// per-client upstream keeps every client's protocol state (RESP3, SELECT,
// MULTI, subscriptions, AUTH) where the client set it, and replies pass
// through byte for byte.
type session struct {
	id    int64
	lane  string
	p     *Proxy
	dc    redcon.DetachedConn
	up    net.Conn
	upR   *bufio.Reader
	queue chan *pending
	out   chan []byte // commands for the upstream, in order

	wmu sync.Mutex // client writes

	mu       sync.Mutex
	info     ClientInfo
	gate     chan struct{} // closed when a pause ends; nil: not paused
	delay    time.Duration // added before each reply until delayEnd
	delayEnd time.Time
	loseNext bool

	subscribed atomic.Bool
	inMulti    bool      // reader goroutine only
	queued     []command // commands since MULTI, reader goroutine only

	done      chan struct{}
	closeOnce sync.Once
}

func (p *Proxy) runSession(id int64, dc redcon.DetachedConn, first redcon.Command) {
	s := &session{id: id, lane: "c" + strconv.FormatInt(id, 10), p: p, dc: dc,
		queue: make(chan *pending, maxPipeline), out: make(chan []byte, maxPipeline), done: make(chan struct{})}
	s.info = ClientInfo{Lane: s.lane, Addr: dc.RemoteAddr(), Protocol: 2, Connected: time.Now()}
	p.miniMu.Lock() // not while the embedded upstream restarts
	up, upR, err := p.dialUpstream(p.ctx)
	p.miniMu.Unlock()
	if err != nil {
		dc.WriteError("ERR " + err.Error())
		_ = dc.Flush()
		dc.Close()
		p.clients.Add(-1)
		return
	}
	s.up, s.upR = up, upR
	p.mu.Lock()
	p.sessions[id] = s
	p.mu.Unlock()
	info := s.info
	p.trace.add(Event{Kind: EventConnect, At: info.Connected, Lane: s.lane, Client: &info})
	go s.replyLoop()
	go s.writeLoop()
	s.readLoop(first)
}

// writeLoop writes the client's commands upstream, as many as have
// arrived in one write: a pipeline goes out as the client sent it, not one
// system call per command.
func (s *session) writeLoop() {
	var buf []byte
	for {
		select {
		case b := <-s.out:
			buf = append(buf[:0], b...)
		case <-s.done:
			return
		}
	more:
		for len(buf) < 64<<10 {
			select {
			case b := <-s.out:
				buf = append(buf, b...)
			default:
				break more
			}
		}
		if _, err := s.up.Write(buf); err != nil {
			s.close(err)
			return
		}
		if cap(buf) > 1<<20 {
			buf = nil
		}
	}
}

// readLoop forwards the client's commands upstream in order.
func (s *session) readLoop(cmd redcon.Command) {
	for {
		if !s.waitGate() {
			return
		}
		c := parseCommand(cmd.Args, s.p.script)
		if c.script != nil && c.sha == "" {
			s.p.learn(c.script)
		}
		s.p.suggestLocks(c)
		s.noteClient(c)
		locks := s.lockKeys(c.keys)
		switch {
		case c.name == "MULTI":
			s.inMulti, s.queued = true, nil
		case c.name == "EXEC" || c.name == "DISCARD":
			if c.name == "EXEC" {
				for _, q := range s.queued {
					locks = append(locks, s.lockKeys(q.keys)...)
				}
			}
			s.inMulti, s.queued = false, nil
		case s.inMulti && len(s.queued) < maxPipeline:
			s.queued = append(s.queued, c)
		}
		raw := cmd.Raw
		if len(raw) == 0 || raw[0] != '*' {
			raw = encodeCommand(c.args) // an inline command
		}
		now := time.Now()
		if c.subscribe {
			s.subscribed.Store(true)
			ev := &CommandEvent{Name: c.name, Args: c.traceArgs(false), Sent: now, Replied: now, Reply: "(push)", cmd: c}
			s.p.trace.add(Event{Kind: EventCommand, At: now, Lane: s.lane, Command: ev})
		} else {
			select {
			case s.queue <- &pending{cmd: c, locks: dedupe(locks), sent: now}:
			case <-s.done:
				return
			}
		}
		select {
		case s.out <- append([]byte(nil), raw...):
		case <-s.done:
			return
		}
		var err error
		if cmd, err = s.dc.ReadCommand(); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = nil
			}
			s.close(err)
			return
		}
	}
}

// replyLoop reads the upstream's replies, matches each to the oldest
// pending command (pushes answer none) and writes it to the client as it
// came.
func (s *session) replyLoop() {
	for {
		raw, v, err := readReply(s.upR)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = errUpstreamClosed
			}
			s.close(err)
			return
		}
		replied := time.Now()
		if !s.waitGate() {
			return
		}
		s.waitDelay()
		var pend *pending
		if !s.isPush(v) {
			select {
			case pend = <-s.queue:
			default:
			}
		}
		if pend == nil {
			s.write(raw, true)
			ev := &CommandEvent{Name: "(push)", Reply: pushShape(v), Sent: replied, Replied: replied}
			s.p.trace.add(Event{Kind: EventPush, At: replied, Lane: s.lane, Command: ev})
			continue
		}
		if s.takeLoseNext() {
			s.record(pend, raw, v, replied, true)
			s.p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultLoseReply, Lane: s.lane}})
			s.close(errReplyLost)
			return
		}
		s.write(raw, s.upR.Buffered() == 0)
		s.record(pend, raw, v, replied, false)
	}
}

var (
	errUpstreamClosed = errors.New("proxy: the upstream closed the connection")
	errReplyLost      = errors.New("proxy: a fault dropped a reply and closed the connection")
)

// record adds the command's trace event and hands a command on lock keys
// to the analyzer.
func (s *session) record(pend *pending, raw []byte, v Value, replied time.Time, lost bool) {
	c := pend.cmd
	ev := &CommandEvent{Name: c.name, Args: c.traceArgs(len(pend.locks) > 0), Locks: pend.locks, Sent: pend.sent,
		Replied: replied, ReplyLost: lost}
	if len(pend.locks) > 0 || c.script != nil || scriptCommands[c.name] {
		// Kept for the analyzer and SaveLesson; other commands keep only
		// what the trace shows.
		ev.value, ev.cmd = v, c
	}
	if c.script != nil {
		ev.Script = c.script.SHA
	} else if c.sha != "" {
		ev.Script = c.sha
	}
	if len(pend.locks) > 0 || keyless[c.name] || strings.HasPrefix(c.name, "CLIENT ") || c.name == "SCRIPT LOAD" {
		ev.Reply = v.String()
		ev.Raw = string(raw[:min(len(raw), 4096)])
	} else {
		ev.Reply = shape(v)
	}
	e := s.p.trace.add(Event{Kind: EventCommand, At: pend.sent, Lane: s.lane, Command: ev})
	s.p.an.command(s, e)
}

// write sends raw to the client, flushing when asked.
func (s *session) write(raw []byte, flush bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.dc.WriteRaw(raw)
	if flush {
		if err := s.dc.Flush(); err != nil {
			go s.close(err)
		}
	}
}

// isPush reports whether v answers no command: a RESP3 push, or under
// RESP2 on a subscribed connection a message or a (un)subscribe
// confirmation.
func (s *session) isPush(v Value) bool {
	if v.IsPush() {
		return true
	}
	if !s.subscribed.Load() || v.Kind != '*' || len(v.Elems) == 0 {
		return false
	}
	switch strings.ToLower(v.Elems[0].Str) {
	case "message", "pmessage", "smessage", "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe":
		return true
	}
	return false
}

// pushShape describes a push without its payload (a value): its kind and
// channel.
func pushShape(v Value) string {
	var parts []string
	for i, e := range v.Elems {
		if i >= 2 {
			break
		}
		parts = append(parts, e.Str)
	}
	return "push [" + strings.Join(parts, " ") + " …]"
}

// shape describes a reply without its value: "(bulk string)", "(integer) 1"
// keeps only small facts that are not a key's contents.
func shape(v Value) string {
	switch {
	case v.Null:
		return "(nil)"
	case v.IsError():
		return v.String()
	}
	switch v.Kind {
	case '+':
		return v.Str
	case ':':
		return v.String()
	case '*', '%', '~':
		return "(" + strconv.Itoa(len(v.Elems)) + " elements)"
	}
	return "(value)"
}

// lockKeys are the keys among keys that are locks.
func (s *session) lockKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if s.p.isLock(k) {
			out = append(out, k)
		}
	}
	return out
}

func dedupe(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	seen := map[string]bool{}
	out := keys[:0:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// noteClient records what the client says about itself.
func (s *session) noteClient(c command) {
	s.mu.Lock()
	changed := true
	switch {
	case c.name == "CLIENT SETNAME" && len(c.args) >= 3:
		s.info.Name = c.args[2]
	case c.name == "CLIENT SETINFO" && len(c.args) >= 4 && strings.EqualFold(c.args[2], "LIB-NAME"):
		s.info.Library = c.args[3]
	case c.name == "CLIENT SETINFO" && len(c.args) >= 4 && strings.EqualFold(c.args[2], "LIB-VER"):
		s.info.LibraryVersion = c.args[3]
	case c.name == "HELLO":
		changed = false
		if len(c.args) >= 2 {
			if n, err := strconv.Atoi(c.args[1]); err == nil && (n == 2 || n == 3) {
				s.info.Protocol, changed = n, true
			}
		}
		for i := 2; i+1 < len(c.args); i++ {
			if strings.EqualFold(c.args[i], "SETNAME") {
				s.info.Name, changed = c.args[i+1], true
			}
		}
	default:
		changed = false
	}
	info := s.info
	s.mu.Unlock()
	if changed {
		s.p.trace.add(Event{Kind: EventClient, At: time.Now(), Lane: s.lane, Client: &info})
	}
}

// waitGate waits while the client is paused; false when the session ended.
func (s *session) waitGate() bool {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-s.done:
			return false
		}
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// waitDelay holds a reply while a delay fault lasts.
func (s *session) waitDelay() {
	s.mu.Lock()
	d, end := s.delay, s.delayEnd
	s.mu.Unlock()
	if d <= 0 || time.Now().After(end) {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
	}
}

func (s *session) takeLoseNext() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	lose := s.loseNext
	s.loseNext = false
	return lose
}

// clientInfo returns a copy of the client's description.
func (s *session) clientInfo() ClientInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// close ends the session once: both connections, the trace's close event
// (err says why, nil when the client closed).
func (s *session) close(err error) {
	s.closeOnce.Do(func() {
		close(s.done)
		s.wmu.Lock()
		_ = s.dc.Flush()
		s.dc.Close()
		s.wmu.Unlock()
		s.up.Close()
		s.p.clients.Add(-1)
		s.mu.Lock()
		s.info.Closed = time.Now()
		info := s.info
		s.mu.Unlock()
		s.p.retire(s, info)
		e := Event{Kind: EventClose, At: info.Closed, Lane: s.lane, Client: &info}
		if err != nil {
			e.Error = err.Error()
		}
		s.p.trace.add(e)
	})
}
