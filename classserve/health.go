package classserve

import "time"

// busHealthEvery is how often an owned class looks at its bus's health,
// so that its presenter learns of an outage without moving the class.
const busHealthEvery = time.Second

// classBusDown reports whether the class bus says it cannot reach what
// carries it: a bus with an Err method (classbus.Redis.Err) that returns
// an error. classbus.Memory has none and is never down.
func (s *Hub) classBusDown() bool {
	h, ok := s.classBus.(interface{ Err() error })
	return ok && h.Err() != nil
}
