package proxy

import (
	"context"
	"time"
)

// A client's own transaction (MULTI ... EXEC), as Redis runs it: a
// command sent after MULTI is answered QUEUED and changes nothing; the
// queued commands run, in order and with no other client's command
// between them, when EXEC comes, and EXEC's reply is the array of their
// replies. DISCARD, an EXEC answered nil (a WATCHed key changed) and one
// answered EXECABORT (a command was refused while queued) run none.
// So the analyzer takes a queued command only at its EXEC, with its
// reply from EXEC's array and the lock states read after EXEC (the
// read on the client's connection right after EXEC, or the lock
// reader's): a read at the time of QUEUED would show what other clients
// did before EXEC, or after it, as this command's doing.

// txCommand is a command on lock keys, or a script, that Redis answered
// QUEUED inside the client's MULTI.
type txCommand struct {
	cmd   command
	locks []string
	seq   uint64 // its event (the one answered QUEUED)
	idx   int    // its place among the transaction's queued commands: its reply's in EXEC's array
	reply Value  // its reply, from EXEC's array (endTx)
}

// isQueued reports whether v is Redis's QUEUED, the reply to a command
// sent inside MULTI that it queued.
func isQueued(v Value) bool { return v.Kind == '+' && v.Str == "QUEUED" }

// queueTx notes a command answered QUEUED (its event seq): what EXEC's
// array will hold a reply for, and, when it names lock keys or runs a
// script, what the analyzer takes at EXEC; hidden are the arguments the
// trace hides of it (how EXEC's reply shows its reply: execShown). At
// most maxPipeline are kept a transaction; the rest are counted only.
func (s *session) queueTx(pend *pending, hidden []string, seq uint64) {
	idx := s.txQueued
	s.txQueued++
	c := pend.cmd
	if len(s.txShown) < maxPipeline {
		s.txShown = append(s.txShown, queuedShown{lock: len(pend.locks) > 0, hidden: hidden})
	}
	if len(pend.locks) == 0 && c.script == nil && !scriptCommands[c.name] {
		return
	}
	if len(s.tx) < maxPipeline {
		s.tx = append(s.tx, txCommand{cmd: c, locks: pend.locks, seq: seq, idx: idx})
	}
}

// endTx ends the client's transaction with EXEC's reply v and returns the
// queued commands it ran, each with its reply from v's array: none when v
// is not an array of one reply per queued command (nil: a WATCHed key
// changed; EXECABORT; DISCARD and a new MULTI pass the zero Value).
func (s *session) endTx(v Value) []txCommand {
	tx, n := s.tx, s.txQueued
	s.tx, s.txQueued, s.txShown = nil, 0, nil
	if v.Null || (v.Kind != '*' && v.Kind != '~') || len(v.Elems) != n {
		return nil
	}
	for i := range tx {
		tx[i].reply = v.Elems[tx[i].idx]
	}
	return tx
}

// handleTx handles an EXEC (o): the queued commands it ran, in their
// order, each as a command of o's client sent and answered with EXEC,
// with its reply from EXEC's array. Every lock key's state is the one
// read after EXEC (o.states; the lock reader reads the others once
// here), except after a SET answered OK, whose state its arguments give.
// An EXEC that ran none changes nothing.
func (a *analyzer) handleTx(ctx context.Context, o obs) {
	exec := o.e.Command
	if len(exec.tx) == 0 {
		return
	}
	states := o.states
	for _, k := range o.keys {
		if _, ok := states.get(k); ok || txSetsKey(exec.tx, k) {
			continue
		}
		st, err := a.read(ctx, k)
		if err != nil {
			a.p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: FaultObserverBehind, Key: k}, Error: err.Error()})
			continue
		}
		states = append(states, st)
	}
	for _, q := range exec.tx {
		ev := q.ran(exec)
		if ranNothing(ev) || len(q.locks) == 0 {
			continue
		}
		a.handle(ctx, obs{s: o.s, e: Event{Kind: EventCommand, Seq: q.seq, At: exec.Sent, Lane: o.e.Lane, Command: ev},
			keys: q.locks, states: states})
	}
}

// ran is q as its EXEC (exec) ran it: sent and answered with the EXEC,
// its reply from EXEC's array.
func (q txCommand) ran(exec *CommandEvent) *CommandEvent {
	args := q.cmd.traceArgs(len(q.locks) > 0)
	reply, _ := replyShown(q.reply, hiddenArgs(q.cmd.args, args), len(q.locks) > 0)
	return &CommandEvent{Name: q.cmd.name, Args: args, Locks: q.locks, Sent: exec.Sent,
		Replied: exec.Replied, ReplyLost: exec.ReplyLost, Reply: reply, value: q.reply, cmd: q.cmd}
}

// txSetsKey reports whether every command of tx on key is a SET
// answered OK, whose state its arguments give (setState): then no read
// is needed.
func txSetsKey(tx []txCommand, key string) bool {
	found := false
	for _, q := range tx {
		if !contains(q.locks, key) {
			continue
		}
		ev := CommandEvent{value: q.reply, cmd: q.cmd}
		if _, ok := setState(&ev, key); !ok {
			return false
		}
		found = true
	}
	return found
}
