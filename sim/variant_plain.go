package sim

import "fmt"

// plainLock is a non-reentrant lock, SET key token NX PX lease, with one of
// two known-unsafe releases:
//   - "setnx-del": DEL with no owner check, so a late release deletes
//     another owner's lock;
//   - "get-then-del": GET, compare in the client, then DEL in a second round
//     trip (the finish-release step), so the lock can change hands between.
//
// A nested acquire runs the same SET NX and is refused by its own key: why a
// plain SET NX lock cannot re-enter (seed 001, follow-up question 1).
type plainLock struct{ name string }

func (v plainLock) info() VariantInfo {
	in := VariantInfo{Name: v.name, Source: "001_5402deabadbfda6d.txt (follow-up question 1; a known mistake)", LockType: TypeString}
	if v.name == "setnx-del" {
		in.Scripts = []*Script{mustScript("setnx-del/acquire"), mustScript("setnx-del/release"), mustScript("resource/write")}
	} else {
		in.TwoStepRelease = true
		in.Scripts = []*Script{mustScript("get-then-del/acquire"), mustScript("get-then-del/check"), mustScript("get-then-del/delete"), mustScript("resource/write")}
	}
	return in
}

func (plainLock) newOwner(r *Runner, _ *actor) string { return r.newToken() }

func (v plainLock) acquire(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript(v.name + "/acquire"), Keys: []string{op.key}, Args: []string{op.owner, ms(op.leaseMS)}}
}

func (v plainLock) acquireOutcome(_ lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	switch {
	case reply.IsString("OK"):
		return Acquired, nil
	case reply.Kind == ReplyNil:
		return Busy, nil
	}
	return "", fmt.Errorf("sim: %s acquire: unexpected reply %s", v.name, reply)
}

func (v plainLock) release(op lockOp, _ *grant) *Call {
	if v.name == "setnx-del" {
		return &Call{Script: mustScript("setnx-del/release"), Keys: []string{op.key}}
	}
	return &Call{Script: mustScript("get-then-del/check"), Keys: []string{op.key}}
}

// releaseOutcome: setnx-del's DEL says only whether something was deleted;
// get-then-del's GET decides whether the client goes on to delete (PENDING).
func (v plainLock) releaseOutcome(op lockOp, _ *grant, reply Reply, _ KeyState) (Outcome, error) {
	if v.name == "setnx-del" {
		return v.finishOutcome(reply)
	}
	switch {
	case reply.IsString(op.owner):
		return Pending, nil
	case reply.Kind == ReplyNil || reply.Kind == ReplyString:
		return NotOwner, nil
	}
	return "", fmt.Errorf("sim: get-then-del check: unexpected reply %s", reply)
}

func (plainLock) finishRelease(op lockOp) *Call {
	return &Call{Script: mustScript("get-then-del/delete"), Keys: []string{op.key}}
}

func (v plainLock) finishOutcome(reply Reply) (Outcome, error) {
	switch {
	case reply.IsInt(1):
		return Released, nil
	case reply.IsInt(0):
		return NotOwner, nil
	}
	return "", fmt.Errorf("sim: %s delete: unexpected reply %s", v.name, reply)
}

func (plainLock) holds(k KeyState) map[string]int64 {
	if k.Type != TypeString {
		return nil
	}
	return map[string]int64{k.Value: 1}
}
