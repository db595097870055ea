package proxy

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotPaused is wrapped by Resume's error when none of the clients it
// names is paused.
var ErrNotPaused = errors.New("proxy: not paused")

// Resume ends the pause of the matching clients now, before its duration
// is over: their held requests and replies move on, in order. Ending a
// pause by its event rather than by a clock lets a caller (a test, the
// page) order what happens while a client is stopped without guessing how
// long that takes on a loaded machine. An error wraps ErrNoClient when no
// open connection matches, ErrNotPaused when none of them is paused.
func (p *Proxy) Resume(client string) error {
	ss, err := p.match(client)
	if err != nil {
		return err
	}
	resumed := false
	for _, s := range ss {
		s.mu.Lock()
		g := s.gate
		s.mu.Unlock()
		if g != nil && p.endPause(s, g) {
			resumed = true
		}
	}
	if !resumed {
		return fmt.Errorf("%w: %q", ErrNotPaused, client)
	}
	return nil
}

// endPause ends the pause whose gate is g, once: by its timer (Pause) or
// by Resume, whichever comes first; it reports whether this call ended
// it. The end is traced before the held traffic moves on.
func (p *Proxy) endPause(s *session, g chan struct{}) bool {
	s.mu.Lock()
	if s.gate != g {
		s.mu.Unlock()
		return false
	}
	p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultPauseEnd, Lane: s.lane}})
	s.gate = nil
	s.mu.Unlock()
	close(g)
	return true
}
