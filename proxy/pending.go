package proxy

import (
	"sync"
	"time"
)

// pending is a command sent upstream whose reply has not come back.
type pending struct {
	cmd   command
	locks []string
	sent  time.Time
	// untraced: a plain command beyond the trace's rate (takePlain):
	// its reply is passed on and not recorded.
	untraced bool
	// read: the command's lock keys are read after it on its connection
	// (inlineRead); inline: this entry is one of that read's replies.
	read   *inlineRead
	inline *inlinePart
	// unread: sent without a read after it (session.forward): a SET
	// whose state its OK would give (setStateIfOK), on a key the analyzer
	// last saw absent (answered otherwise: analyzer.unchanged), or a
	// command of readOnLock (analyzer.unchanged).
	unread bool
	// inTx: sent inside the client's MULTI (after it, before its EXEC or
	// DISCARD); answered QUEUED, it runs at EXEC (session.record).
	inTx bool
}

// pendingQueue is a session's commands awaiting replies, oldest first: at
// most maxPipeline, in a ring that grows as the client pipelines more (a
// connection that sends one command at a time keeps a small one).
type pendingQueue struct {
	mu   sync.Mutex
	buf  []pending
	head int
	n    int
	room chan struct{} // a full queue gave one up
}

func newPendingQueue() *pendingQueue { return &pendingQueue{room: make(chan struct{}, 1)} }

// push appends p; false when maxPipeline commands await replies.
func (q *pendingQueue) push(p pending) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n >= maxPipeline {
		return false
	}
	if q.n == len(q.buf) {
		grown := make([]pending, min(max(8, 2*len(q.buf)), maxPipeline))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = p
	q.n++
	return true
}

// pushAll appends all of ps or, when fewer than len(ps) fit under
// maxPipeline, none (false).
func (q *pendingQueue) pushAll(ps []pending) bool {
	q.mu.Lock()
	room := maxPipeline - q.n
	q.mu.Unlock()
	if room < len(ps) {
		return false
	}
	for _, p := range ps {
		if !q.push(p) { // only the reader goroutine pushes: room stays
			return false
		}
	}
	return true
}

// peekInline is the oldest entry's inline part (nil when it is a
// client's command, or none awaits a reply).
func (q *pendingQueue) peekInline() *inlinePart {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return nil
	}
	return q.buf[q.head].inline
}

// inlineReads are the inline reads of the entries awaiting replies.
func (q *pendingQueue) inlineReads() []*inlineRead {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*inlineRead
	for i := range q.n {
		p := q.buf[(q.head+i)%len(q.buf)]
		switch {
		case p.read != nil:
			out = append(out, p.read)
		case p.inline != nil && p.inline.exec:
			out = append(out, p.inline.r)
		}
	}
	return out
}

// pop takes the oldest; false when none awaits a reply.
func (q *pendingQueue) pop() (pending, bool) {
	q.mu.Lock()
	if q.n == 0 {
		q.mu.Unlock()
		return pending{}, false
	}
	p := q.buf[q.head]
	q.buf[q.head] = pending{}
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	full := q.n+1 == maxPipeline
	if q.n == 0 && len(q.buf) > 64 {
		q.buf, q.head = nil, 0 // a burst of pipelining is over
	}
	q.mu.Unlock()
	if full {
		select {
		case q.room <- struct{}{}:
		default:
		}
	}
	return p, true
}
