package backend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// process is a redis-server that Lockstep started, listening on loopback
// only, with no persistence.
type process struct {
	cmd  *exec.Cmd
	addr string // 127.0.0.1:PORT
	port string
	done chan struct{} // closed once the process has exited and been reaped
	out  *tail

	once sync.Once
}

// startProcess starts bin on a free loopback port, working in dir, with
// extra arguments after the common ones, and waits until it answers PING.
// A port taken between choosing and binding it costs another try.
func startProcess(ctx context.Context, bin, dir string, extra ...string) (*process, error) {
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		p, err := launch(ctx, bin, dir, port, extra)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func launch(ctx context.Context, bin, dir, port string, extra []string) (*process, error) {
	args := append([]string{
		"--port", port, "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning",
		// A (re)sync starts at once and goes over the socket both ways, so
		// no RDB file is ever written.
		"--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", "--repl-diskless-load", "swapdb",
	}, extra...)
	// Not CommandContext: the server outlives the context of the step that
	// starts it, until Store.Close kills it.
	cmd := exec.Command(bin, args...)
	endWithParent(cmd)
	p := &process{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", port), port: port, done: make(chan struct{}), out: &tail{}}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	c := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: 2, DisableIdentity: true, MaxRetries: 0, DialTimeout: 200 * time.Millisecond,
		MaintNotificationsConfig: noMaintNotifications()})
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, pairStartTimeout)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err := c.Ping(pctx).Err()
		pcancel()
		if err == nil {
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("redis-server on port %s exited: %s", port, p.output())
		case <-ctx.Done():
			p.kill()
			return nil, fmt.Errorf("redis-server on port %s did not answer PING within %s: %w", port, pairStartTimeout, errors.Join(ctx.Err(), err))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// kill stops the process and waits until it is reaped. Safe to call twice.
func (p *process) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
}

// output returns the last lines the process printed, for messages.
func (p *process) output() string {
	s := strings.TrimSpace(p.out.String())
	if s == "" {
		return "(no output)"
	}
	return s
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// tail keeps the last tailBytes bytes written to it; safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
