package sim

import (
	"fmt"
	"strconv"
)

// tokenCount is seed 001's design: Hash {owner = grant token, count}, a fresh
// grant token per outermost acquire, replies that name the outcome.
type tokenCount struct{}

func (tokenCount) info() VariantInfo {
	return VariantInfo{
		Name: "token-count", Source: "001_5402deabadbfda6d.txt", LockType: TypeHash, CountsInRedis: true, IssuesFences: true,
		Scripts: []*Script{mustScript("token-count/acquire"), mustScript("token-count/release"), mustScript("resource/write"), mustScript("resource/write_fenced")},
	}
}

func (tokenCount) newOwner(r *Runner, _ *actor) string { return r.newToken() }

func (tokenCount) acquire(op lockOp, g *grant) *Call {
	outermost := "1"
	if g != nil {
		outermost = "0"
	}
	c := &Call{Script: mustScript("token-count/acquire"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS), outermost}}
	if op.fenceKey != "" {
		c.Keys = append(c.Keys, op.fenceKey)
		c.Args = append(c.Args, ms(op.keepMS))
	}
	return c
}

func (tokenCount) acquireOutcome(_ lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	name := reply
	if reply.Kind == ReplyArray && len(reply.Elems) == 2 {
		name = reply.Elems[0]
	}
	if name.Kind == ReplyString {
		switch o := Outcome(name.Str); o {
		case Acquired, Reentered, Busy, Lost:
			return o, nil
		}
	}
	return "", fmt.Errorf("sim: token-count acquire: unexpected reply %s", reply)
}

func (tokenCount) release(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("token-count/release"), Keys: []string{op.key}, Args: []string{op.owner}}
}

func (tokenCount) releaseOutcome(_ lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	if reply.Kind == ReplyString {
		switch o := Outcome(reply.Str); o {
		case Released, StillHeld, NotOwner:
			return o, nil
		}
	}
	return "", fmt.Errorf("sim: token-count release: unexpected reply %s", reply)
}

func (tokenCount) holds(k KeyState) map[string]int64 {
	owner, ok := k.Field("owner")
	if !ok {
		return nil
	}
	n, _ := k.Field("count")
	c, _ := strconv.ParseInt(n, 10, 64)
	return map[string]int64{owner: c}
}

// fenceOf returns the fencing token in an ACQUIRED reply, 0 when it has none.
func fenceOf(reply Reply) int64 {
	if reply.Kind == ReplyArray && len(reply.Elems) == 2 && reply.Elems[1].Kind == ReplyInt {
		return reply.Elems[1].Int
	}
	return 0
}
