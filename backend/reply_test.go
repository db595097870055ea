package backend

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// replyError is an error reply as go-redis hands it over: an error that
// implements redis.Error.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

func TestDecodeReply(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		v    any
		err  error
		want string
	}{
		{"nil bulk (Lua nil or false)", nil, redis.Nil, "(nil)"},
		{"integer", int64(1), nil, "(integer) 1"},
		{"zero", int64(0), nil, "(integer) 0"},
		{"string", "ACQUIRED", nil, `"ACQUIRED"`},
		{"array with nil inside", []any{"ACQUIRED", int64(3), nil}, nil, `["ACQUIRED", (integer) 3, (nil)]`},
		{"error reply", nil, replyError("WRONGTYPE Operation against a key holding the wrong kind of value"), "(error) WRONGTYPE Operation against a key holding the wrong kind of value"},
	}
	for _, c := range cases {
		got, err := DecodeReply(c.v, c.err)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := DecodeReply(nil, errors.New("dial tcp: refused")); err == nil {
		t.Error("a connection error must stay an error")
	}
	if r, _ := DecodeReply(nil, redis.Nil); r.Kind != sim.ReplyNil {
		t.Errorf("kind %s", r.Kind)
	}
}
