package proxy

import (
	"strconv"
	"strings"
)

// What the trace shows of a reply (issue 32: the values of keys that are
// not locks are never shown, stored or exported; credentials are redacted
// everywhere). A command on a lock key, a connection or server command
// (showsReply) has its reply shown whole with its raw bytes; any other
// command only its reply's shape (shape); EXEC's array element by element
// as its queued commands' own replies would be (execShown). An error
// reply never repeats an argument the trace hides (errorShown): Redis's
// and miniredis's "unknown command" errors echo the first arguments, ACL
// SETUSER's echoes the rule it refused.

// secretReplies are the keyless commands whose replies may hold
// credentials or values: CONFIG GET's (requirepass, masterauth), ACL's
// (ACL GETUSER's and ACL LIST's password hashes, ACL GENPASS's password,
// ACL LOG's), SLOWLOG GET's (commands with their arguments). Their
// replies are shown by shape.
var secretReplies = map[string]bool{"CONFIG": true, "ACL": true, "SLOWLOG": true}

// showsReply reports whether the trace shows c's reply whole when c names
// no lock key: a connection or server command's (keyless, CLIENT ...,
// SCRIPT LOAD), but not one of secretReplies nor EXEC (execShown).
func showsReply(c command) bool {
	switch {
	case secretReplies[c.name] || c.name == "EXEC":
		return false
	case keyless[c.name] || strings.HasPrefix(c.name, "CLIENT ") || c.name == "SCRIPT LOAD":
		return true
	}
	return false
}

// hiddenArgs are the arguments of args (as sent) the trace does not show,
// shown being what command.traceArgs kept of them: what an error reply
// must not repeat.
func hiddenArgs(args, shown []string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		if i >= len(shown) || shown[i] != args[i] {
			out = append(out, args[i])
		}
	}
	return out
}

// replyShown is what the trace shows of the reply v to a command whose
// arguments hidden (hiddenArgs) it hides: v written like redis-cli
// (Value.String) when whole, else its shape; an error either way as
// errorShown. raw reports whether v's raw bytes may be shown too: whole,
// and nothing taken out of it.
func replyShown(v Value, hidden []string, whole bool) (reply string, raw bool) {
	switch {
	case v.IsError():
		return errorShown(v, hidden)
	case whole:
		return v.String(), true
	}
	return shape(v), false
}

// shape describes a reply without its value: its type, and an array's
// size ("(integer)", "(value)", "(3 elements)"); nil, a status (OK,
// QUEUED) and an error's code are kept. A counter's INCR reply, a
// string's GET reply and a hash's HGETALL are alike values.
func shape(v Value) string {
	switch {
	case v.Null:
		return "(nil)"
	case v.IsError():
		return errorCode(v)
	}
	switch v.Kind {
	case '+':
		return v.Str
	case ':':
		return "(integer)"
	case '*', '%', '~':
		return "(" + strconv.Itoa(len(v.Elems)) + " elements)"
	}
	return "(value)"
}

// errorCode is the error reply v with its code only ("(error) ERR").
func errorCode(v Value) string {
	code, _, _ := strings.Cut(v.Str, " ")
	return "(error) " + code
}

// echoPrefix starts the part of Redis's and miniredis's unknown-command
// error that repeats the command's first arguments ("ERR unknown command
// 'X', with args beginning with: 'a' 'b'").
const echoPrefix = ", with args beginning with:"

// maxEcho is the most of one argument Redis repeats in an error (its
// unknown-command error stops at 128 bytes of arguments).
const maxEcho = 128

// errorShown is what the trace shows of the error reply v to a command
// whose arguments hidden it hides: v whole when it hides none; else with
// the unknown-command error's echo of arguments replaced by Redacted, and
// with only its code when a hidden argument still shows in it. raw
// reports whether v's raw bytes may be shown: only when nothing was taken
// out.
func errorShown(v Value, hidden []string) (reply string, raw bool) {
	if len(hidden) == 0 {
		return v.String(), true
	}
	msg := v.Str
	if i := strings.Index(msg, echoPrefix); i >= 0 {
		msg = msg[:i] + echoPrefix + " " + Redacted
	}
	for _, h := range hidden {
		if h != "" && strings.Contains(msg, h[:min(len(h), maxEcho)]) {
			return errorCode(v), false
		}
	}
	return Value{Kind: v.Kind, Str: msg}.String(), false
}

// queuedShown is one command Redis answered QUEUED in a client's
// transaction, as the trace shows its reply in EXEC's array: whole when
// it names a lock key, else by shape; hidden are the arguments the trace
// hides of it (hiddenArgs).
type queuedShown struct {
	lock   bool
	hidden []string
}

// execShown is what the trace shows of EXEC's reply v, queued being the
// transaction's commands in the order Redis queued them: each element of
// v's array as that command's own reply would be shown (replyShown); an
// element no known command answers (beyond maxPipeline, or an array of
// another length) by shape, an error by its code. Anything else (nil, an
// EXECABORT error) whole. raw reports whether v's raw bytes may be shown:
// only when every element is shown whole.
func execShown(v Value, queued []queuedShown) (reply string, raw bool) {
	if v.Null || (v.Kind != '*' && v.Kind != '~') {
		return replyShown(v, nil, true)
	}
	known := len(v.Elems) == len(queued)
	var b strings.Builder
	b.WriteString("[")
	raw = true
	for i, e := range v.Elems {
		if i > 0 {
			b.WriteString(", ")
		}
		var s string
		var whole bool
		switch {
		case known:
			s, whole = replyShown(e, queued[i].hidden, queued[i].lock)
		case e.IsError():
			s = errorCode(e)
		default:
			s = shape(e)
		}
		b.WriteString(s)
		raw = raw && whole
	}
	b.WriteString("]")
	return b.String(), raw
}
