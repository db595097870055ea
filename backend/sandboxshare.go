package backend

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"lockstep/sim"
)

// Every visitor's scripts share one Lua sandbox process (Sandbox), so a
// visitor whose script runs past a bound stops everyone's runs in it (a
// fresh-eyes review of issue 37: a runaway script every 2 s kept the
// sandbox dying). Three things bound what one visitor takes of it:
//
//   - a step of a user's script holds the sandbox for at most its time
//     limit, retries included (Store.execBounded);
//   - a client address whose steps got the process stopped (its time or
//     memory bound; every stop, a retried one's too; a class's students'
//     steps count as its presenter's, web's session.scriptAddr)
//     SandboxConfig.MaxKillsPerAddr times within
//     sandboxKillWindow is refused further steps of its own scripts until
//     the oldest of those is a window old (SandboxKillsError);
//   - a step that was in progress when another step's script got the
//     process killed is sent once more, to the restarted process, instead
//     of failing for what someone else's script did. A run's keys are
//     restored at every step from its simulated state (Store.restore), so
//     the new process needs nothing from the old one. A step of a run with
//     a replica or nodes is not: those servers died with the process.

// DefaultSandboxKillsPerAddr is how many times one client address's
// scripts may get the Lua sandbox's process stopped within a minute before
// its further steps of its own scripts are refused (serve
// -sandbox-kills-per-addr).
const DefaultSandboxKillsPerAddr = 3

// sandboxKillWindow is the window of SandboxConfig.MaxKillsPerAddr.
const sandboxKillWindow = time.Minute

type clientAddrKey struct{}

// WithClientAddr returns ctx carrying addr, the client address (as
// webnet.ClientAddr counts it) whose request or session runs the steps
// made with it: the Lua sandbox counts its kills by that address. Steps
// whose ctx carries none (the server's own runs, the command line) are
// not counted.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

type othersScriptKey struct{}

// WithOthersScript returns ctx marking its steps as running a script of
// another visitor's (a class's students re-run the presenter's lock): the
// address WithClientAddr gives is then that visitor's, and a refusal says
// so (SandboxKillsError.Others).
func WithOthersScript(ctx context.Context) context.Context {
	return context.WithValue(ctx, othersScriptKey{}, true)
}

func clientAddrOf(ctx context.Context) string {
	a, _ := ctx.Value(clientAddrKey{}).(string)
	return a
}

// SandboxKillsError is a step of a user's script refused before it ran:
// scripts from its client address got the Lua sandbox's process stopped
// Max times within Per. Wait is how long until the oldest of them is Per
// old.
type SandboxKillsError struct {
	Max       int
	Per, Wait time.Duration
	// Others: the script is another visitor's, whose address was counted
	// (WithOthersScript): a class's presenter's.
	Others bool
}

func (e *SandboxKillsError) Error() string {
	return fmt.Sprintf("backend: refused: scripts from this address stopped the Lua sandbox %d times within %s; try again in %s", e.Max, e.Per, e.Wait.Round(time.Second))
}

// Message makes SandboxKillsError a Coded error: backend.sandbox-kills, or
// backend.sandbox-kills-class for a script of another visitor's.
func (e *SandboxKillsError) Message() sim.Msg {
	id := "backend.sandbox-kills"
	if e.Others {
		id = "backend.sandbox-kills-class"
	}
	return sim.M(id, "Max", e.Max, "Seconds", int(e.Per.Seconds()), "Wait", int(e.Wait.Round(time.Second).Seconds()))
}

// SandboxRestartedError is a step that was in progress in the Lua
// sandbox's process when another step's script got the process killed,
// and that failed again when sent to the restarted process.
type SandboxRestartedError struct{}

func (*SandboxRestartedError) Error() string {
	return "backend: the Lua sandbox was restarted during this step, twice, because other scripts ran past their bounds; run the step again"
}

// Message makes SandboxRestartedError a Coded error:
// backend.sandbox-restarted.
func (*SandboxRestartedError) Message() sim.Msg { return sim.M("backend.sandbox-restarted") }

// killLedger counts, per client address, when its steps got the sandbox's
// process stopped. Safe for concurrent use.
type killLedger struct {
	mu  sync.Mutex
	max int
	at  map[string][]time.Time
}

func newKillLedger(max int) *killLedger {
	return &killLedger{max: max, at: map[string][]time.Time{}}
}

// prune drops the kills older than the window, of every address (the map
// holds only addresses with a kill in the last minute). Under mu.
func (k *killLedger) prune(now time.Time) {
	for a, ts := range k.at {
		i := 0
		for i < len(ts) && now.Sub(ts[i]) >= sandboxKillWindow {
			i++
		}
		if i == len(ts) {
			delete(k.at, a)
		} else {
			k.at[a] = ts[i:]
		}
	}
}

// admit returns a *SandboxKillsError when addr has had max kills within
// the window; nil otherwise, and for the empty address.
func (k *killLedger) admit(addr string, now time.Time) error {
	if k == nil || addr == "" {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.prune(now)
	if ts := k.at[addr]; len(ts) >= k.max {
		return &SandboxKillsError{Max: k.max, Per: sandboxKillWindow, Wait: sandboxKillWindow - now.Sub(ts[len(ts)-k.max])}
	}
	return nil
}

// note counts a kill for addr at now.
func (k *killLedger) note(addr string, now time.Time) {
	if k == nil || addr == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.prune(now)
	k.at[addr] = append(k.at[addr], now)
}

// callsCustom is the name of the first user's script b calls, "" when it
// calls none.
func callsCustom(b *sim.Batch) string {
	for _, c := range b.Calls {
		if c.Script.Custom {
			return c.Script.Name
		}
	}
	return ""
}

// execBounded runs b, which calls a user's script, on a backend that
// bounds them (the sandbox; a real Redis with AllowCustomScripts): one
// overrun watch for the whole step, retries included; in the sandbox a ctx
// deadline on the whole step too, its per-address kill bound and one more
// try on a restarted process (see the top of this file), and no loopback
// address in its error.
func (s *Store) execBounded(ctx context.Context, b *sim.Batch, name string) (*sim.BatchResult, error) {
	if !s.be.sandbox {
		// The step's bound (boundedStep) is the most it may take.
		release, err := s.reserveScriptTime(ctx, clientAddrOf(ctx))
		if err != nil {
			return nil, err
		}
		start := time.Now()
		res, err := s.boundedStep(ctx, b, name)
		release(time.Since(start))
		return res, err
	}
	addr := clientAddrOf(ctx)
	if err := s.be.kills.admit(addr, time.Now()); err != nil {
		var k *SandboxKillsError
		if errors.As(err, &k) {
			k.Others, _ = ctx.Value(othersScriptKey{}).(bool)
		}
		return nil, err
	}
	// The sandbox's time, charged as on a real Redis (scripttime.go): the
	// step's time limit is reserved (cut to the budget), and the step is
	// charged the time it took, its retry included.
	// A search's steps are charged too: one search of a 99,000-turn loop
	// took 56.6 s of the sandbox's CPU in a minute, 5.6 times its
	// address's budget (a fresh attacker on issue 37).
	release, err := s.reserveScriptTime(ctx, addr)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { release(time.Since(start)) }()
	// Every stop counts, a first try's too: a memory stop whose retry
	// answered was not counted, so a script that filled memory only now
	// and then was never bounded (a fresh-eyes attack on issue 37).
	noteStop := func(err error) {
		var over *ScriptOverrunError
		if errors.As(err, &over) && (over.Killed == "sandbox" || over.Killed == "memory") {
			s.be.kills.note(addr, time.Now())
		}
	}
	res, err := s.boundedStep(ctx, b, name)
	noteStop(err)
	var restarted *SandboxRestartedError
	var over *ScriptOverrunError
	retry := errors.As(err, &restarted) || errors.As(err, &over) && over.Killed == "memory"
	if retry && s.alone(b) && s.be.reopen != nil {
		if nb, e := s.be.reopen(ctx); e == nil {
			s.pmu.Lock() // against a concurrent Close
			s.be, s.client = nb, nb.client
			s.pmu.Unlock()
			res, err = s.boundedStep(ctx, b, name)
			noteStop(err)
		}
	}
	return res, withoutLoopback(err)
}

// alone reports whether the run of b has a single server: not a replica,
// not nodes, whose servers die with the sandbox's process.
func (s *Store) alone(b *sim.Batch) bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return b.Replica == sim.NoReplica && b.Nodes == 0 && s.pair == nil && s.nodes == nil
}

// stepGrace is how much longer than its script's time limit a step in
// the sandbox may take in all: the kill at the limit ends every read.
const stepGrace = time.Second

// boundedStep runs b under one overrun watch (and in the sandbox a
// deadline of the limit and stepGrace) for every try of the step.
func (s *Store) boundedStep(ctx context.Context, b *sim.Batch, name string) (*sim.BatchResult, error) {
	limit := s.be.scriptLimit
	if limit <= 0 {
		limit = ScriptTimeLimit
	}
	sctx := ctx
	if s.be.sandbox {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, limit+stepGrace)
		defer cancel()
	}
	w := s.be.watchOverrun(b, name, limit)
	s.watch = w
	res, err := s.execStep(sctx, b)
	s.watch = nil
	w.stop()
	if err == nil {
		return res, nil
	}
	var over *ScriptOverrunError
	var restarted *SandboxRestartedError
	if errors.As(err, &over) || errors.As(err, &restarted) {
		return nil, err
	}
	if oerr := w.check(s.be, err); oerr != nil {
		return nil, oerr
	}
	if sctx.Err() != nil && ctx.Err() == nil {
		return nil, &ScriptOverrunError{Script: name, Limit: limit, Killed: "sandbox"}
	}
	return nil, err
}

// loopbackAddr matches a loopback host and port, as net errors name them.
var loopbackAddr = regexp.MustCompile(`(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost):\d+`)

// loopbackRedacted is an error whose text had loopback addresses taken
// out; it unwraps to the error it was made from.
type loopbackRedacted struct {
	err  error
	text string
}

func (e *loopbackRedacted) Error() string { return e.text }
func (e *loopbackRedacted) Unwrap() error { return e.err }

// withoutLoopback returns err with every loopback host:port in its text
// replaced by "the Lua sandbox": a step's error is shown to the visitor,
// and the sandbox's ports are the server's own business (a fresh-eyes
// review of issue 37). errors.Is and As still see the original.
func withoutLoopback(err error) error {
	if err == nil {
		return nil
	}
	t := err.Error()
	r := loopbackAddr.ReplaceAllString(t, "the Lua sandbox")
	if r == t {
		return err
	}
	return &loopbackRedacted{err: err, text: r}
}

// reserveScriptTime reserves, against addr's script-time budget and the
// server's (scripttime.go), the most a step of a user's script may take:
// the backend's step limit (ScriptTimeLimit when unset). release charges
// what the step took and gives the rest back. A refusal is a
// *ScriptTimeError, marked Others when the script is another visitor's.
func (s *Store) reserveScriptTime(ctx context.Context, addr string) (release func(time.Duration), err error) {
	limit := s.be.scriptLimit
	if limit <= 0 {
		limit = ScriptTimeLimit
	}
	release, err = s.be.scriptTime.acquire(ctx, addr, limit)
	if err != nil {
		var te *ScriptTimeError
		if errors.As(err, &te) {
			te.Others, _ = ctx.Value(othersScriptKey{}).(bool)
		}
		return nil, err
	}
	return release, nil
}
