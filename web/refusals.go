package web

import (
	"errors"

	"lockstep/backend"
	"lockstep/sim"
)

// Error codes of steps refused before they could run: not Redis failing,
// so the page does not show them as "Redis did not answer".
const (
	// ErrCodeStepTooLarge: the step would do more work than a bound of
	// package sim allows (sim.LimitError, e.g. more watchdog renewals than
	// sim.MaxRenewalsPerStep); it will be refused again as it is.
	ErrCodeStepTooLarge = "step-too-large"
	// ErrCodeRedisACL: the Redis ACL refused a command Lockstep needs
	// (backend.PermissionError); the message names the command and the
	// rule to add, after which the step can be tried again.
	ErrCodeRedisACL = "redis-acl"
	// ErrCodeScriptError: a learner's own lock failed the step, not
	// Redis: its script stopped with a Lua runtime error (sim.ScriptError
	// naming the script's file and line), or the ACL refused a key its
	// design names (backend.OwnerInKeysError: the owner id in KEYS). The
	// step fails again until the lock changes.
	ErrCodeScriptError = "script-error"
)

// stepRefusal says, in t's language, why err refused a step: a bound of
// package sim (naming it), a learner's script (a Lua runtime error at its
// file and line, or the owner id in KEYS that the ACL refuses as a key;
// backend.ExplainOwnerInKeys must have been applied), the Redis ACL (naming the
// command and the rule to add) or the client address's bound on stops of the Lua sandbox
// (backend.SandboxKillsError, naming the bound and when to try again). ok is false for any other error.
func stepRefusal(t *translator, err error) (code, reason string, ok bool) {
	var le *sim.LimitError
	if errors.As(err, &le) {
		return ErrCodeStepTooLarge, t.Msg(le.Message()), true
	}
	var oe *backend.OwnerInKeysError
	if errors.As(err, &oe) {
		return ErrCodeScriptError, t.Msg(oe.Message()), true
	}
	var se *sim.ScriptError
	if errors.As(err, &se) && se.Where != "" {
		return ErrCodeScriptError, t.Msg(se.Message()), true
	}
	var pe *backend.PermissionError
	if errors.As(err, &pe) {
		return ErrCodeRedisACL, t.Msg(pe.Message()), true
	}
	var we *backend.RunWritesError
	if errors.As(err, &we) {
		// The learner's scripts wrote past the run's bound: refused by name.
		return ErrCodeScriptError, t.Msg(we.Message()), true
	}
	var te *backend.ScriptTimeError
	if errors.As(err, &te) {
		// The address's share of a real Redis's (or the Lua sandbox's)
		// time for its scripts.
		return ErrCodeRateLimited, t.Msg(te.Message()), true
	}
	var ke *backend.SandboxKillsError
	if errors.As(err, &ke) {
		// The address's bound on stops of the shared Lua sandbox: not
		// carried out, as a message over a rate limit is.
		return ErrCodeRateLimited, t.Msg(ke.Message()), true
	}
	return "", "", false
}
