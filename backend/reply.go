package backend

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// DecodeReply turns a go-redis result (RESP2) into a sim.Reply. It is the one
// place where Redis's reply conventions are read: a nil bulk reply (Lua nil
// or false) arrives from go-redis as the error redis.Nil; an error reply is an
// error implementing redis.Error. Any other error (the connection, a
// deadline) is returned as is.
//
// A reply larger than MaxReplyBytes in all is a *ValueTooLargeError: a
// script's reply is drawn in every frame, its panels and its exports, and
// escaped there, so a 16 MB reply once made a 200 MB websocket frame (a
// fresh-eyes attack on issue 37).
func DecodeReply(v any, err error) (sim.Reply, error) {
	if err == nil {
		if n := replyBytes(v); n > MaxReplyBytes {
			return sim.Reply{}, &ValueTooLargeError{What: "reply", Bytes: n}
		}
	}
	return decodeReply(v, err)
}

// MaxReplyBytes bounds a script's reply, and a key's value (all of a
// Hash's fields and values), that a step reads: 64 KiB, hundreds of times
// what a lock holds.
const MaxReplyBytes = 64 << 10

// ValueTooLargeError is a step that read a reply or a key larger than
// MaxReplyBytes; What is "reply" or the key's name.
type ValueTooLargeError struct {
	What  string
	Bytes int
}

func (e *ValueTooLargeError) Error() string {
	return fmt.Sprintf("backend: %s is %d bytes, over the %d bytes a step reads", e.What, e.Bytes, MaxReplyBytes)
}

// Message makes ValueTooLargeError a Coded error: backend.value-too-large.
func (e *ValueTooLargeError) Message() sim.Msg {
	return sim.M("backend.value-too-large", "What", e.What, "Bytes", e.Bytes, "Max", MaxReplyBytes)
}

// CheckKeySize returns a *ValueTooLargeError when key ks, as a step read
// it (a String's value, or all of a Hash's fields and values), is larger
// than MaxReplyBytes; nil otherwise. Every store that reads keys for a
// step (this package's, the search's) holds them to it.
func CheckKeySize(ks sim.KeyState) error {
	n := len(ks.Value)
	for _, f := range ks.Fields {
		n += len(f.Name) + len(f.Value)
	}
	if n > MaxReplyBytes {
		return &ValueTooLargeError{What: ks.Name, Bytes: n}
	}
	return nil
}

// replyBytes is the length of v's strings, its elements' too.
func replyBytes(v any) int {
	switch t := v.(type) {
	case string:
		return len(t)
	case []any:
		n := 0
		for _, e := range t {
			n += replyBytes(e) + 8
			if n > MaxReplyBytes {
				return n
			}
		}
		return n
	}
	return 8
}

func decodeReply(v any, err error) (sim.Reply, error) {
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return sim.NilReply(), nil
		}
		var re redis.Error
		if errors.As(err, &re) {
			return sim.ErrorReply(withoutUser(re.Error())), nil
		}
		return sim.Reply{}, err
	}
	switch t := v.(type) {
	case nil:
		return sim.NilReply(), nil
	case int64:
		return sim.IntReply(t), nil
	case string:
		return sim.StringReply(t), nil
	case []any:
		out := sim.Reply{Kind: sim.ReplyArray, Elems: make([]sim.Reply, len(t))}
		for i, e := range t {
			r, err := decodeReply(e, nil)
			if err != nil {
				return sim.Reply{}, err
			}
			out.Elems[i] = r
		}
		return out, nil
	case redis.Error:
		return sim.ErrorReply(withoutUser(t.Error())), nil
	}
	return sim.Reply{}, fmt.Errorf("backend: unexpected reply type %T", v)
}

// userNamed matches where an ACL refusal names the Redis user (Redis 7.2
// on: "NOPERM User lockstep has no permissions to run the 'x' command").
var userNamed = regexp.MustCompile(`\b[Uu]ser \S+ has no permissions`)

// withoutUser returns an error reply's text with the Redis user's name
// taken out of an ACL refusal ("this user has no permissions"): a reply is
// shown to the visitor whose script got it, and which user Lockstep runs
// as is the operator's business (a fresh-eyes attack on issue 37).
func withoutUser(text string) string {
	if !strings.Contains(text, "has no permissions") {
		return text
	}
	return userNamed.ReplaceAllString(text, "this user has no permissions")
}
