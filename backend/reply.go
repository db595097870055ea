package backend

import (
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// DecodeReply turns a go-redis result (RESP2) into a sim.Reply. It is the one
// place where Redis's reply conventions are read: a nil bulk reply (Lua nil
// or false) arrives from go-redis as the error redis.Nil; an error reply is an
// error implementing redis.Error. Any other error (the connection, a
// deadline) is returned as is.
func DecodeReply(v any, err error) (sim.Reply, error) {
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return sim.NilReply(), nil
		}
		var re redis.Error
		if errors.As(err, &re) {
			return sim.ErrorReply(re.Error()), nil
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
			r, err := DecodeReply(e, nil)
			if err != nil {
				return sim.Reply{}, err
			}
			out.Elems[i] = r
		}
		return out, nil
	case redis.Error:
		return sim.ErrorReply(t.Error()), nil
	}
	return sim.Reply{}, fmt.Errorf("backend: unexpected reply type %T", v)
}
