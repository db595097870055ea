package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildServer builds bench/classserver (lockstep's own cli.Serve with a
// memory probe) into dir and returns the program's path.
func buildServer(dir string) (string, error) {
	bin := filepath.Join(dir, "classserver")
	cmd := exec.Command("go", "build", "-o", bin, "./bench/classserver")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./bench/classserver (run from the module's root): %w", err)
	}
	return bin, nil
}

// server is one Lockstep server process.
type server struct {
	cmd   *exec.Cmd
	base  string // http://127.0.0.1:PORT
	stats chan memStats
	done  chan struct{}
}

// memStats is one classserver-stats line.
type memStats struct {
	heap, rss  uint64
	goroutines int
}

// startServer starts bin (classserver) on a free loopback port with args
// and waits for it to say where it serves; cpuprofile, when not "", is
// the file its CPU profile goes to (bench/classserver).
func startServer(bin, cpuprofile string, args ...string) (*server, error) {
	args = append([]string{"-addr", "127.0.0.1:0"}, args...)
	cmd := exec.Command(bin, args...)
	if cpuprofile != "" {
		cmd.Env = append(os.Environ(), "CLASSSERVER_CPUPROFILE="+cpuprofile)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stats: make(chan memStats, 4), done: make(chan struct{})}
	opened := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "lockstep: open "); ok {
				u, _, _ = strings.Cut(u, " ")
				opened <- strings.TrimSuffix(u, "/")
				continue
			}
			if rest, ok := strings.CutPrefix(line, "classserver-stats "); ok {
				var m memStats
				for _, f := range strings.Fields(rest) {
					k, v, _ := strings.Cut(f, "=")
					n, _ := strconv.ParseUint(v, 10, 64)
					switch k {
					case "heap":
						m.heap = n
					case "rss":
						m.rss = n
					case "goroutines":
						m.goroutines = int(n)
					}
				}
				s.stats <- m
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
	}()
	select {
	case s.base = <-opened:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("%s exited before serving", bin)
	case <-time.After(60 * time.Second):
		s.kill()
		return nil, fmt.Errorf("%s did not serve within 60 s", bin)
	}
}

// memory asks the server for its memory after two collections.
func (s *server) memory() (memStats, error) {
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return memStats{}, err
	}
	select {
	case m := <-s.stats:
		return m, nil
	case <-time.After(60 * time.Second):
		return memStats{}, fmt.Errorf("server %s: no memory figures within 60 s", s.base)
	}
}

// kill ends the process at once (SIGKILL: the fault) and waits for it.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// stop ends the process cleanly (SIGTERM) and waits for it, killing it
// after 20 s.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.kill()
	}
}

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpu is the CPU time the server process has used so far (user and
// system, from /proc/PID/stat, in clock ticks of 10 ms); 0 and an error
// where /proc does not say.
func (s *server) cpu() (time.Duration, error) {
	user, sys, err := s.cpuParts()
	return user + sys, err
}

// cpuParts is cpu in its user and system parts.
func (s *server) cpuParts() (user, sys time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// after it are counted from its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", s.cmd.Process.Pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", s.cmd.Process.Pid, len(f))
	}
	// Fields 14 and 15 of stat(5), utime and stime: 12 and 13 after the
	// name (the state is field 3).
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", s.cmd.Process.Pid, f[11], f[12])
	}
	return time.Duration(utime) * clockTick, time.Duration(stime) * clockTick, nil
}

// selfCPU is the CPU time the load generator's own process has used so
// far (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
