package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// ReplyKind is the RESP type of a reply as a Lua script returns it.
type ReplyKind string

// The reply kinds a lock script can return. Lua false and nil both arrive as
// ReplyNil; Lua true arrives as the integer 1 (Redis's conversion rules).
const (
	ReplyNil    ReplyKind = "nil"
	ReplyInt    ReplyKind = "int"
	ReplyString ReplyKind = "string"
	ReplyArray  ReplyKind = "array"
	ReplyError  ReplyKind = "error"
)

// Reply is a decoded Redis reply. Package backend builds them from go-redis
// results (backend.DecodeReply); the reference model builds them directly.
type Reply struct {
	Kind  ReplyKind `json:"kind"`
	Int   int64     `json:"int,omitempty"`
	Str   string    `json:"str,omitempty"` // string value, or the error text
	Elems []Reply   `json:"elems,omitempty"`
}

// NilReply, IntReply and StringReply build replies.
func NilReply() Reply             { return Reply{Kind: ReplyNil} }
func IntReply(n int64) Reply      { return Reply{Kind: ReplyInt, Int: n} }
func StringReply(s string) Reply  { return Reply{Kind: ReplyString, Str: s} }
func ArrayReply(e ...Reply) Reply { return Reply{Kind: ReplyArray, Elems: e} }
func ErrorReply(msg string) Reply { return Reply{Kind: ReplyError, Str: msg} }

// String renders the reply the way redis-cli prints it on one line:
// (nil), (integer) 1, "ACQUIRED", ["ACQUIRED", (integer) 3], (error) ...
func (r Reply) String() string {
	switch r.Kind {
	case ReplyNil:
		return "(nil)"
	case ReplyInt:
		return "(integer) " + strconv.FormatInt(r.Int, 10)
	case ReplyString:
		return strconv.Quote(r.Str)
	case ReplyArray:
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ReplyError:
		return "(error) " + r.Str
	}
	return fmt.Sprintf("(unknown %q)", r.Kind)
}

// IsInt reports whether r is the integer n.
func (r Reply) IsInt(n int64) bool { return r.Kind == ReplyInt && r.Int == n }

// IsString reports whether r is the string s.
func (r Reply) IsString(s string) bool { return r.Kind == ReplyString && r.Str == s }
