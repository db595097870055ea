package classbus

import "sync"

// subscription is what the subscriptions of Memory and Redis share: the
// channel the subscriber reads, the error it ended with, and the bus's
// mutex that guards that error. Each bus embeds it in its own
// subscription type and sets leave.
type subscription struct {
	mu *sync.Mutex // the bus's
	ch chan []byte
	// Guarded by mu.
	err   error  // set before ch is closed
	leave func() // takes the subscription off its bus (nil error); mu is held
}

func (s *subscription) C() <-chan []byte { return s.ch }

func (s *subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *subscription) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leave()
	return nil
}
