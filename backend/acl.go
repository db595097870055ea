package backend

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// ACLRules is what an ACL user needs to run Lockstep, and nothing more: its
// own keys and channels, every command but the dangerous ones, and INFO
// (optional: without it the header has no version). For example:
//
//	ACL SETUSER lockstep on >PASSWORD ~lockstep:* &lockstep:* +@all -@dangerous +info
const ACLRules = "~" + KeyNamespace + "* &" + KeyNamespace + "* +@all -@dangerous +info"

// ErrPermission is wrapped by the error of a command the server's ACL
// refused; errors.As gives the *PermissionError.
var ErrPermission = errors.New("backend: refused by the server's ACL")

// PermissionError is a command Lockstep needs that the server's ACL refused
// to the user Lockstep connected as. Command names it, Rule is the ACL rule
// that grants it (+time, ~lockstep:*, &lockstep:*).
type PermissionError struct {
	User    string
	Command string
	Rule    string
	Err     error // the server's reply
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("the Redis ACL refused %s to user %s (%v): add %s to the user (ACL SETUSER %s %s), or give it all Lockstep needs: ACL SETUSER %s %s",
		e.Command, e.User, e.Err, e.Rule, e.User, e.Rule, e.User, ACLRules)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Message makes PermissionError a sim.Coded error: backend.acl-refused with
// User, Command, Rule, the server's Reply and the Rules Lockstep needs.
func (e *PermissionError) Message() sim.Msg {
	reply := ""
	if e.Err != nil {
		reply = e.Err.Error()
	}
	return sim.M("backend.acl-refused", "User", e.User, "Command", e.Command, "Rule", e.Rule, "Reply", reply, "Rules", ACLRules)
}

// Is makes errors.Is(err, ErrPermission) hold.
func (e *PermissionError) Is(target error) bool { return target == ErrPermission }

// isPermission reports whether err is an ACL refusal: NOPERM for a command
// sent, or a script's call refused ("The user executing the script can't
// ...").
func isPermission(err error) bool {
	if err == nil {
		return false
	}
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	m := re.Error()
	return strings.HasPrefix(m, "NOPERM") || strings.Contains(m, "user executing the script can't")
}

var quotedCommand = regexp.MustCompile(`run the '([^']+)' command`)

// permission returns err as a *PermissionError when the ACL refused cmd
// (the command sent, upper case), and err unchanged otherwise.
func (b *Backend) permission(cmd string, err error) error {
	if !isPermission(err) {
		return err
	}
	m := err.Error()
	rule := "+" + strings.ToLower(cmd)
	switch {
	case strings.Contains(m, "channel"):
		rule = "&" + KeyNamespace + "*"
	case strings.Contains(m, "key"):
		rule = "~" + KeyNamespace + "*"
	default:
		if q := quotedCommand.FindStringSubmatch(m); q != nil {
			cmd, rule = strings.ToUpper(q[1]), "+"+strings.ToLower(strings.ReplaceAll(q[1], " ", "|"))
		} else if strings.Contains(m, "script") {
			rule = "+@all"
		}
	}
	return &PermissionError{User: b.user, Command: cmd, Rule: rule, Err: err}
}

// permissionIn returns the first ACL refusal among cmds, but those in
// skip, as a *PermissionError, or nil.
func (b *Backend) permissionIn(cmds []redis.Cmder, skip map[redis.Cmder]bool) error {
	for _, c := range cmds {
		if isPermission(c.Err()) && !skip[c] {
			return b.permission(strings.ToUpper(c.Name()), c.Err())
		}
	}
	return nil
}
