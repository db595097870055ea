package realclients

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Worker is one running client: a Node or Python process, or redsync in a
// goroutine. Its events are kept in order; WaitFor and Events read them.
type Worker struct {
	Lib  Lib
	Plan Plan

	mu      sync.Mutex
	events  []Event
	changed chan struct{} // closed and replaced on each event and at exit
	exited  bool
	err     error // the worker's exit error, once exited
	stderr  strings.Builder

	cont   chan struct{} // redsync: one token per Continue
	stdin  io.WriteCloser
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs plan with lib against the Redis at addr (HOST:PORT) and
// returns at once; plan.Addr is set to addr. Cancelling ctx or calling Stop
// kills the worker. It returns an error for a bad plan, an unknown lib, or
// a worker that cannot start (call Ensure first: node_modules or
// python3-redis missing).
func Start(ctx context.Context, lib Lib, addr string, plan Plan) (*Worker, error) {
	plan.Addr = addr
	if err := plan.validate(); err != nil {
		return nil, err
	}
	for i, s := range plan.Steps {
		if s.Watch && lib != RedisPy {
			return nil, fmt.Errorf("realclients: plan steps[%d]: watch: only %s releases with WATCH/MULTI/EXEC, not %s", i, RedisPy, lib)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Worker{Lib: lib, Plan: plan, changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	if lib == Redsync {
		w.cont = make(chan struct{}, len(plan.Steps))
		go func() {
			err := runRedsync(ctx, plan, w.add, w.cont)
			w.finish(err)
		}()
		return w, nil
	}
	cmd, err := command(ctx, lib, plan)
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("realclients: %s: %w", lib, err)
	}
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		cancel()
		return nil, fmt.Errorf("realclients: %s: %w", lib, err)
	}
	cmd.Stderr = &lockedWriter{w: &w.stderr, mu: &w.mu}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("realclients: start %s worker: %w", lib, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		var perr error
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				perr = errors.Join(perr, fmt.Errorf("realclients: %s worker wrote %q: %w", lib, sc.Text(), err))
				continue
			}
			w.add(e)
		}
		err := errors.Join(cmd.Wait(), perr)
		if err != nil {
			w.mu.Lock()
			err = fmt.Errorf("realclients: %s worker: %w; stderr: %s", lib, err, strings.TrimSpace(w.stderr.String()))
			w.mu.Unlock()
		}
		w.finish(err)
	}()
	return w, nil
}

// command builds the process for a Node or Python worker.
func command(ctx context.Context, lib Lib, plan Plan) (*exec.Cmd, error) {
	arg, err := json.Marshal(plan)
	if err != nil {
		return nil, fmt.Errorf("realclients: plan: %w", err)
	}
	dir, err := sourceDir()
	if err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	switch lib {
	case Redlock, Redisson:
		nodeDir := filepath.Join(dir, "node")
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules")); err != nil {
			return nil, fmt.Errorf("realclients: %s: node_modules missing in %s (Ensure or `make deps` runs npm ci): %w", lib, nodeDir, err)
		}
		cmd = exec.CommandContext(ctx, "node", filepath.Join(nodeDir, string(lib)+".mjs"), string(arg))
	case RedisPy:
		cmd = exec.CommandContext(ctx, debianPython, filepath.Join(dir, "python", "redispy_worker.py"), string(arg))
	default:
		return nil, fmt.Errorf("realclients: unknown library %q", lib)
	}
	// A killed worker's pipes close at once; do not wait on them longer.
	cmd.WaitDelay = 2 * time.Second
	return cmd, nil
}

// sourceDir is this package's source directory, where node/ and python/
// are: tests of any package run from the source tree.
func sourceDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("realclients: cannot locate the package's source directory")
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "node", "package.json")); err != nil {
		return "", fmt.Errorf("realclients: worker sources not found beside %s: %w", file, err)
	}
	return dir, nil
}

// add records one event and wakes WaitFor.
func (w *Worker) add(e Event) {
	w.mu.Lock()
	w.events = append(w.events, e)
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

func (w *Worker) finish(err error) {
	w.mu.Lock()
	w.exited, w.err = true, err
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	close(w.done)
}

// Events returns a copy of the events so far, in order.
func (w *Worker) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// WaitFor returns the first event (from the worker's start) for which
// match is true, waiting for it. It returns an error when ctx ends or the
// worker exits without such an event. match must not call the Worker's
// methods.
func (w *Worker) WaitFor(ctx context.Context, match func(Event) bool) (Event, error) {
	return w.waitUntil(ctx, func(evs []Event) (Event, bool) {
		for _, e := range evs {
			if match(e) {
				return e, true
			}
		}
		return Event{}, false
	})
}

// WaitOutcome returns the first event with outcome, like WaitFor.
func (w *Worker) WaitOutcome(ctx context.Context, outcome string) (Event, error) {
	return w.WaitFor(ctx, func(e Event) bool { return e.Outcome == outcome })
}

// WaitCount returns the n-th event (n >= 1) with outcome (the third
// "renewed", say), like WaitFor.
func (w *Worker) WaitCount(ctx context.Context, outcome string, n int) (Event, error) {
	return w.waitUntil(ctx, func(evs []Event) (Event, bool) {
		seen := 0
		for _, e := range evs {
			if e.Outcome == outcome {
				if seen++; seen >= n {
					return e, true
				}
			}
		}
		return Event{}, false
	})
}

// waitUntil calls found with the events so far, again after each new
// event, until it answers true, ctx ends or the worker exits.
func (w *Worker) waitUntil(ctx context.Context, found func([]Event) (Event, bool)) (Event, error) {
	for {
		w.mu.Lock()
		e, ok := found(w.events)
		exited, err, ch := w.exited, w.err, w.changed
		w.mu.Unlock()
		if ok {
			return e, nil
		}
		if exited {
			return Event{}, fmt.Errorf("realclients: %s worker %s exited without the awaited event (exit: %v)", w.Lib, w.Plan.Name, err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return Event{}, fmt.Errorf("realclients: %s worker %s: %w", w.Lib, w.Plan.Name, ctx.Err())
		}
	}
}

// Continue lets the worker's current (or next) await step go on.
func (w *Worker) Continue() error {
	if w.cont != nil {
		select {
		case w.cont <- struct{}{}:
			return nil
		default:
			return errors.New("realclients: Continue called more often than the plan awaits")
		}
	}
	if _, err := io.WriteString(w.stdin, "\n"); err != nil {
		return fmt.Errorf("realclients: continue %s worker: %w", w.Lib, err)
	}
	return nil
}

// Wait waits until the worker exits (or ctx ends, which kills it) and
// returns all its events and its exit error (nil when it ran every step).
func (w *Worker) Wait(ctx context.Context) ([]Event, error) {
	select {
	case <-w.done:
	case <-ctx.Done():
		w.Stop()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...), w.err
}

// Stop kills the worker (a process is killed, redsync's goroutine sees its
// context end) and waits for it to exit.
func (w *Worker) Stop() {
	w.cancel()
	<-w.done
}

// lockedWriter serialises writes to a strings.Builder shared with readers.
type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 16*1024 {
		return len(p), nil // keep the first 16 KiB: enough to say what failed
	}
	return l.w.Write(p)
}
