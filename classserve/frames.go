package classserve

import (
	"context"
	"slices"
	"sync"

	"github.com/gorilla/websocket"

	"lockstep/sim"
)

// classFrames are the frame messages of one class's steps that its
// following students on this server share: each is drawn from the course
// lesson's cached run (prerender.go), encoded once and framed once
// (gorilla's PreparedMessage, which also compresses once per kind of
// connection that compresses), and sent as it is to every student who
// shows the step it comes from in the same language. Without it a class of
// 10,000 students ran 10,000 lessons and drew and encoded each step 10,000
// times (docs/performance.md, the class rows of `make bench`).
//
// A message either takes a page from one step to another (a frame without
// chrome, only what changed: from >= 0) or gives a page everything, chrome
// included (from < 0): a student who joins, changes language, comes back
// to the class or missed a move. What a frame without chrome leaves out
// depends only on the step the page shows (view/delta.go: the page patched
// step by step shows what a frame with chrome would), so one message fits
// every student who shows that step.
type classFrames struct {
	// mu: read-locked by the students of a move, who find their message
	// drawn; locked to add one.
	mu   sync.RWMutex
	msgs map[classFrameKey]*classFrame
}

// classFramesKept bounds the messages kept per class: a class moves to one
// step at a time, its students come from a few steps, in up to three
// languages.
const classFramesKept = 64

type classFrameKey struct {
	class    string
	lesson   string
	locale   sim.Locale
	from, to int
}

type classFrame struct {
	once sync.Once
	pm   *websocket.PreparedMessage
	err  error
}

// locales are the languages of the messages kept.
func (c *classFrames) locales() []sim.Locale {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []sim.Locale
	for k := range c.msgs {
		if !slices.Contains(out, k.locale) {
			out = append(out, k.locale)
		}
	}
	return out
}

// message returns the shared frame message of course lesson l's step to in
// locale loc for a page of class's students that shows step from (-1: a
// page that shows nothing of it yet), drawing it the first time (within
// Config.DrawTimeout). Concurrent callers of one message wait for the first to
// draw it; the others, 10,000 on a move of a large class, make no context
// or timer of their own.
func (c *classFrames) message(srv *Hub, l *sim.Lesson, loc sim.Locale, from, to int, class string) (*websocket.PreparedMessage, error) {
	key := classFrameKey{class, l.ID, loc, from, to}
	c.mu.RLock()
	f := c.msgs[key]
	c.mu.RUnlock()
	if f == nil {
		c.mu.Lock()
		if c.msgs == nil || len(c.msgs) >= classFramesKept {
			c.msgs = map[classFrameKey]*classFrame{}
		}
		if f = c.msgs[key]; f == nil {
			f = &classFrame{}
			c.msgs[key] = f
		}
		c.mu.Unlock()
	}
	f.once.Do(func() {
		ctx, cancel := context.WithTimeout(srv.ctx, srv.cfg.DrawTimeout)
		defer cancel()
		f.pm, f.err = srv.drawClassFrame(ctx, l, loc, from, to, class)
	})
	if f.err != nil {
		c.mu.Lock()
		if c.msgs[key] == f {
			delete(c.msgs, key) // not kept: the next caller tries again
		}
		c.mu.Unlock()
	}
	return f.pm, f.err
}

// drawClassFrame draws and encodes the frame message of course lesson l's
// step to, as a session that showed step from (-1: nothing) would send it
// after a seek (re 0, not playing) to a student of class.
func (s *Hub) drawClassFrame(ctx context.Context, l *sim.Lesson, loc sim.Locale, from, to int, class string) (*websocket.PreparedMessage, error) {
	b, err := s.cfg.Host.FrameJSON(ctx, l, loc, from, to, class)
	if err != nil {
		return nil, err
	}
	return websocket.NewPreparedMessage(websocket.TextMessage, b)
}
