package realclients

import (
	"time"

	"github.com/alicebob/miniredis/v2"
)

// MiniredisClock makes m's keys expire in real time: every interval it
// moves m's clock (FastForward) by the wall time that passed. A miniredis
// left alone never expires a key, as its TTLs only move by FastForward,
// so a real client's lease would never run out on it. It returns stop,
// which ends the ticking and waits for it.
func MiniredisClock(m *miniredis.Miniredis, every time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				m.FastForward(now.Sub(last))
				last = now
			}
		}
	}()
	return func() { close(quit); <-done }
}
