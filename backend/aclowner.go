package backend

import (
	"errors"
	"fmt"

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
// *PermissionError).
type OwnerInKeysError struct {
	Perm   *PermissionError
	Where  string
	Script string
	Err    error
}

func (e *OwnerInKeysError) Error() string {
	return fmt.Sprintf("the Redis ACL refused %s to user %s (%v) because the lock passes the owner id in KEYS (%s): Redis checks every KEYS entry against the user's key patterns, and an owner id is not a key under %s*; pass the owner id in ARGV",
		e.Perm.Command, e.Perm.User, e.Perm.Err, e.Where, KeyNamespace)
}

func (e *OwnerInKeysError) Unwrap() error { return e.Err }

// Message makes OwnerInKeysError a sim.Coded error:
// backend.acl-owner-in-keys with User, Command, the server's Reply, Where
// and Script.
func (e *OwnerInKeysError) Message() sim.Msg {
	reply := ""
	if e.Perm.Err != nil {
		reply = e.Perm.Err.Error()
	}
	return sim.M("backend.acl-owner-in-keys", "User", e.Perm.User, "Command", e.Perm.Command, "Reply", reply, "Where", e.Where, "Script", e.Script, "Namespace", KeyNamespace)
}

// ExplainACL returns err as an *OwnerInKeysError when it is an ACL
// refusal of a key (a *PermissionError whose rule is ~lockstep:*) and
// def, the variant the run used, passes the owner id in KEYS (its
// warning variant.owner-in-keys, the first one's place named); err
// unchanged otherwise, nil included.
func ExplainACL(err error, def *sim.VariantDef) error {
	var pe *PermissionError
	if def == nil || !errors.As(err, &pe) || pe.Rule != "~"+KeyNamespace+"*" {
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
