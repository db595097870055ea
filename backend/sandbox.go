package backend

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultSandboxHeap bounds the Go heap of the Lua sandbox's process, in
// bytes (64 MiB): past it the process exits, and the step that ran it fails
// with a ScriptOverrunError (Killed "memory"). A lock script's state is a
// few keys of a few bytes; the largest string a script can build is about
// half of this, so what a reply carries back into the server is bounded
// too.
const DefaultSandboxHeap = 64 << 20

// sandboxStartTimeout bounds how long a sandbox's process may take to
// start and say where it listens. 30 s: the process is the binary itself,
// and a race-instrumented test binary on a loaded 2-core machine (load
// 25) took more than 10 s (web.TestBrowserLockBuilderRenew failed so); a
// lockstep binary starts in milliseconds.
const sandboxStartTimeout = 30 * time.Second

// SandboxConfig configures a Sandbox. The zero value is the defaults.
type SandboxConfig struct {
	// TimeLimit bounds one step that calls a user's script; 0 means
	// ScriptTimeLimit.
	TimeLimit time.Duration
	// MaxHeap bounds the process's Go heap in bytes; 0 means
	// DefaultSandboxHeap.
	MaxHeap int64
	// MaxKillsPerAddr bounds how many times within a minute one client
	// address's steps (WithClientAddr) may get the process stopped, for
	// its time or memory bound, before its further steps of users'
	// scripts are refused (SandboxKillsError); 0 means
	// DefaultSandboxKillsPerAddr, -1 no bound.
	MaxKillsPerAddr int
	// RunWriteBytes is Config.RunWriteBytes for the process's runs; 0
	// means MaxRunWriteBytes.
	RunWriteBytes int64
	// TimePerAddr bounds the time one client address's steps of users'
	// scripts (WithClientAddr; a search's too)
	// may take in the sandbox within a minute: over it they are refused
	// (ScriptTimeError with Sandbox set) until enough of it is a minute
	// old, and an address runs one such step at once (scripttime.go). 0
	// means DefaultSandboxTimePerAddr; negative, no bound of its own. It
	// is cut to a quarter of TimeTotal when that is smaller.
	TimePerAddr time.Duration
	// TimeTotal bounds the time the steps of users' scripts from all
	// client addresses together may take in the sandbox within a minute;
	// 0 means DefaultSandboxTimeTotal, negative no bound.
	TimeTotal time.Duration
}

// Sandbox runs users' Lua scripts (a learner's own lock, a shared link, a
// search of one) out of the server's process: in a child process, the
// lockstep binary itself in its sandbox mode (RunSandboxIfChild), that
// serves a miniredis on a loopback port with a random password. The server
// reaches it as it reaches a real Redis (a key prefix per run, every step
// restored from simulated time), so frames are the same as on the
// in-process embedded Redis. A step that runs past the time limit gets the
// process killed, so the CPU it burned is free at once; the process exits
// by itself when its heap passes the memory bound; either way the next run
// starts a fresh one. Every script there runs in Redis's own environment
// (RemovedGlobals, MaxMadeBytes). A step in progress on a process that is
// killed for another step's script are sent once more to the restarted
// process (sandboxshare.go); a client address whose scripts got it
// stopped too often is refused for a while (MaxKillsPerAddr), and one
// whose steps of users' scripts took too much of its time within a minute
// too (TimePerAddr, TimeTotal). Safe for concurrent use.
type Sandbox struct {
	cfg    SandboxConfig
	kills  *killLedger // nil without a bound
	time   *timeLedger // nil without a bound
	mu     sync.Mutex
	cur    *sandboxProc
	closed bool
}

// NewSandbox returns a Sandbox; its process starts on first use.
func NewSandbox(cfg SandboxConfig) *Sandbox {
	if cfg.TimeLimit <= 0 {
		cfg.TimeLimit = ScriptTimeLimit
	}
	if cfg.MaxHeap <= 0 {
		cfg.MaxHeap = DefaultSandboxHeap
	}
	if cfg.MaxKillsPerAddr == 0 {
		cfg.MaxKillsPerAddr = DefaultSandboxKillsPerAddr
	}
	if cfg.TimePerAddr == 0 {
		cfg.TimePerAddr = DefaultSandboxTimePerAddr
	}
	if cfg.TimeTotal == 0 {
		cfg.TimeTotal = DefaultSandboxTimeTotal
	}
	sb := &Sandbox{cfg: cfg}
	if cfg.MaxKillsPerAddr > 0 {
		sb.kills = newKillLedger(cfg.MaxKillsPerAddr)
	}
	if cfg.TimePerAddr > 0 || cfg.TimeTotal > 0 {
		sb.time = newTimeLedger(cfg.TimePerAddr, cfg.TimeTotal)
		sb.time.sandbox = true
	}
	return sb
}

// Why a sandbox's process ended (Backend.ended).
const (
	endKilled = "killed" // killed for a step's script past its time limit
	endMemory = "memory" // exited past its heap bound
)

type sandboxProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	err   *tail
	be    *Backend
	once  sync.Once
	// password is the child's servers' password.
	password string
	// answers carries the lines the child writes after its address, its
	// answers to "new" requests (serveSandboxRequests).
	answers chan string
	// ctl orders requests to the child and their answers; seq numbers
	// them, so an answer that came after its request gave up is skipped.
	ctl sync.Mutex
	seq int
	// endMu guards end, why the process ended (endKilled, endMemory).
	endMu sync.Mutex
	end   string
}

// setEnd records why the process ended, unless a cause is known already.
func (p *sandboxProc) setEnd(why string) {
	p.endMu.Lock()
	defer p.endMu.Unlock()
	if p.end == "" {
		p.end = why
	}
}

func (p *sandboxProc) ended() string {
	p.endMu.Lock()
	defer p.endMu.Unlock()
	return p.end
}

// newServer asks the child for one more miniredis of its own and returns
// a client of it and its release, which shuts that server down (the
// caller closes the client): a node, primary or replica of a run with
// several servers.
func (p *sandboxProc) newServer(ctx context.Context) (*redis.Client, func(), error) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.seq++
	id := strconv.Itoa(p.seq)
	if _, err := io.WriteString(p.stdin, "new "+id+"\n"); err != nil {
		return nil, nil, fmt.Errorf("backend: lua sandbox: ask for a server: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, sandboxStartTimeout)
	defer cancel()
	for {
		select {
		case line := <-p.answers:
			addr, ok := strings.CutPrefix(line, id+" ")
			if !ok {
				continue
			}
			if !strings.HasPrefix(addr, "127.0.0.1:") {
				return nil, nil, fmt.Errorf("backend: lua sandbox: a server did not start: %s", addr)
			}
			return sandboxClient(addr, p.password), func() {
				p.ctl.Lock()
				defer p.ctl.Unlock()
				_, _ = io.WriteString(p.stdin, "close "+addr+"\n")
			}, nil
		case <-p.done:
			return nil, nil, errors.New("backend: lua sandbox: its process ended")
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("backend: lua sandbox: a server did not start: %w", ctx.Err())
		}
	}
}

// sandboxClient is a client of a server of the sandbox's process at addr.
func sandboxClient(addr, password string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: addr, Password: password, Protocol: 2, DisableIdentity: true, MaxRetries: 0, DialerRetries: 1,
		DialTimeout: time.Second, ReadTimeout: -1, WriteTimeout: -1, ContextTimeoutEnabled: true,
		MaintNotificationsConfig: noMaintNotifications(),
	})
}

func (p *sandboxProc) gone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *sandboxProc) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		_ = p.stdin.Close()
		if p.be != nil {
			_ = p.be.client.Close()
		}
	})
}

// Backend returns the backend of the sandbox's running process, starting
// one when none runs (the first call, or after a kill).
func (s *Sandbox) Backend(ctx context.Context) (*Backend, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("backend: lua sandbox is closed")
	}
	if s.cur != nil && !s.cur.gone() {
		return s.cur.be, nil
	}
	if s.cur != nil {
		s.cur.kill()
	}
	p, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	s.cur = p
	return p.be, nil
}

// NewStore returns a Store for one run in the sandbox (see Backend).
func (s *Sandbox) NewStore(ctx context.Context) (*Store, error) {
	be, err := s.Backend(ctx)
	if err != nil {
		return nil, err
	}
	return be.NewStore()
}

// Close kills the sandbox's process, if one runs.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.cur != nil {
		s.cur.kill()
	}
	return nil
}

// PID returns the process id of the sandbox's process, 0 when none runs;
// for tests and the benchmark.
func (s *Sandbox) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || s.cur.gone() {
		return 0
	}
	return s.cur.cmd.Process.Pid
}

// sandboxArgs are the arguments the child gets: the sandbox command of the
// lockstep binary; a test binary (whose TestMain calls RunSandboxIfChild
// before anything) is told to run no test, should its TestMain not.
func sandboxArgs(exe string) []string {
	if strings.HasSuffix(filepath.Base(exe), ".test") {
		return []string{"-test.run=^$"}
	}
	return []string{SandboxCommand}
}

func (s *Sandbox) start(ctx context.Context) (*sandboxProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("backend: lua sandbox: %w", err)
	}
	var pw [16]byte
	if _, err := rand.Read(pw[:]); err != nil {
		return nil, fmt.Errorf("backend: lua sandbox: %w", err)
	}
	password := hex.EncodeToString(pw[:])
	cmd := exec.Command(exe, sandboxArgs(exe)...)
	cmd.Env = append(os.Environ(), sandboxEnv+"="+strconv.FormatInt(s.cfg.MaxHeap, 10))
	endWithParent(cmd)
	p := &sandboxProc{cmd: cmd, done: make(chan struct{}), err: &tail{}, password: password, answers: make(chan string, 1)}
	cmd.Stderr = p.err
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("backend: lua sandbox: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("backend: lua sandbox: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("backend: lua sandbox: start %s: %w", exe, err)
	}
	addr := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		addr <- strings.TrimSpace(line)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				break
			}
			select {
			case p.answers <- strings.TrimSpace(line):
			default: // no request waits for it (it gave up)
			}
		}
		if err := cmd.Wait(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == sandboxExitMemory {
				p.setEnd(endMemory)
			}
		}
		close(p.done)
	}()
	if _, err := io.WriteString(p.stdin, password+"\n"); err != nil {
		p.kill()
		return nil, fmt.Errorf("backend: lua sandbox: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, sandboxStartTimeout)
	defer cancel()
	var a string
	select {
	case a = <-addr:
	case <-ctx.Done():
		p.kill()
		return nil, fmt.Errorf("backend: lua sandbox did not start within %s: %w", sandboxStartTimeout, ctx.Err())
	}
	if !strings.HasPrefix(a, "127.0.0.1:") {
		p.kill()
		return nil, fmt.Errorf("backend: lua sandbox did not start (it said %q; a test binary's TestMain must call backend.RunSandboxIfChild first): %s", a, strings.TrimSpace(p.err.String()))
	}
	quietOnce.Do(func() { redis.SetLogger(quietLogger{}) })
	client := sandboxClient(a, password)
	p.be = &Backend{
		cfg:  Config{URL: "redis://" + a, AllowCustomScripts: true, RunWriteBytes: s.cfg.RunWriteBytes},
		info: Info{Embedded: true}, client: client, user: "default", sandbox: true,
		pairSlots: make(chan struct{}, DefaultMaxPairs), cleanup: cleaner{stop: make(chan struct{})},
		overrun:     func() string { p.setEnd(endKilled); p.kill(); return "sandbox" },
		scriptLimit: s.cfg.TimeLimit,
		lost:        p.gone,
		spawn:       p.newServer,
		ended:       p.ended,
		reopen:      s.Backend,
		kills:       s.kills,
		scriptTime:  s.time,
	}
	return p, nil
}
