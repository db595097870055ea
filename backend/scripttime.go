package backend

import (
	"context"
	"fmt"
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
// its steps of a user's script took on that Redis (less scriptTimeFree
// a step), and runs at most one
// such step at once; over Config.ScriptTimePerAddr within
// scriptTimeWindow its further steps are refused (ScriptTimeError) until
// enough of that time is a window old. Steps whose ctx carries no address
// (the server's own runs, the command line) are not charged.

// DefaultScriptTimePerAddr is the time one client address's steps of a
// user's script may take on a real Redis within a minute (serve
// -script-time-per-addr).
const DefaultScriptTimePerAddr = 3 * time.Second

// scriptTimeWindow is the window of Config.ScriptTimePerAddr.
const scriptTimeWindow = time.Minute

// scriptTimeFree is the time of each step that is not charged: a lock's
// step takes milliseconds, and the course table of a learner's lock, or
// a search of it, runs hundreds of them from one address; a step that
// holds Redis long is charged all the rest.
const scriptTimeFree = 50 * time.Millisecond

// ScriptTimeError is a step of a user's script refused before it ran on a
// real Redis: steps from its client address took Spent of Redis's time
// within Per, Budget or more. Wait is how long until enough of it is Per
// old.
type ScriptTimeError struct {
	Budget, Spent, Per, Wait time.Duration
	// Others: the script is another visitor's (WithOthersScript).
	Others bool
}

func (e *ScriptTimeError) Error() string {
	return fmt.Sprintf("backend: refused: scripts from this address took %s of Redis's time within %s, the %s one address may take (-script-time-per-addr); try again in %s",
		e.Spent.Round(time.Millisecond), e.Per, e.Budget, e.Wait.Round(time.Second))
}

// Message makes ScriptTimeError a Coded error: backend.script-time, or
// backend.script-time-class for a script of another visitor's.
func (e *ScriptTimeError) Message() sim.Msg {
	id := "backend.script-time"
	if e.Others {
		id = "backend.script-time-class"
	}
	return sim.M(id, "Spent", fmt.Sprintf("%.1f", e.Spent.Seconds()), "Budget", fmt.Sprintf("%.1f", e.Budget.Seconds()),
		"Seconds", int(e.Per.Seconds()), "Wait", int(max(time.Second, e.Wait.Round(time.Second)).Seconds()))
}

// timeLedger holds, per client address, the time its steps of a user's
// script took within the window, and a slot that lets one run at once.
// Safe for concurrent use.
type timeLedger struct {
	mu     sync.Mutex
	budget time.Duration
	spent  map[string][]timeSpent
	slots  map[string]*addrSlot
}

// addrSlot lets one step of an address's user's scripts run at once;
// users counts the steps holding or waiting for it, so that it is
// dropped only when none does.
type addrSlot struct {
	ch    chan struct{}
	users int
}

type timeSpent struct {
	end time.Time
	d   time.Duration
}

func newTimeLedger(budget time.Duration) *timeLedger {
	return &timeLedger{budget: budget, spent: map[string][]timeSpent{}, slots: map[string]*addrSlot{}}
}

// prune drops the time spent a window ago, of every address. Under mu.
func (l *timeLedger) prune(now time.Time) {
	for a, ts := range l.spent {
		i := 0
		for i < len(ts) && now.Sub(ts[i].end) >= scriptTimeWindow {
			i++
		}
		if i == len(ts) {
			delete(l.spent, a)
		} else {
			l.spent[a] = ts[i:]
		}
	}
}

// acquire waits for addr's slot (one step of a user's script at once per
// address), then returns its release, or a *ScriptTimeError when addr has
// spent the budget within the window (the slot then freed), or ctx's
// error. A nil ledger or the empty address is never held or refused.
func (l *timeLedger) acquire(ctx context.Context, addr string) (func(time.Duration), error) {
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
		l.mu.Lock()
		defer l.mu.Unlock()
		<-slot.ch
		leave()
	}
	now := time.Now()
	l.mu.Lock()
	l.prune(now)
	var spent time.Duration
	ts := l.spent[addr]
	for _, s := range ts {
		spent += s.d
	}
	if spent >= l.budget {
		// Wait until the oldest steps leave enough of the budget.
		left, wait := spent, time.Duration(0)
		for _, s := range ts {
			left -= s.d
			wait = scriptTimeWindow - now.Sub(s.end)
			if left < l.budget {
				break
			}
		}
		l.mu.Unlock()
		free()
		return nil, &ScriptTimeError{Budget: l.budget, Spent: spent, Per: scriptTimeWindow, Wait: wait}
	}
	l.mu.Unlock()
	return func(d time.Duration) {
		if d -= scriptTimeFree; d <= 0 {
			free()
			return
		}
		l.mu.Lock()
		l.spent[addr] = append(l.spent[addr], timeSpent{end: time.Now(), d: d})
		l.mu.Unlock()
		free()
	}, nil
}
