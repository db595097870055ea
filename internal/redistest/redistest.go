// Package redistest starts real redis-server processes for tests, each on a
// free loopback port, and stops them when the test ends: a single server
// (Start), one that speaks only TLS with certificates the test makes
// (StartTLS, tls.go), and a three-node Redis Cluster (StartCluster,
// cluster.go). Server.AddUser adds an ACL user.
//
// When redis-server is not installed the test is skipped with a message
// saying so, except under CI=true, where it fails: CI must run everything
// (`make test` installs redis-server first).
package redistest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a running redis-server.
type Server struct {
	URL  string // redis://127.0.0.1:PORT/0 (rediss:// for a TLS server)
	Addr string // 127.0.0.1:PORT
	Port int
	// CAFile is the PEM file of the CA that signed a TLS server's
	// certificate ("" for a plain server); TLS is the client configuration
	// that trusts it (nil for a plain server).
	CAFile string
	TLS    *tls.Config
	cmd    *exec.Cmd
	bin    string // set by Launch, for Relaunch
	extra  []string
}

// Need returns the path of a program, or skips the test (fails it under
// CI=true) when the program is missing, naming the command that installs it.
func Need(tb testing.TB, program, install string) string {
	tb.Helper()
	path, err := exec.LookPath(program)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("%s is not installed (%s installs it)", program, install)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// Start starts a redis-server with no persistence on a free port and
// registers its shutdown with tb.Cleanup. extra is appended to its
// command line (e.g. "--replicaof", "127.0.0.1", "6380").
func Start(tb testing.TB, extra ...string) *Server {
	tb.Helper()
	bin := Need(tb, "redis-server", "make test")
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("redistest: free port: %v", err)
		}
		s, err := start(bin, port, extra, nil)
		if err == nil {
			tb.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	tb.Fatalf("redistest: start redis-server: %v", lastErr)
	return nil
}

// Launch starts a redis-server like Start, for programs outside tests (the
// benchmark table of package bench): it returns an error instead of failing
// a test, and the caller must Stop the server. bin is the program ("" means
// redis-server on PATH).
func Launch(bin string, extra ...string) (*Server, error) {
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("redis-server"); err != nil {
			return nil, fmt.Errorf("redistest: redis-server is not installed (make deps installs it): %w", err)
		}
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("redistest: free port: %w", err)
		}
		s, err := start(bin, port, extra, nil)
		if err == nil {
			s.bin = bin
			return s, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("redistest: start redis-server: %w", lastErr)
}

// Relaunch starts a server stopped with Stop again on the same port, like
// Restart, for programs outside tests.
func (s *Server) Relaunch() error {
	n, err := start(s.bin, s.Port, nil, nil)
	if err != nil {
		return fmt.Errorf("redistest: restart: %w", err)
	}
	s.cmd = n.cmd
	return nil
}

// start starts bin on port with extra arguments and waits for its PING.
// With tlsCfg the port speaks TLS only (extra then holds the server's TLS
// options).
func start(bin string, port int, extra []string, tlsCfg *tls.Config) (*Server, error) {
	args := []string{"--port", strconv.Itoa(port)}
	if tlsCfg != nil {
		args = []string{"--port", "0", "--tls-port", strconv.Itoa(port)}
	}
	args = append(append(args, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"), extra...)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, TLS: tlsCfg, extra: extra}
	s.URL = "redis://" + s.Addr + "/0"
	if tlsCfg != nil {
		s.URL = "rediss://" + s.Addr + "/0"
	}
	c := redis.NewClient(s.options())
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			s.Stop()
			return nil, fmt.Errorf("redis-server on port %d did not answer PING: %w", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) options() *redis.Options {
	return &redis.Options{Addr: s.Addr, Protocol: 2, DisableIdentity: true, TLSConfig: s.TLS}
}

// Client returns a go-redis client for the server as its default user
// (over TLS for a TLS server), closed at test end.
func (s *Server) Client(tb testing.TB) *redis.Client {
	c := redis.NewClient(s.options())
	tb.Cleanup(func() { c.Close() })
	return c
}

// AddUser creates the ACL user name with password pass and rules (ACL
// SETUSER name on >pass rules...), and returns the server's URL with the
// user's credentials.
func (s *Server) AddUser(tb testing.TB, name, pass string, rules ...string) string {
	tb.Helper()
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">" + pass}
	for _, r := range rules {
		args = append(args, r)
	}
	if err := s.Client(tb).Do(context.Background(), args...).Err(); err != nil {
		tb.Fatalf("redistest: ACL SETUSER %s: %v", name, err)
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		tb.Fatal(err)
	}
	u.User = url.UserPassword(name, pass)
	return u.String()
}

// Stop kills the server and waits for it. Safe to call twice.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port (after Stop).
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	bin := Need(tb, "redis-server", "make test")
	n, err := start(bin, s.Port, s.extra, s.TLS)
	if err != nil {
		tb.Fatalf("redistest: restart: %v", err)
	}
	s.cmd = n.cmd
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
