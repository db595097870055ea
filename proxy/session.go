package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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
	// Scripts are the digests of the first scripts (at most
	// maxLaneScripts, in the order first run) the client ran by EVAL or
	// EVALSHA: what the page knows its lock library by, however long ago.
	Scripts []string `json:"scripts,omitempty"`
}

// maxLaneScripts bounds ClientInfo.Scripts.
const maxLaneScripts = 8

// session is one client connection and its upstream: a shared one while
// it sends only sharable commands (shared.go), then its own, which keeps
// the client's protocol state (RESP3, SELECT, MULTI, subscriptions, AUTH)
// where the client set it; replies pass through byte for byte. Two goroutines move its traffic: readLoop reads
// the client's commands as cmdReader (redcon's parser) delimits them, a pipeline at a
// time, and writes them upstream in one write; replyLoop reads the
// upstream's replies and writes to the client all those that have arrived
// in one write.
type session struct {
	id   int64
	lane string
	p    *Proxy
	conn net.Conn   // the client
	cr   *cmdReader // the client's commands, readLoop only
	// up and upR are the client's own upstream connection, nil while it
	// is on sharedUp (shared.go); readLoop sets them, under mu.
	up       net.Conn
	upR      *bufio.Reader
	sharedUp *sharedUp
	queue    *pendingQueue
	upBuf    []byte // commands for the upstream, readLoop only
	upCount  int    // commands in upBuf, readLoop only
	// On a shared upstream: the replies handed over (inbox), the commands
	// sent and not yet answered (outstanding), and a signal when that
	// count reaches 0 (drained).
	inbox inbox
	// inboxTouched: the shared reader handed it replies it has not yet
	// woken it for (the shared reader's goroutine only).
	inboxTouched bool
	outstanding  atomic.Int64
	drained      chan struct{}

	wmu  sync.Mutex // client writes
	wbuf []byte     // replies not yet written to the client, under wmu
	// writing: a goroutine is writing to the client outside wmu
	// (drainWrites); what others add meanwhile goes out in its next
	// write. spare is the buffer the last write emptied. Under wmu.
	writing bool
	spare   []byte
	// rawConn is the client's socket for writes that never wait
	// (writeNow); nil when the connection has none.
	rawConn syscall.RawConn
	// armed: a fault (pause, delay, lost reply) was set on the client
	// once; from then on its replies take the path that checks for them
	// (pass), never the shared reader's (passInline).
	armed atomic.Bool
	// replyMu is held by whoever passes the client's replies from the
	// inbox (its reply goroutine, or the shared reader in passInline);
	// taken is what was taken from the inbox and not yet passed.
	replyMu sync.Mutex
	taken   taken

	mu       sync.Mutex
	info     ClientInfo
	gate     chan struct{} // closed when a pause ends; nil: not paused
	delay    time.Duration // added before each reply until delayEnd
	delayEnd time.Time
	loseNext bool
	closed   bool

	subscribed atomic.Bool
	inMulti    bool      // reader goroutine only
	watching   bool      // WATCH sent, no EXEC, DISCARD or UNWATCH since; reader goroutine only
	queued     []command // commands since MULTI, reader goroutine only

	// tx are the commands on lock keys and the scripts of the client's
	// open transaction that Redis answered QUEUED, and txQueued how many
	// commands it answered QUEUED since MULTI: they run at EXEC, whose
	// array carries their replies in that order (endTx). The reply path
	// only (record, one reply at a time); at most maxPipeline in tx.
	tx       []txCommand
	txQueued int
	// txShown are how the trace shows the replies of the commands
	// answered QUEUED since MULTI, in order (at most maxPipeline): EXEC's
	// array element by element (execShown). The reply path only.
	txShown []queuedShown

	// unanswered counts the client's commands whose replies are not yet
	// written to it; allAnswered (capacity 1) says it reached 0
	// (awaitReplies, for a client that closed its side).
	unanswered  atomic.Int64
	allAnswered chan struct{}

	done      chan struct{}
	closeOnce sync.Once
}

// maxWriteBatch is the most bytes of commands or replies the proxy
// gathers before one write.
const maxWriteBatch = 64 << 10

// runSession serves one accepted connection: it waits for the client's
// first commands (a connection that sends none gets no lane and no
// upstream connection), joins it to a shared upstream connection
// (shared.go: it leaves for its own at its first command that must not
// share one) and forwards.
func (p *Proxy) runSession(c net.Conn) {
	cr := newCmdReader(c)
	cmds, err := cr.next(nil)
	if len(cmds) == 0 {
		writeProtocolError(c, err)
		p.dropConn(c)
		return
	}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	s := &session{id: id, lane: "c" + strconv.FormatInt(id, 10), p: p, conn: c, cr: cr,
		queue: newPendingQueue(), done: make(chan struct{}), allAnswered: make(chan struct{}, 1), inbox: newInbox(), drained: make(chan struct{}, 1)}
	s.info = ClientInfo{Lane: s.lane, Addr: c.RemoteAddr().String(), Protocol: 2, Connected: time.Now()}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rawConn = rc
		}
	}
	u, err := p.shared(id)
	if err == nil && !u.join(s) {
		err = errUpstreamClosed
	}
	if err != nil {
		_, _ = c.Write([]byte("-ERR " + oneLine(err.Error()) + "\r\n"))
		p.dropConn(c)
		return
	}
	s.sharedUp = u
	p.mu.Lock()
	if p.ctx.Err() != nil { // Close began: it no longer sees new sessions
		p.mu.Unlock()
		u.leave(s)
		p.dropConn(c)
		return
	}
	p.sessions[id] = s
	delete(p.conns, c)
	p.mu.Unlock()
	info := s.info
	p.trace.add(Event{Kind: EventConnect, At: info.Connected, Lane: s.lane, Client: &info})
	go s.replyLoop(true)
	s.readLoop(cmds, err)
}

// writeProtocolError answers a client whose bytes are not RESP (cmdReader's
// protocol errors) with an error reply, as Redis does; a connection that
// ended says nothing.
func writeProtocolError(c net.Conn, err error) {
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne) {
		return
	}
	if pe := (*protocolError)(nil); errors.As(err, &pe) {
		_, _ = c.Write([]byte("-ERR Protocol error: " + oneLine(pe.reason) + "\r\n")) // Redis's words
		return
	}
	_, _ = c.Write([]byte("-ERR " + oneLine(err.Error()) + "\r\n"))
}

// oneLine keeps an error reply on one line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// readLoop forwards the client's commands upstream in order, from cmds
// and err, what the first read gave: the commands of each read (what the
// client pipelined) go out in one write, before the next read, which may
// wait. A read's commands are forwarded before its error ends the session
// (endRead).
func (s *session) readLoop(cmds []clientCommand, err error) {
	for {
		for _, cmd := range cmds {
			if !s.forward(cmd) {
				return
			}
		}
		if !s.flushUp() {
			return
		}
		if err != nil {
			s.endRead(err)
			return
		}
		s.cr.shrink()
		cmds, err = s.cr.next(cmds)
	}
}

// endRead ends the session whose client's reads ended with err. The
// client that closed its side (shutdown(SHUT_WR): nc -N, socat, Go's
// CloseWrite; or a close after its last commands), or that sent what
// Redis refuses, still gets the replies to what it sent before, as Redis
// answers what it parsed of its query buffer before the bad bytes, and
// then the protocol error.
func (s *session) endRead(err error) {
	var ne net.Error
	if !errors.Is(err, net.ErrClosed) && !errors.As(err, &ne) {
		s.awaitReplies(halfCloseWait)
	}
	writeProtocolError(s.conn, err)
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = nil
	}
	s.close(err)
}

// halfCloseWait bounds how long a client that closed its side waits for
// the replies to what it sent (a paused client's are held until its
// pause ends).
const halfCloseWait = 10 * time.Second

// awaitReplies waits until the reply to every command the client sent is
// written to it (unanswered is 0), the session ends, or d passes.
func (s *session) awaitReplies(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for s.unanswered.Load() > 0 {
		select {
		case <-s.allAnswered:
		case <-s.done:
			return
		case <-t.C:
			return
		}
	}
}

// answered counts a reply written to the client (pass), and tells
// awaitReplies when it was the last awaited.
func (s *session) answered() {
	if s.unanswered.Add(-1) == 0 {
		select {
		case s.allAnswered <- struct{}{}:
		default:
		}
	}
}

// forward notes one command, queues its pending reply and adds it to the
// upstream batch; false when the session ended.
func (s *session) forward(cmd clientCommand) bool {
	if isCluster(cmd.Args) {
		cmd.Raw = clusterRefusal(len(cmd.Args))
	}
	if s.armed.Load() {
		if s.holding() && !s.flushUp() {
			return false
		}
		if !s.waitGate() {
			return false
		}
	}
	if !s.inMulti && !s.armed.Load() && len(cmd.Raw) > 0 && cmd.Raw[0] == '*' && s.p.plainCommand(cmd.Args) && !s.p.trace.takePlain() {
		return s.queueCommand(pending{untraced: true}, cmd.Raw, true)
	}
	c := parseCommand(cmd.Args, s.p.script)
	if s.sharedUp != nil && !sharable[c.name] && !s.leaveShared() {
		return false
	}
	if c.script != nil && c.sha == "" {
		s.p.learn(c.script)
	}
	s.p.suggestLocks(c)
	s.noteClient(c)
	locks := s.lockKeys(c.keys)
	// Inside the client's MULTI a command is queued by Redis, not run:
	// answered QUEUED it runs at EXEC (record, endTx).
	inTx := s.inMulti && c.name != "MULTI" && c.name != "EXEC" && c.name != "DISCARD"
	switch {
	case c.name == "MULTI":
		if !s.inMulti { // a nested MULTI is refused and keeps the transaction
			s.inMulti, s.queued = true, nil
		}
	case c.name == "WATCH":
		s.watching = true
	case c.name == "UNWATCH":
		s.watching = false
	case c.name == "EXEC" || c.name == "DISCARD":
		defer func() { s.watching = false }()
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
		return s.queueCommand(pending{}, raw, false)
	}
	pend := pending{cmd: c, locks: dedupe(locks), sent: now, inTx: inTx}
	if len(pend.locks) > 0 && !inTx && readOnLock[c.name] {
		// A command that reads its lock keys and writes none (GET,
		// PTTL, WATCH, ...) leaves them as they were: the analyzer keeps
		// its view where the reply agrees with it (analyzer.unchanged).
		// A read after it would cost Redis and the proxy a transaction
		// a key and, while the client watches keys (when no inline read
		// may go on its connection), be done by the lock reader, which
		// may read after the client's next commands: redis-py's
		// check-and-delete (WATCH, GET, MULTI, DEL, EXEC) had its GET's
		// state read after the DEL and a lease-expired found that was
		// not (TestProxyRedisPyWatchRelease).
		pend.unread = true
		return s.queueCommand(pend, raw, true)
	}
	if len(pend.locks) == 0 || !s.inlineEligible(c) {
		return s.queueCommand(pend, raw, true)
	}
	if len(pend.locks) == 1 {
		if _, ok := setStateIfOK(c, pend.locks[0], now); ok && s.p.an.expectsOK(c, pend.locks[0]) {
			// A SET that most likely answers OK (NX on a key last seen
			// absent), which gives its state: a read after it would cost
			// Redis six commands and the proxy their replies, for nothing.
			pend.unread = true
			return s.queueCommand(pend, raw, true)
		}
	}
	pend.read = &inlineRead{keys: pend.locks[:min(len(pend.locks), maxInlineKeys)]}
	pend.read.left = len(pend.read.keys)
	return s.queueCommand(pend, raw, true) && s.queueInlineRead(pend.read)
}

// maxInlineKeys bounds the lock keys read after one command on its
// connection; a command naming more has the rest read by the lock reader.
const maxInlineKeys = 4

// queueCommand queues pend as awaiting its reply when awaits (a
// subscribe is answered by pushes) and adds raw to the upstream batch;
// false when the session ended.
func (s *session) queueCommand(pend pending, raw []byte, awaits bool) bool {
	if awaits {
		s.unanswered.Add(1)
		for !s.queue.push(pend) {
			// As many replies are awaited as the queue holds: send what
			// is gathered, then wait for room as on a full socket.
			if !s.flushUp() {
				return false
			}
			select {
			case <-s.queue.room:
			case <-s.done:
				return false
			}
		}
	}
	s.upBuf = append(s.upBuf, raw...)
	s.upCount++
	return len(s.upBuf) < maxWriteBatch || s.flushUp()
}

// flushUp writes the gathered commands upstream; false when the session
// ended.
func (s *session) flushUp() bool {
	if len(s.upBuf) == 0 {
		return true
	}
	var err error
	if s.sharedUp != nil {
		if !s.sharedUp.send(s, s.upBuf, s.upCount) {
			err = errUpstreamClosed
		}
	} else {
		_, err = s.up.Write(s.upBuf)
	}
	s.upCount = 0
	if cap(s.upBuf) > 4*maxWriteBatch {
		s.upBuf = nil
	} else {
		s.upBuf = s.upBuf[:0]
	}
	if err != nil {
		s.close(err)
		return false
	}
	return true
}

// replyLoop reads the upstream's replies, matches each to the oldest
// pending command (pushes answer none) and passes it to the client as it
// came, in one write for all the replies that have arrived; shared: the
// client starts on a shared upstream (replyShared).
func (s *session) replyLoop(shared bool) {
	if shared && !s.replyShared() {
		return
	}
	var raw []byte
	for {
		var v Value
		var err error
		raw, v, err = readUpstreamReply(s.upR, raw[:0], s.p.maxReply())
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = errUpstreamClosed
			}
			s.close(err)
			return
		}
		if !s.pass(raw, v, time.Now(), s.upR.Buffered() > 0, false) {
			return
		}
		if cap(raw) > maxWriteBatch {
			raw = nil
		}
	}
}

// pass passes one reply (raw, decoded v, come at replied) to the client:
// it waits out a pause or a delay, matches it to the oldest pending
// command, traces it, and writes it, at once unless more replies are at
// hand. False when the session ended.
//
// inline: the shared reader's goroutine calls it (passInline), on a
// client with no fault armed: it writes with writeNow and waits for
// nothing.
func (s *session) pass(raw []byte, v Value, replied time.Time, more, inline bool) bool {
	write := s.write
	if inline {
		write = s.writeNow
	}
	// The replies to an inline read are the proxy's own: taken before
	// any fault, never written to the client.
	if part := s.queue.peekInline(); part != nil && !s.isPush(v) {
		s.queue.pop()
		s.inlineReply(part, v, replied)
		write(nil, !more)
		return true
	}
	// A fault armed while the shared reader passes this reply holds
	// the next one (passReplies hands off to the client's goroutine).
	armed := !inline && s.armed.Load()
	if armed {
		if s.holding() {
			s.flush() // what came before the pause or delay goes out
		}
		if !s.waitGate() {
			return false
		}
		s.waitDelay()
	} else {
		select {
		case <-s.done:
			return false
		default:
		}
	}
	var pend pending
	ok := false
	if !s.isPush(v) {
		pend, ok = s.queue.pop()
	}
	if !ok {
		write(raw, !more)
		ev := &CommandEvent{Name: "(push)", Reply: pushShape(v), Sent: replied, Replied: replied}
		s.p.trace.add(Event{Kind: EventPush, At: replied, Lane: s.lane, Command: ev})
		return true
	}
	if armed && s.takeLoseNext() {
		if !pend.untraced { // an untraced command touches no lock
			s.record(&pend, raw, v, replied, true)
		}
		s.p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultLoseReply, Lane: s.lane}})
		s.close(errReplyLost)
		return false
	}
	// A command on a lock key is traced and handed to the analyzer
	// before its client sees the reply: what the client does next
	// (another client's acquire, a pause) comes after it in the trace.
	// Other commands are recorded after the write.
	if pend.untraced {
		write(raw, !more)
		s.answered()
		return true
	}
	lock := len(pend.locks) > 0
	if lock {
		s.record(&pend, raw, v, replied, false)
	}
	write(raw, !more)
	s.answered()
	if !lock {
		s.record(&pend, raw, v, replied, false)
	}
	return true
}

var (
	errUpstreamClosed = errors.New("proxy: the upstream closed the connection")
	errReplyLost      = errors.New("proxy: a fault dropped a reply and closed the connection")
)

// record adds the command's trace event and hands a command on lock keys
// to the analyzer.
//
// A command answered QUEUED inside the client's MULTI has not run: it is
// traced and kept for its EXEC (queueTx), not analyzed. EXEC's event
// carries the commands it ran with their replies from its array (endTx);
// DISCARD, an EXEC answered nil (a WATCH failed) or EXECABORT ran none.
func (s *session) record(pend *pending, raw []byte, v Value, replied time.Time, lost bool) {
	c := pend.cmd
	ev := &CommandEvent{Name: c.name, Args: c.traceArgs(len(pend.locks) > 0), Locks: pend.locks, Sent: pend.sent,
		Replied: replied, ReplyLost: lost, unread: pend.unread}
	queued := pend.inTx && !lost && isQueued(v)
	if !queued && !lost {
		s.noteName(c, v)
	}
	var hidden []string // what an error reply must not repeat: only an error's, a queued command's
	if v.IsError() || queued {
		hidden = hiddenArgs(c.args, ev.Args)
	}
	var showRaw bool
	if c.name == "EXEC" { // before endTx: its queued commands' replies, element by element
		ev.Reply, showRaw = execShown(v, s.txShown)
	} else {
		ev.Reply, showRaw = replyShown(v, hidden, len(pend.locks) > 0 || showsReply(c))
	}
	if showRaw {
		ev.Raw = string(raw[:min(len(raw), 4096)])
	}
	switch c.name {
	case "EXEC":
		ev.tx = s.endTx(v)
	case "DISCARD":
		s.endTx(Value{})
	case "MULTI":
		if v.Kind == '+' {
			s.endTx(Value{}) // a new transaction
		}
	}
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
	if ev.Script != "" && c.name != "SCRIPT LOAD" {
		s.noteScript(ev.Script)
	}
	e := s.p.trace.add(Event{Kind: EventCommand, At: pend.sent, Lane: s.lane, Command: ev})
	if queued {
		s.queueTx(pend, hidden, e.Seq)
		return
	}
	if pend.read != nil && !lost {
		s.recorded(pend.read, e)
		return
	}
	s.p.an.command(s, e)
}

// write adds raw to the client's replies and writes them when asked (or
// when they reach maxWriteBatch), waiting for the client's socket: the
// session's own goroutines only. While another write is under way it
// leaves them to that one (drainWrites).
func (s *session) write(raw []byte, flush bool) {
	s.wmu.Lock()
	s.wbuf = append(s.wbuf, raw...)
	if s.writing || (!flush && len(s.wbuf) < maxWriteBatch) {
		s.wmu.Unlock()
		return
	}
	s.writing = true
	s.drainWrites()
}

// writeNow is write for the shared reader's goroutine (passInline): it
// never waits for the client's socket. What the socket does not take at
// once goes out by a goroutine of the session's (a client that reads
// slowly holds up no other client), and a client whose unwritten replies
// pass maxInboxBytes is closed, as on the inbox.
func (s *session) writeNow(raw []byte, flush bool) {
	s.wmu.Lock()
	s.wbuf = append(s.wbuf, raw...)
	if len(s.wbuf) > maxInboxBytes {
		s.wmu.Unlock()
		go s.close(errInboxFull)
		return
	}
	if s.writing || (!flush && len(s.wbuf) < maxWriteBatch) {
		s.wmu.Unlock()
		return
	}
	n, err := tryWrite(s.rawConn, s.wbuf)
	switch {
	case err != nil:
		s.wbuf = s.wbuf[:0]
		s.wmu.Unlock()
		go s.close(err)
	case n == len(s.wbuf):
		s.wbuf = s.wbuf[:0]
		s.wmu.Unlock()
	default:
		s.wbuf = append(s.wbuf[:0], s.wbuf[n:]...)
		s.writing = true
		s.wmu.Unlock()
		go func() {
			s.wmu.Lock()
			s.drainWrites()
		}()
	}
}

// drainWrites writes the gathered replies until none are left, outside
// wmu, so that others add theirs meanwhile; called with wmu held and
// writing set, it returns with wmu released and writing cleared.
func (s *session) drainWrites() {
	for len(s.wbuf) > 0 {
		out := s.wbuf
		s.wbuf = s.spare[:0]
		s.spare = nil
		s.wmu.Unlock()
		_, err := s.conn.Write(out)
		s.wmu.Lock()
		if cap(out) <= 4*maxWriteBatch {
			s.spare = out[:0]
		}
		if err != nil {
			s.wbuf = s.wbuf[:0]
			s.writing = false
			s.wmu.Unlock()
			go s.close(err)
			return
		}
	}
	s.writing = false
	s.wmu.Unlock()
}

// tryWrite writes what the socket takes of b at once, without waiting
// for room: n is how much (0 when it takes none).
func tryWrite(rc syscall.RawConn, b []byte) (n int, err error) {
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true // done: never wait for the socket here
			}
		}
	}); err != nil {
		return 0, err
	}
	if werr == syscall.EAGAIN {
		return 0, nil
	}
	return max(n, 0), werr
}

// flushLocked writes the gathered replies when no write is under way;
// called with wmu held (close). It does not wait for the client's
// socket when it has a raw one: the shared reader may be waiting for wmu,
// and a client that stopped reading must not hold it.
func (s *session) flushLocked() error {
	if len(s.wbuf) == 0 || s.writing {
		return nil
	}
	var err error
	if s.rawConn != nil {
		_, err = tryWrite(s.rawConn, s.wbuf)
	} else {
		_, err = s.conn.Write(s.wbuf)
	}
	s.wbuf = s.wbuf[:0]
	return err
}

// flush writes the replies gathered so far.
func (s *session) flush() { s.write(nil, true) }

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

// noteClient records the protocol a HELLO asks for as it is sent: the
// replies after it come in that protocol (and inline reads are only for
// RESP2, inlineEligible). What the client calls itself is noted when Redis
// accepts it (noteName).
func (s *session) noteClient(c command) {
	if c.name != "HELLO" || len(c.args) < 2 {
		return
	}
	n, err := strconv.Atoi(c.args[1])
	if err != nil || (n != 2 && n != 3) {
		return
	}
	s.mu.Lock()
	s.info.Protocol = n
	info := s.info
	s.mu.Unlock()
	s.p.trace.add(Event{Kind: EventClient, At: time.Now(), Lane: s.lane, Client: &info})
}

// noteName records what the client says about itself once Redis
// answered c with v: its name (CLIENT SETNAME, HELLO ... SETNAME) when
// Redis took it (a refused name is not the lane's), and the library it
// declares (CLIENT SETINFO LIB-NAME / LIB-VER) even when refused, as by
// Redis before 7.2 and miniredis, which have no SETINFO: the lane says
// which library the client is, which it told either way.
func (s *session) noteName(c command, v Value) {
	if c.name != "HELLO" && c.name != "CLIENT SETNAME" && c.name != "CLIENT SETINFO" {
		return
	}
	if c.name != "CLIENT SETINFO" && (v.IsError() || v.Null) {
		return
	}
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
		for i := 2; i+1 < len(c.args); i++ {
			if strings.EqualFold(c.args[i], "SETNAME") {
				s.info.Name, changed = c.args[i+1], true
			}
		}
	default:
		changed = false
	}
	if !changed {
		s.mu.Unlock()
		return
	}
	info := s.info
	s.mu.Unlock()
	s.p.trace.add(Event{Kind: EventClient, At: time.Now(), Lane: s.lane, Client: &info})
}

// holding reports whether a pause or a delay holds the client's traffic.
func (s *session) holding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate != nil || (s.delay > 0 && time.Now().Before(s.delayEnd))
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
	info := s.info
	info.Scripts = slices.Clone(info.Scripts)
	return info
}

// noteScript adds the digest of a script the client ran to its lane's
// ClientInfo.Scripts, the first maxLaneScripts distinct ones.
func (s *session) noteScript(sha string) {
	s.mu.Lock()
	if len(s.info.Scripts) < maxLaneScripts && !slices.Contains(s.info.Scripts, sha) {
		s.info.Scripts = append(s.info.Scripts, sha)
	}
	s.mu.Unlock()
}

// close ends the session once: both connections, the trace's close event
// (err says why, nil when the client closed).
func (s *session) close(err error) {
	s.closeOnce.Do(func() {
		close(s.done)
		s.wmu.Lock()
		_ = s.flushLocked()
		s.conn.Close()
		s.wmu.Unlock()
		s.mu.Lock()
		s.closed = true
		up, shared := s.up, s.sharedUp
		s.mu.Unlock()
		if up != nil {
			up.Close()
		}
		if shared != nil {
			shared.leave(s)
		}
		for _, r := range s.queue.inlineReads() {
			s.abandonInline(r) // their reads will not come back
		}
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
