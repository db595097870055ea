package backend

import (
	"errors"
	"fmt"
	"strings"

	"lockstep/sim"
)

// OwnerInKeysError is a refusal that a learner's lock causes by passing
// the owner id in KEYS (the variant file's warning variant.owner-in-keys):
// the owner id is a value, not a key, yet Redis treats every KEYS entry as
// a key.
//
// With Perm set, an ACL refused it: Redis checks every KEYS entry against
// the user's key patterns, and an owner id is not a key under
// KeyNamespace, so the advice of PermissionError (add ~lockstep:*, which
// the user already has) would not help. Perm.User is "" when the refusal
// is the *sim.ScriptError of a user's script whose call Redis refused
// (which Redis user Lockstep runs as is the operator's business, not a
// visitor's).
//
// With Perm nil, Redis Cluster refused it (CrossSlot, the CROSSSLOT error
// reply): Cluster hashes every KEYS entry to a slot, and the owner id's slot
// is not the lock key's, so one script cannot touch both.
//
// Where is the FILE:LINE:COL of the KEYS list that names the owner,
// Script the script's role (acquire, release...). Err is the refusal as
// it came (it wraps the *PermissionError or the *sim.ScriptError).
type OwnerInKeysError struct {
	Perm      *PermissionError
	CrossSlot string // the Cluster's error reply, when Perm is nil
	Where     string
	Script    string
	Err       error
}

func (e *OwnerInKeysError) Error() string {
	switch {
	case e.Perm == nil:
		return fmt.Sprintf("Redis Cluster refused the script (%s) because the lock passes the owner id in KEYS (%s): Cluster hashes every KEYS entry to a slot, and the owner id's slot is not the lock key's; pass the owner id in ARGV (or give it the lock key's hash tag, {...})",
			e.CrossSlot, e.Where)
	case e.Perm.User == "":
		return fmt.Sprintf("the Redis ACL refused %s (%v) because the lock passes the owner id in KEYS (%s): Redis checks every KEYS entry against the user's key patterns, and an owner id is not a key under %s*; pass the owner id in ARGV",
			e.Perm.Command, e.Perm.Err, e.Where, KeyNamespace)
	}
	return fmt.Sprintf("the Redis ACL refused %s to user %s (%v) because the lock passes the owner id in KEYS (%s): Redis checks every KEYS entry against the user's key patterns, and an owner id is not a key under %s*; pass the owner id in ARGV",
		e.Perm.Command, e.Perm.User, e.Perm.Err, e.Where, KeyNamespace)
}

func (e *OwnerInKeysError) Unwrap() error { return e.Err }

// Message makes OwnerInKeysError a sim.Coded error:
// backend.acl-owner-in-keys with User, Command, the server's Reply, Where
// and Script; backend.acl-owner-in-keys-own, without User, when Perm.User
// is ""; backend.cluster-owner-in-keys, with Reply (the CROSSSLOT reply),
// Where and Script, when Perm is nil.
func (e *OwnerInKeysError) Message() sim.Msg {
	if e.Perm == nil {
		return sim.M("backend.cluster-owner-in-keys", "Reply", e.CrossSlot, "Where", e.Where, "Script", e.Script)
	}
	reply := ""
	if e.Perm.Err != nil {
		reply = e.Perm.Err.Error()
	}
	if e.Perm.User == "" {
		return sim.M("backend.acl-owner-in-keys-own", "Command", e.Perm.Command, "Reply", reply, "Where", e.Where, "Script", e.Script, "Namespace", KeyNamespace)
	}
	return sim.M("backend.acl-owner-in-keys", "User", e.Perm.User, "Command", e.Perm.Command, "Reply", reply, "Where", e.Where, "Script", e.Script, "Namespace", KeyNamespace)
}

// ExplainOwnerInKeys returns err as an *OwnerInKeysError when def, the
// variant the run used, passes the owner id in KEYS (its warning
// variant.owner-in-keys, the first one's place named) and err is what that
// design causes: an ACL refusal of a key (a *PermissionError whose rule is
// ~lockstep:*, or a user's script's NOPERM reply about its keys), or Redis
// Cluster's CROSSSLOT reply to the script. It returns err unchanged
// otherwise, nil included.
//
// A user's own script's refusal comes as its error reply (a
// *sim.ScriptError: the store does not name the Redis user to a visitor,
// store.go's permissionIn); one that refuses "one of the keys" is taken
// for the ACL's refusal, with no user named.
//
// Where err holds a *sim.StepRunError (a step of a run that failed), the
// explanation takes the place of the step's own error inside it, wrapping
// that error, and err is returned with its wrappers: whoever reads the
// step's error (StepRunError.Err) reads the explanation, with the step's
// number kept (a review of issue 33 found the CLI reading the bare
// NOPERM there). err must be the caller's own, fresh from its run. An
// err already explained is returned as it is.
func ExplainOwnerInKeys(err error, def *sim.VariantDef) error {
	var pe *PermissionError
	var se *sim.ScriptError
	var done *OwnerInKeysError
	crossSlot := ""
	switch {
	case def == nil, errors.As(err, &done):
		return err
	case errors.As(err, &pe):
		if pe.Rule != "~"+KeyNamespace+"*" {
			return err
		}
	case errors.As(err, &se) && strings.HasPrefix(se.Reply, "NOPERM") && strings.Contains(se.Reply, "keys"):
		pe = &PermissionError{Command: "EVALSHA", Rule: "~" + KeyNamespace + "*", Err: errors.New(se.Reply)}
	case errors.As(err, &se) && strings.HasPrefix(se.Reply, "CROSSSLOT"):
		crossSlot = se.Reply
	default:
		return err
	}
	for _, w := range def.Warnings {
		if w.Problem.ID != "variant.owner-in-keys" {
			continue
		}
		script, _ := w.Problem.Args["Script"].(string)
		oe := &OwnerInKeysError{Perm: pe, CrossSlot: crossSlot, Where: fmt.Sprintf("%s:%d:%d", w.File, w.Pos.Line, w.Pos.Col), Script: script, Err: err}
		var sre *sim.StepRunError
		if errors.As(err, &sre) {
			oe.Err, sre.Err = sre.Err, oe
			return err
		}
		return oe
	}
	return err
}
