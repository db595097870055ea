package backend

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"lockstep/sim"
)

// ScriptTimeLimit bounds how long one step's transaction that calls a
// user's script (sim.Script.Custom) may run, when the scripts run in the
// Lua sandbox (NewSandbox) or on a real Redis opened to them
// (Config.AllowCustomScripts). A lock script takes milliseconds, and
// sim.MaxScriptTurns stops the script's own loops well before; this stops
// what the count cannot see (code compiled at run time, one long built-in
// call). Past it the sandbox's process is killed (and started again for
// the next run), and a real Redis is sent SCRIPT KILL. 2 s.
const ScriptTimeLimit = 2 * time.Second

// ScriptOverrunError is a step whose user's script ran past the time
// limit and was stopped: Script names it, Limit is the limit, Killed says
// how it was stopped ("memory" when the sandbox's process passed its heap
// bound, "sandbox" when the sandbox's process was killed,
// "script-kill" when a real Redis took SCRIPT KILL, "unkillable" when a
// real Redis refused it because the script had written: only SHUTDOWN
// NOSAVE, which Lockstep never sends, would stop it).
type ScriptOverrunError struct {
	Script string
	Limit  time.Duration
	Killed string
}

func (e *ScriptOverrunError) Error() string {
	if e.Killed == "memory" {
		return fmt.Sprintf("backend: script %s took more memory than the Lua sandbox allows and was stopped", e.Script)
	}
	return fmt.Sprintf("backend: script %s ran longer than %s and was stopped (%s)", e.Script, e.Limit, e.Killed)
}

// Message makes ScriptOverrunError a Coded error: backend.script-overrun,
// or backend.script-unkillable when Redis could not stop it.
func (e *ScriptOverrunError) Message() sim.Msg {
	switch e.Killed {
	case "unkillable":
		return sim.M("backend.script-unkillable", "Script", e.Script, "Limit", e.Limit.String())
	case "memory":
		return sim.M("backend.script-memory", "Script", e.Script, "Max", DefaultSandboxHeap>>20)
	}
	return sim.M("backend.script-overrun", "Script", e.Script, "Limit", e.Limit.String())
}

// overrunWatch stops the user's scripts of one transaction that run past
// the backend's limit.
type overrunWatch struct {
	t      *time.Timer
	fired  atomic.Bool
	killed atomic.Value // string
	limit  time.Duration
	script string
}

// watchOverrun starts a watch over one step of batch, which calls the
// user's script name, on a backend that bounds them (the sandbox, or a
// real Redis with AllowCustomScripts): past limit it stops the script
// (b.overrun). nil elsewhere, and for a run with a replica or nodes on a
// real Redis, which sends its batches to servers of its own (started
// redis-server processes) that the run kills when it ends: SCRIPT KILL on
// the backend's server would miss them. In the sandbox, killing its
// process stops those servers too.
func (b *Backend) watchOverrun(batch *sim.Batch, name string, limit time.Duration) *overrunWatch {
	if b.overrun == nil || name == "" || !b.sandbox && (batch.Replica != sim.NoReplica || batch.Nodes > 0) {
		return nil
	}
	w := &overrunWatch{limit: limit, script: name}
	w.t = time.AfterFunc(limit, func() {
		w.fired.Store(true)
		w.killed.Store(b.overrun())
	})
	return w
}

// stop ends the watch: the step has answered.
func (w *overrunWatch) stop() {
	if w != nil {
		w.t.Stop()
	}
}

// check returns, for an attempt of the step that answered err (nil when
// it answered), a *ScriptOverrunError when the limit has passed (once its
// kill is done), or when the sandbox's process ended under the step for
// its memory bound; a *SandboxRestartedError when the process was killed
// for another step's script; nil otherwise.
func (w *overrunWatch) check(b *Backend, err error) error {
	if w == nil {
		return nil
	}
	if w.fired.Load() {
		for w.killed.Load() == nil {
			time.Sleep(time.Millisecond)
		}
		return &ScriptOverrunError{Script: w.script, Limit: w.limit, Killed: w.killed.Load().(string)}
	}
	if err != nil && !isReply(err) && b.lost != nil && lostWithin(b.lost, time.Second) {
		if b.ended != nil && b.ended() == endKilled {
			return &SandboxRestartedError{}
		}
		return &ScriptOverrunError{Script: w.script, Limit: w.limit, Killed: "memory"}
	}
	return nil
}

// scriptKillTimeout bounds how long killScript keeps sending SCRIPT KILL.
const scriptKillTimeout = 30 * time.Second

// killScript stops the script running on a real Redis: SCRIPT KILL, sent
// again until the server answers it. redis-server reads no command while a
// script runs until the script has run for lua-time-limit
// (busy-reply-threshold, 5 s by default); from then on it answers every
// other command BUSY and takes SCRIPT KILL. It answers NOTBUSY when no
// script runs (ours ended meanwhile) and UNKILLABLE when the script has
// written. Redis runs one script at a time, so the one it kills is the one
// that held the step past its limit.
func (b *Backend) killScript() string {
	ctx, cancel := context.WithTimeout(context.Background(), scriptKillTimeout)
	defer cancel()
	for ctx.Err() == nil {
		err := b.client.ScriptKill(ctx).Err()
		switch {
		case err == nil:
			return "script-kill"
		case strings.Contains(err.Error(), "NOTBUSY"):
			return "script-kill"
		case strings.Contains(err.Error(), "UNKILLABLE"):
			return "unkillable"
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	return "unkillable"
}

// lostWithin reports whether lost holds within d: the connection to a
// process that exited breaks a moment before the process is reaped.
func lostWithin(lost func() bool, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		if lost() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}
