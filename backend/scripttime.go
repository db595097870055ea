package backend

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"lockstep/sim"
)

// On a real Redis opened to users' scripts (Config.AllowCustomScripts)
// each step of a user's script may hold Redis for up to MaxScriptRunTime,
// and Redis runs one script at a time: back to back from one address (3
// sockets x 8 forks, a fresh-eyes attack on issue 37) they kept PING at a
// p90 of 747 ms and up to 3.3 s, and every other visitor's step waited 0.8
// to 2.1 s. So each client address (WithClientAddr) is charged the time
// its steps of a user's script took on that Redis (every millisecond of
// it: scriptTimeFree is none), and runs at most one such step at once; all the addresses
// together are charged against Config.ScriptTimeTotal, so that many
// addresses do not multiply the bound. Before a step runs, the worst it
// may take (the step's own bound) is reserved
// against both; the step runs only if the reservation fits within both
// budgets, and the part it did not use is given back when it ends (a
// fresh-eyes re-check of issue 37: charged after the step, a visitor's
// 1 s steps reached some 4.3 s a minute against 3 s). Past a budget within
// scriptTimeWindow further steps are refused (ScriptTimeError) until
// enough of that time is a window old. Steps whose ctx carries no address
// (the server's own runs, the command line) are not charged.
//
// The Lua sandbox (Sandbox) charges its steps of users' scripts the same
// way, to a ledger of its own (SandboxConfig.TimePerAddr and TimeTotal):
// its process is the server's machine's CPU, and a step there is the time
// from sending it to its answer, retries included; a search's steps
// (searchpage) as any other.

// DefaultScriptTimePerAddr is the time one client address's steps of a
// user's script may take on a real Redis within a minute (serve
// -script-time-per-addr).
const DefaultScriptTimePerAddr = 3 * time.Second

// DefaultScriptTimeTotal is the time all client addresses' steps of
// users' scripts together may take on a real Redis within a minute (serve
// -script-time-total): a third of Redis's one core, so that the rest of
// its time is the lessons' and other clients'. One address is held to a
// quarter of it at most (scriptTimeShare), however large its own budget.
const DefaultScriptTimeTotal = 20 * time.Second

// DefaultSandboxTimePerAddr is the time one client address's steps of a
// user's script may take in the Lua sandbox within a minute (serve
// -sandbox-time-per-addr, SandboxConfig.TimePerAddr): a sixth of a core.
// A learner's lock step takes a few milliseconds there, so thousands of
// them fit; 20 sockets of one address whose every step ran a 99,000-turn
// loop within each bound kept 0.8 of a core busy for a minute before it
// (a fresh attacker on issue 37).
const DefaultSandboxTimePerAddr = 10 * time.Second

// DefaultSandboxTimeTotal is the time all client addresses' steps of
// users' scripts together may take in the Lua sandbox within a minute
// (serve -sandbox-time-total, SandboxConfig.TimeTotal): two thirds of one
// of the server's cores. One address is held to a quarter of it at most
// (scriptTimeShare), as on a real Redis.
const DefaultSandboxTimeTotal = 40 * time.Second

// scriptTimeShare is the largest part of Config.ScriptTimeTotal one
// address may take within a window: its budget is cut to total /
// scriptTimeShare when larger (or unbounded), so that one address never
// takes the whole server's time and others still get steps in.
const scriptTimeShare = 4

// scriptTimeWindow is the window of Config.ScriptTimePerAddr and
// Config.ScriptTimeTotal.
const scriptTimeWindow = time.Minute

// scriptTimeFree is the time of each step that is not charged: none. It
// was 50 ms, and 512 forks of steps of 18 to 59 ms each, all free, took
// 83% of Redis's core with none refused (a fresh attacker on issue 37), so
// every step is charged all the time it took; a lock's step takes a few
// milliseconds, so the course table of a learner's lock still fits many
// hundreds of them in DefaultScriptTimePerAddr.
const scriptTimeFree = 0 * time.Millisecond

// ScriptTimeError is a step of a user's script refused before it ran on a
// real Redis or (Sandbox) in the Lua sandbox: the steps of its client address (or, Server, of every
// address) took Spent of Redis's time within Per, and the step's
// reservation (the most it may take) would take them past Budget. Wait is
// how long until enough of it is Per old.
type ScriptTimeError struct {
	Budget, Spent, Per, Wait time.Duration
	// Others: the script is another visitor's (WithOthersScript).
	Others bool
	// Server: the budget is the server's, all addresses together
	// (-script-time-total), not the address's.
	Server bool
	// Sandbox: the budget is the Lua sandbox's (-sandbox-time-per-addr,
	// -sandbox-time-total), not a real Redis's.
	Sandbox bool
}

func (e *ScriptTimeError) Error() string {
	if e.Sandbox {
		who, flag := "scripts from this address", "one address may take (-sandbox-time-per-addr)"
		if e.Server {
			who, flag = "the scripts of every visitor", "they may take together (-sandbox-time-total)"
		}
		return fmt.Sprintf("backend: refused: %s took %s of the Lua sandbox's time within %s, and a step may take more than the rest of the %s %s; try again in %s",
			who, e.Spent.Round(time.Millisecond), e.Per, e.Budget, flag, e.Wait.Round(time.Second))
	}
	if e.Server {
		return fmt.Sprintf("backend: refused: the scripts of every visitor took %s of Redis's time within %s, and a step may take more than the rest of the %s they may take together (-script-time-total); try again in %s",
			e.Spent.Round(time.Millisecond), e.Per, e.Budget, e.Wait.Round(time.Second))
	}
	return fmt.Sprintf("backend: refused: scripts from this address took %s of Redis's time within %s, and a step may take more than the rest of the %s one address may take (-script-time-per-addr); try again in %s",
		e.Spent.Round(time.Millisecond), e.Per, e.Budget, e.Wait.Round(time.Second))
}

// Message makes ScriptTimeError a Coded error: backend.script-time,
// backend.script-time-class for a script of another visitor's, or
// backend.script-time-server for the server's budget; in the Lua sandbox
// backend.sandbox-time, backend.sandbox-time-class and
// backend.sandbox-time-server.
func (e *ScriptTimeError) Message() sim.Msg {
	ids := [3]string{"backend.script-time", "backend.script-time-server", "backend.script-time-class"}
	if e.Sandbox {
		ids = [3]string{"backend.sandbox-time", "backend.sandbox-time-server", "backend.sandbox-time-class"}
	}
	id := ids[0]
	switch {
	case e.Server:
		id = ids[1]
	case e.Others:
		id = ids[2]
	}
	return sim.M(id, "Spent", fmt.Sprintf("%.1f", e.Spent.Seconds()), "Budget", fmt.Sprintf("%.1f", e.Budget.Seconds()),
		"Seconds", int(e.Per.Seconds()), "Wait", int(max(time.Second, e.Wait.Round(time.Second)).Seconds()))
}

// timeLedger holds, per client address, the time its steps of a user's
// script took within the window (and the reservations of the steps
// running), and a slot that lets one run at once. Safe for concurrent
// use.
type timeLedger struct {
	mu sync.Mutex
	// budget is one address's, total all addresses' (0: none); each
	// within scriptTimeWindow.
	budget, total time.Duration
	// sandbox: the ledger is the Lua sandbox's (its refusals say so).
	sandbox bool
	spent   map[string][]*timeSpent
	slots   map[string]*addrSlot
}

// addrSlot lets one step of an address's user's scripts run at once;
// users counts the steps holding or waiting for it, so that it is
// dropped only when none does.
type addrSlot struct {
	ch    chan struct{}
	users int
}

// timeSpent is one step's charge: what it took past scriptTimeFree, or
// while it runs its reservation; end is when it ended (or began).
type timeSpent struct {
	end time.Time
	d   time.Duration
}

// newTimeLedger returns a ledger of budget a window per address (<= 0:
// none but the share of total) and total a window for all addresses
// together (<= 0: none). An address's budget is cut to total /
// scriptTimeShare when that is smaller.
func newTimeLedger(budget, total time.Duration) *timeLedger {
	if total > 0 {
		if share := total / scriptTimeShare; budget <= 0 || budget > share {
			budget = share
		}
	} else {
		total = 0
	}
	return &timeLedger{budget: max(budget, 0), total: total, spent: map[string][]*timeSpent{}, slots: map[string]*addrSlot{}}
}

// prune drops the time spent a window ago, of every address. Under mu.
func (l *timeLedger) prune(now time.Time) {
	for a, ts := range l.spent {
		ts = slices.DeleteFunc(ts, func(s *timeSpent) bool { return now.Sub(s.end) >= scriptTimeWindow })
		if len(ts) == 0 {
			delete(l.spent, a)
		} else {
			l.spent[a] = ts
		}
	}
}

// over returns, for charges ts (in any order) against budget, their sum
// and, when the sum and need pass budget, how long until enough of them
// are a window old that need fits (ok false). Under mu.
func over(ts []*timeSpent, budget, need time.Duration, now time.Time) (spent, wait time.Duration, ok bool) {
	for _, s := range ts {
		spent += s.d
	}
	if spent+need <= budget {
		return spent, 0, true
	}
	byEnd := slices.Clone(ts)
	slices.SortFunc(byEnd, func(a, b *timeSpent) int { return a.end.Compare(b.end) })
	left := spent
	for _, s := range byEnd {
		left -= s.d
		wait = scriptTimeWindow - now.Sub(s.end)
		if left+need <= budget {
			break
		}
	}
	return spent, wait, false
}

// acquire waits for addr's slot (one step of a user's script at once per
// address), then reserves worst (the most the step may take: its bound)
// against addr's budget and the server's and returns the release, which
// charges what the step took (and gives back the rest of the
// reservation); or a *ScriptTimeError when the reservation does not fit
// (the slot then freed), or ctx's error. A reservation larger than a
// budget is cut to it, so that a step may still run when nothing was
// spent. A nil ledger or the empty address is never held or refused.
func (l *timeLedger) acquire(ctx context.Context, addr string, worst time.Duration) (func(time.Duration), error) {
	if l == nil || addr == "" {
		return func(time.Duration) {}, nil
	}
	l.mu.Lock()
	slot, ok := l.slots[addr]
	if !ok {
		slot = &addrSlot{ch: make(chan struct{}, 1)}
		l.slots[addr] = slot
	}
	slot.users++
	l.mu.Unlock()
	leave := func() {
		if slot.users--; slot.users == 0 {
			delete(l.slots, addr)
		}
	}
	select {
	case slot.ch <- struct{}{}:
	case <-ctx.Done():
		l.mu.Lock()
		leave()
		l.mu.Unlock()
		return nil, ctx.Err()
	}
	free := func() {
		<-slot.ch
		leave()
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prune(now)
	need := max(worst-scriptTimeFree, 0)
	if l.budget > 0 {
		need = min(need, l.budget)
	}
	if l.total > 0 {
		need = min(need, l.total)
	}
	if l.budget > 0 {
		if spent, wait, ok := over(l.spent[addr], l.budget, need, now); !ok {
			free()
			return nil, &ScriptTimeError{Budget: l.budget, Spent: spent, Per: scriptTimeWindow, Wait: wait, Sandbox: l.sandbox}
		}
	}
	if l.total > 0 {
		var all []*timeSpent
		for _, ts := range l.spent {
			all = append(all, ts...)
		}
		if spent, wait, ok := over(all, l.total, need, now); !ok {
			free()
			return nil, &ScriptTimeError{Budget: l.total, Spent: spent, Per: scriptTimeWindow, Wait: wait, Server: true, Sandbox: l.sandbox}
		}
	}
	held := &timeSpent{end: now, d: need}
	if need > 0 {
		l.spent[addr] = append(l.spent[addr], held)
	}
	return func(d time.Duration) {
		l.mu.Lock()
		defer l.mu.Unlock()
		held.end, held.d = time.Now(), max(d-scriptTimeFree, 0)
		if held.d == 0 {
			l.spent[addr] = slices.DeleteFunc(l.spent[addr], func(s *timeSpent) bool { return s == held })
			if len(l.spent[addr]) == 0 {
				delete(l.spent, addr)
			}
		} else if need == 0 {
			l.spent[addr] = append(l.spent[addr], held)
		}
		free()
	}, nil
}
