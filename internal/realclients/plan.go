package realclients

import (
	"fmt"
	"net"
)

// Lib names a client library a worker drives.
type Lib string

// The libraries. Versions are pinned in node/package-lock.json (redlock,
// node-redisson, ioredis), go.mod (redsync) and by Debian (python3-redis).
const (
	Redlock  Lib = "redlock"  // npm redlock 4.2.0 on ioredis
	Redisson Lib = "redisson" // npm node-redisson 1.0.4 on ioredis: Redisson's lock protocol
	RedisPy  Lib = "redis-py" // redis-py's Lock, Debian python3-redis 4.3.4
	Redsync  Lib = "redsync"  // github.com/go-redsync/redsync/v4 on go-redis v9, in process
)

// Libs returns every library, in a fixed order.
func Libs() []Lib { return []Lib{Redlock, Redisson, RedisPy, Redsync} }

// Plan is what a worker does: it connects to Addr as client Name (CLIENT
// SETNAME), then runs Steps in order on one lock object for Key, then
// exits. It is the JSON a worker reads from its first argument.
type Plan struct {
	// Addr is Redis's HOST:PORT; Start fills it from its addr argument.
	Addr string `json:"addr"`
	// Key is the lock's key (node-redisson: the Hash's key; its unlock
	// channel is redisson_lock__channel:{Key}).
	Key string `json:"key"`
	// LeaseMS is the lease in milliseconds for acquire and extend.
	LeaseMS int `json:"lease_ms"`
	// Name is the connection's client name (CLIENT SETNAME) and the
	// events' name.
	Name string `json:"name"`
	// WatchdogMS is node-redisson's lockWatchdogTimeout in milliseconds
	// (0: the library's 30,000): a watchdog acquire sets the lease to it and
	// renews every WatchdogMS/3. Other libraries ignore it.
	WatchdogMS int    `json:"watchdog_ms,omitempty"`
	Steps      []Step `json:"steps"`
}

// Step is one action of a Plan.
type Step struct {
	// Do is the action: "acquire" (one attempt, or retries for WaitMS),
	// "hold" (sleep MS, holding whatever the worker holds), "extend" (set
	// the lease back to LeaseMS; node-redisson has none and answers
	// "unsupported"), "release", or "await" (report "awaiting", then block
	// until Worker.Continue).
	Do string `json:"do"`
	// MS is how long "hold" sleeps, in milliseconds.
	MS int `json:"ms,omitempty"`
	// WaitMS is how long "acquire" may keep trying while the lock is busy,
	// in milliseconds (0: one attempt).
	WaitMS int `json:"wait_ms,omitempty"`
	// Watchdog makes node-redisson's "acquire" take the lock without a
	// lease, kept alive by its watchdog (Redisson's lock()).
	Watchdog bool `json:"watchdog,omitempty"`
	// Watch makes redis-py's "release" the check-and-delete that Redis's
	// documentation gave before scripts, as applications still write it:
	// WATCH the key, GET it, and when it holds the lock's token, DEL it in
	// a MULTI/EXEC transaction (redis-py's pipeline(transaction=True));
	// "not_owner" when the token differs or EXEC answers nil (WatchError:
	// the key changed after WATCH). Only redis-py takes it (Start refuses
	// it for the others).
	Watch bool `json:"watch,omitempty"`
}

// Actions of a Step.
const (
	Acquire = "acquire"
	Hold    = "hold"
	Extend  = "extend"
	Release = "release"
	Await   = "await"
)

// Outcomes of an Event, the same words for every library.
const (
	Ready       = "ready"        // connected; before the first step
	Acquired    = "acquired"     // acquire took the lock
	Busy        = "busy"         // acquire found it held by another owner
	Held        = "held"         // hold's sleep ended
	Extended    = "extended"     // extend set the lease again
	LockLost    = "lock_lost"    // extend refused: the worker no longer owns the lock
	Released    = "released"     // release deleted (or, reentrant, decremented) the lock
	NotOwner    = "not_owner"    // release refused: the worker no longer owns the lock
	Renewed     = "renewed"      // node-redisson's watchdog renewed the lease (Step -1)
	RenewFailed = "renew_failed" // its renewal found the lock gone and stopped
	Awaiting    = "awaiting"     // an await step waits for Continue
	Continued   = "continued"    // Continue released it
	Unsupported = "unsupported"  // the library has no such action
	ClientError = "client_error" // a Node worker's connection failed (ioredis reconnects) or node-redlock saw a Redis error (Step -1)
	Error       = "error"        // anything else: Error holds the library's text
	Done        = "done"         // the worker ran every step and exits
)

// Event is one thing a worker reports; a worker writes each as one JSON
// line.
type Event struct {
	Lib  Lib    `json:"lib"`
	Name string `json:"name"` // the plan's client name
	// Step is the index of the step in Plan.Steps, or -1 for events of no
	// step (ready, renewed, renew_failed, client_error, done).
	Step    int    `json:"step"`
	Do      string `json:"do,omitempty"` // the step's action
	Outcome string `json:"outcome"`
	// Owner is what the library stores as the lock's owner: the value of
	// the key (redlock, redis-py, redsync) or the Hash field (node-redisson).
	Owner string `json:"owner,omitempty"`
	// Error is the library's own error text, ErrorType its class or
	// sentinel (LockError, LockNotOwnedError, RedissonLockError,
	// ErrLockAlreadyExpired, ErrTaken, ...).
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"error_type,omitempty"`
	// AtMS is when the event was written, in milliseconds since the worker
	// started (process start for Node and Python, Start for redsync).
	AtMS float64 `json:"at_ms"`
	// TookMS is how long the step's library call took, in milliseconds.
	TookMS float64 `json:"took_ms,omitempty"`
}

// validate reports the first thing wrong with p, naming the field.
func (p Plan) validate() error {
	if _, _, err := net.SplitHostPort(p.Addr); err != nil {
		return fmt.Errorf("realclients: plan addr %q: %w", p.Addr, err)
	}
	if p.Key == "" || p.Name == "" {
		return fmt.Errorf("realclients: plan key and name must not be empty")
	}
	if p.LeaseMS <= 0 || p.WatchdogMS < 0 {
		return fmt.Errorf("realclients: plan lease_ms must be > 0 and watchdog_ms >= 0 (got %d, %d)", p.LeaseMS, p.WatchdogMS)
	}
	for i, s := range p.Steps {
		switch s.Do {
		case Acquire, Hold, Extend, Release, Await:
		default:
			return fmt.Errorf("realclients: plan steps[%d].do: unknown action %q", i, s.Do)
		}
		if s.Watch && s.Do != Release {
			return fmt.Errorf("realclients: plan steps[%d]: watch is for a release, not %q", i, s.Do)
		}
		if s.MS < 0 || s.WaitMS < 0 {
			return fmt.Errorf("realclients: plan steps[%d]: ms and wait_ms must be >= 0", i)
		}
	}
	return nil
}
