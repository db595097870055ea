package backend

import (
	"errors"
	"fmt"
	"strings"

	"lockstep/sim"
)

// OwnerInKeysError is an ACL refusal of a key that a learner's lock
// causes by passing the owner id in KEYS (the variant file's warning
// variant.owner-in-keys): Redis checks every KEYS entry against the
// user's key patterns, and an owner id is not a key under KeyNamespace,
// so the advice of PermissionError (add ~lockstep:*, which the user
// already has) would not help. Where is the FILE:LINE:COL of the KEYS
// list that names the owner, Script the script's role (acquire,
// release...). Err is the refusal as it came (it wraps the
// *PermissionError, or is the *sim.ScriptError of a user's script whose
// call Redis refused: then Perm.User is "", since which Redis user
// Lockstep runs as is the operator's business, not a visitor's).
type OwnerInKeysError struct {
	Perm   *PermissionError
	Where  string
	Script string
	Err    error
}

func (e *OwnerInKeysError) Error() string {
	if e.Perm.User == "" {
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
// is "".
func (e *OwnerInKeysError) Message() sim.Msg {
	reply := ""
	if e.Perm.Err != nil {
		reply = e.Perm.Err.Error()
	}
	if e.Perm.User == "" {
		return sim.M("backend.acl-owner-in-keys-own", "Command", e.Perm.Command, "Reply", reply, "Where", e.Where, "Script", e.Script, "Namespace", KeyNamespace)
	}
	return sim.M("backend.acl-owner-in-keys", "User", e.Perm.User, "Command", e.Perm.Command, "Reply", reply, "Where", e.Where, "Script", e.Script, "Namespace", KeyNamespace)
}

// ExplainACL returns err as an *OwnerInKeysError when it is an ACL
// refusal of a key (a *PermissionError whose rule is ~lockstep:*) and
// def, the variant the run used, passes the owner id in KEYS (its
// warning variant.owner-in-keys, the first one's place named); err
// unchanged otherwise, nil included.
//
// A user's own script's refusal comes as its error reply (a
// *sim.ScriptError: the store does not name the Redis user to a visitor,
// store.go's permissionIn); one that refuses "one of the keys" is taken
// for the same refusal, with no user named.
func ExplainACL(err error, def *sim.VariantDef) error {
	var pe *PermissionError
	var se *sim.ScriptError
	switch {
	case def == nil:
		return err
	case errors.As(err, &pe):
		if pe.Rule != "~"+KeyNamespace+"*" {
			return err
		}
	case errors.As(err, &se) && strings.HasPrefix(se.Reply, "NOPERM") && strings.Contains(se.Reply, "keys"):
		pe = &PermissionError{Command: "EVALSHA", Rule: "~" + KeyNamespace + "*", Err: errors.New(se.Reply)}
	default:
		return err
	}
	for _, w := range def.Warnings {
		if w.Problem.ID != "variant.owner-in-keys" {
			continue
		}
		script, _ := w.Problem.Args["Script"].(string)
		return &OwnerInKeysError{Perm: pe, Where: fmt.Sprintf("%s:%d:%d", w.File, w.Pos.Line, w.Pos.Col), Script: script, Err: err}
	}
	return err
}
