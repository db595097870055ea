package redistest

import (
	"bufio"
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Monitor records every command a server runs (Redis's MONITOR), from
// clients and from scripts, until Stop.
type Monitor struct {
	conn net.Conn
	mu   sync.Mutex
	cmds []MonitoredCommand
	done chan struct{}
}

// MonitoredCommand is one command MONITOR showed: its arguments, the first
// one the command name as sent, and whether a script ran it ("lua").
type MonitoredCommand struct {
	Args   []string
	Script bool
}

// Monitor starts MONITOR on the server as the default user, waits until the
// server acknowledges it, and stops it at test end.
func (s *Server) Monitor(tb testing.TB) *Monitor {
	tb.Helper()
	var conn net.Conn
	var err error
	d := &net.Dialer{Timeout: 2 * time.Second}
	if s.TLS != nil {
		conn, err = tls.DialWithDialer(d, "tcp", s.Addr, s.TLS)
	} else {
		conn, err = d.Dial("tcp", s.Addr)
	}
	if err != nil {
		tb.Fatalf("redistest: monitor %s: %v", s.Addr, err)
	}
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		tb.Fatalf("redistest: monitor %s: %v", s.Addr, err)
	}
	r := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "+OK") {
		tb.Fatalf("redistest: MONITOR at %s answered %q, %v", s.Addr, line, err)
	}
	conn.SetReadDeadline(time.Time{})
	m := &Monitor{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if c, ok := parseMonitorLine(strings.TrimRight(line, "\r\n")); ok {
				m.mu.Lock()
				m.cmds = append(m.cmds, c)
				m.mu.Unlock()
			}
		}
	}()
	tb.Cleanup(m.Stop)
	return m
}

// Commands returns what was recorded so far.
func (m *Monitor) Commands() []MonitoredCommand {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MonitoredCommand(nil), m.cmds...)
}

// Stop ends the recording. Safe to call twice.
func (m *Monitor) Stop() {
	m.conn.Close()
	<-m.done
}

// parseMonitorLine reads `+1700000000.123456 [0 127.0.0.1:5000] "SET" "k" "v"`
// (or `[0 lua]` for a script's call).
func parseMonitorLine(line string) (MonitoredCommand, bool) {
	line = strings.TrimPrefix(line, "+")
	i := strings.Index(line, "] ")
	if i < 0 {
		return MonitoredCommand{}, false
	}
	c := MonitoredCommand{Script: strings.HasSuffix(line[:i], " lua")}
	rest := line[i+2:]
	for len(rest) > 0 {
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, `"`) {
			break
		}
		// Find the closing quote, skipping escaped characters.
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			break
		}
		arg, err := strconv.Unquote(rest[:j+1])
		if err != nil {
			arg = rest[1:j]
		}
		c.Args = append(c.Args, arg)
		rest = rest[j+1:]
	}
	return c, len(c.Args) > 0
}
