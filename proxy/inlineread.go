package proxy

import (
	"context"
	"sync"
	"time"

	"github.com/tidwall/redcon"
)

// inlineRead is the read of a command's lock keys sent on the command's
// own upstream connection, right after it (MULTI PTTL GET HGETALL EXEC
// per key: appendInlineTx): Redis runs a connection's commands in order, so no later
// command of the same client can run between the command and its read,
// whereas the lock reader's own connection (analyzer.read) may read after
// the client's next command (a release read as the next acquire's hold:
// the REENTERED that TestProxyRedlockLostUnlockReply saw now and then).
// The client never sees the read's replies. The command's event goes to
// the analyzer with the states once the last EXEC is back; a session that
// ends first hands it over without them (read by the lock reader).
type inlineRead struct {
	keys []string

	mu     sync.Mutex
	states lockStates // once read
	left   int        // EXEC replies not yet back
	ev     *Event     // the command's event, once recorded
	handed bool       // given to the analyzer
	// counted: recorded before its reads were back, so counted in
	// Proxy.inlineAwaited until handed.
	counted bool
}

// lockStates are the states an inline read took, one a key (at most
// maxInlineKeys): a slice, as a map of so few LockStates (8 slots a
// bucket) allocated about 1 KiB a traced command.
type lockStates []LockState

// get is key's state; false when it was not read.
func (ls lockStates) get(key string) (LockState, bool) {
	for _, st := range ls {
		if st.Key == key {
			return st, true
		}
	}
	return LockState{}, false
}

// inlinePart says which reply of an inline read a pending entry awaits:
// key's EXEC carries the state, the others only answer MULTI and QUEUED.
type inlinePart struct {
	r    *inlineRead
	key  string
	exec bool
}

// readTxLen is how many commands appendReadTx writes (as many replies);
// inlineTxLen how many appendInlineTx writes.
const (
	readTxLen   = 6
	inlineTxLen = 5
)

// appendReadTx appends the read of key's state as one transaction (MULTI
// TYPE PTTL GET HGETALL EXEC, so that the key cannot expire between them)
// to b: lockStateFromExec reads EXEC's reply.
func appendReadTx(b []byte, key string) []byte {
	return appendTx(b, key, "TYPE", "PTTL", "GET", "HGETALL")
}

// appendInlineTx appends the inline read of key's state (MULTI PTTL GET
// HGETALL EXEC): appendReadTx without TYPE, one command fewer for Redis
// to run and the proxy to parse after every traced command. The type is
// told by which of GET and HGETALL answered WRONGTYPE (lockStateFromExec);
// a key of another type is read again by the lock reader, with TYPE.
func appendInlineTx(b []byte, key string) []byte {
	return appendTx(b, key, "PTTL", "GET", "HGETALL")
}

// appendTx appends MULTI, each of reads on key, and EXEC to b.
func appendTx(b []byte, key string, reads ...string) []byte {
	b = redcon.AppendArray(b, 1)
	b = redcon.AppendBulkString(b, "MULTI")
	for _, r := range reads {
		b = redcon.AppendArray(b, 2)
		b = redcon.AppendBulkString(b, r)
		b = redcon.AppendBulkString(b, key)
	}
	b = redcon.AppendArray(b, 1)
	return redcon.AppendBulkString(b, "EXEC")
}

// inlineEligible reports whether a command with lock keys may have its
// read sent after it on the client's connection: not inside the client's
// own MULTI (queued, not run; our MULTI would nest), not WATCH or while
// keys are watched (our EXEC would end the client's WATCH), not in
// subscribe mode, and only on RESP2 (the read's replies are parsed as
// RESP2's).
func (s *session) inlineEligible(c command) bool {
	if s.inMulti || s.watching || s.subscribed.Load() || c.name == "WATCH" || c.name == "MULTI" || c.subscribe {
		return false
	}
	s.mu.Lock()
	proto := s.info.Protocol
	s.mu.Unlock()
	return proto == 2
}

// queueInlineRead adds r's read after the command just queued; false when
// the session ended. Each key's transaction goes into one upstream write
// whole: on a shared upstream connection another client's command sent
// between its MULTI and EXEC would be queued in it.
func (s *session) queueInlineRead(r *inlineRead) bool {
	for _, k := range r.keys {
		var parts [inlineTxLen]pending
		queued := &inlinePart{r: r, key: k} // MULTI's and the reads' replies
		for i := range parts {
			parts[i] = pending{inline: queued}
		}
		parts[inlineTxLen-1].inline = &inlinePart{r: r, key: k, exec: true}
		for !s.queue.pushAll(parts[:]) {
			if !s.flushUp() {
				return false
			}
			select {
			case <-s.queue.room:
			case <-s.done:
				return false
			}
		}
		s.upBuf = appendInlineTx(s.upBuf, k)
		s.upCount += len(parts)
		if len(s.upBuf) >= maxWriteBatch && !s.flushUp() {
			return false
		}
	}
	return true
}

// inlineReply takes one reply of an inline read (replied: when it came).
func (s *session) inlineReply(part *inlinePart, v Value, replied time.Time) {
	if !part.exec {
		return
	}
	r := part.r
	st, err := lockStateFromExec(part.key, v, replied)
	r.mu.Lock()
	if err == nil {
		r.states = append(r.states, st)
	}
	r.left--
	s.handInline(r)
}

// recorded notes the command's event; it goes to the analyzer now if
// its reads are back (or will not come).
func (s *session) recorded(r *inlineRead, e Event) {
	r.mu.Lock()
	r.ev = &e
	if r.left > 0 {
		r.counted = true
		s.p.inlineAwaited.Add(1)
	}
	s.handInline(r)
}

// handInline gives the command to the analyzer, with the states read,
// once both its event and its reads are in; called with r.mu held, which
// it releases.
func (s *session) handInline(r *inlineRead) {
	if r.handed || r.ev == nil || r.left > 0 {
		r.mu.Unlock()
		return
	}
	r.handed = true
	e, states, counted := *r.ev, r.states, r.counted
	r.mu.Unlock()
	s.p.an.commandRead(s, e, states)
	if counted {
		s.p.inlineAwaited.Add(-1)
	}
}

// awaitInline waits (at most 2 s, or until ctx ends) until every
// command recorded so far was handed to the analyzer: a client may have
// seen a command's reply while the read after it is still on its way,
// and a save or a test then reading the trace would miss its state.
func (p *Proxy) awaitInline(ctx context.Context) {
	if p.inlineAwaited.Load() == 0 {
		return
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	deadline := time.After(2 * time.Second)
	for p.inlineAwaited.Load() > 0 {
		select {
		case <-t.C:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		}
	}
}

// abandonInline hands over, without states, the commands whose reads
// will not come back (the session ended); the lock reader reads them.
func (s *session) abandonInline(r *inlineRead) {
	r.mu.Lock()
	r.left = 0
	s.handInline(r)
}
