//go:build unix

package redistest

import (
	"syscall"
	"testing"
)

// Pause stops the server's process (SIGSTOP) without closing its
// connections: a Redis that hangs, which clients notice only by their
// timeouts, unlike one killed (Stop), whose connections end at once.
func (s *Server) Pause(tb testing.TB) {
	tb.Helper()
	s.signal(tb, syscall.SIGSTOP)
}

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume(tb testing.TB) {
	tb.Helper()
	s.signal(tb, syscall.SIGCONT)
}

func (s *Server) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	if s.cmd == nil || s.cmd.Process == nil {
		tb.Fatalf("redistest: the server at %s is not running", s.Addr)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("redistest: %v to the server at %s: %v", sig, s.Addr, err)
	}
}
