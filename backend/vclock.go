package backend

import (
	_ "embed"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// A step takes no simulated time: its calls, and the keys read after
// them, all happen at one instant. redis-server 7.0 moves its clock while
// a script runs (PTTL and SET PX inside a script read the real time) and
// between a transaction's commands, so a step is exact only when it runs
// within one server millisecond; the store sends it again until it does.
// A user's script that loops (a fresh-eyes review of issue 33: some
// 40,000 turns, 3 ms on redis-server) never does, and failed on a real
// Redis only, after 200 tries, where the embedded Redis (whose clock moves
// only when told) ran it.
//
// So on redis-server 7.0 or later, for a step on a single server that
// calls a user's script, the step's clock is fixed instead: a small
// script (clock.lua) run right after the restore writes the server's
// millisecond, VT, to each call's clock key (a built-in script's beside a
// user's too: it runs under the guard's clock part, clockedBuiltin) (KEYS[1] of the call and
// clockSuffix), and the key guard (keyGuard's clock) reads it when the
// script starts and runs the script at VT (its function timed, in
// lua/guard.lua): SET and GETEX with EX or PX,
// SETEX, PSETEX, EXPIRE and PEXPIRE set their expiry as VT plus the time
// given (PXAT, PEXPIREAT), and PTTL and TTL answer from PEXPIRETIME minus
// VT; a script that starts after VT's millisecond raises clockMovedMarker
// (key expiry inside a script is reckoned from its start) and the step is
// sent again. The keys are read after the calls with PEXPIRETIME, less
// VT. The step is then exact when the restore's PTTLs (expire.lua, after
// its contents) were set in VT's millisecond and
// no key read after the calls could have expired in real time while it
// is alive at VT (clockStraddled): how long the calls run no longer
// matters. A Redis before 7.0 (no PEXPIRETIME), or one whose version
// INFO did not tell, keeps the old rule.

//go:embed lua/clock.lua
var clockSource string

var clockScript = redis.NewScript(clockSource)

// clockSuffix makes a call's clock key from its first KEYS entry that is a
// key, as writtenSuffix does its written set; the guard refuses the name
// to the script itself.
const clockSuffix = ":lockstep:clock"

// clockMovedMarker is the error a guard on the step's clock raises when
// its script starts after the step's millisecond.
const clockMovedMarker = "lockstep: step clock moved before the script started"

// clockTTL is a clock key's TTL: the store deletes it in the transaction
// that made it.
const clockTTL = 60000

// onClock reports whether b runs on the step's clock on this store: a real
// Redis of version 7.0 or later (not the sandbox, whose miniredis clocks
// move only when told), a single server, and a call of a user's script.
func (s *Store) onClock(b *sim.Batch) bool {
	if !s.restore || s.be.sandbox || b.Replica != sim.NoReplica || b.Nodes != 0 || callsCustom(b) == "" {
		return false
	}
	return versionAtLeast7(s.Info().Version)
}

// versionAtLeast7 reports whether a redis_version is 7.0 or later ("" is
// not known: false).
func versionAtLeast7(v string) bool {
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 7
}

// clockKeys returns the clock keys of b's calls, each once: a user's
// script's, and a built-in script's beside it, which runs on the step's
// clock too (Store.script).
func (s *Store) clockKeys(b *sim.Batch) []string {
	var out []string
	for i := range b.Calls {
		if k, ok := WrittenKey(&b.Calls[i], s.prefix); ok {
			k = strings.TrimSuffix(k, writtenSuffix) + clockSuffix
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// clockMoved reports whether a reply is the guard's clockMovedMarker.
func clockMoved(r sim.Reply) bool {
	return r.Kind == sim.ReplyError && strings.Contains(r.Str, clockMovedMarker)
}

// clockStraddled reports whether a step on the step's clock VT (Unix ms),
// whose transaction began at t0 and ended at t1 (Unix ms), may have read
// other than the instant VT: the restore set its PTTLs before VT's
// millisecond (t0 is the TIME between its contents and its PTTLs), or
// a key of prior (the state the step began from, each restored at VT)
// absent after the calls had a lease that ran out in real time by t1 but
// not at VT (deleted by the calls, or expired meanwhile: which, cannot be
// told).
func clockStraddled(t0, vt, t1 int64, prior []sim.KeyState, read []sim.KeyState) bool {
	if t0 != vt {
		return true
	}
	before := make(map[string]sim.KeyState, len(prior))
	for _, k := range prior {
		before[k.Name] = k
	}
	for _, k := range read {
		if k.Exists() {
			continue
		}
		if p, ok := before[k.Name]; ok && p.Exists() && p.PTTL > 0 && vt+p.PTTL <= t1 {
			return true
		}
	}
	return false
}
