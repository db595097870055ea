package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// defVariant runs a VariantDef: the runner's variant interface over a
// variant file.
type defVariant struct {
	d  *VariantDef
	vi VariantInfo
	// keyOf returns the run's key of that logical name as last read
	// (Runner.keyNamed): a count kept in a second key (lock.count) is
	// read there. Set by NewRunner.
	keyOf func(name string) KeyState
}

func newDefVariant(d *VariantDef) *defVariant { return &defVariant{d: d, vi: d.Info()} }

func (v *defVariant) info() VariantInfo { return v.vi }

func (v *defVariant) newOwner(r *Runner, a *actor) string {
	part := func(kind string) string {
		switch kind {
		case OwnerGrantToken, "grant_token":
			return r.newToken()
		case OwnerRequestID, "request_id":
			return a.requestID
		case OwnerProcessID, "process_id":
			return a.instance
		case OwnerThreadID, "thread_id":
			return a.thread
		}
		return ""
	}
	if !strings.Contains(v.d.Owner, "{") {
		return part(v.d.Owner)
	}
	var b strings.Builder
	rest := v.d.Owner
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.IndexByte(rest[i:], '}')
		b.WriteString(rest[:i])
		p := part(rest[i+1 : i+j])
		if p == "" {
			return "" // a part the context lacks: NO_CONTEXT
		}
		b.WriteString(p)
		rest = rest[i+j+1:]
	}
}

// values returns the named values of a call.
func (v *defVariant) value(op lockOp, g *grant, name string) (string, bool) {
	switch name {
	case ValLock:
		return op.key, true
	case ValOwner:
		return op.owner, true
	case ValLeaseMS:
		return ms(op.leaseMS), true
	case ValLeaseS:
		return strconv.FormatInt(leaseSeconds(op.leaseMS), 10), true
	case ValOutermost:
		if g != nil {
			return "0", true
		}
		return "1", true
	case ValFenceKey:
		return op.fenceKey, op.fenceKey != ""
	case ValFenceTTLMS:
		return ms(op.keepMS), op.fenceKey != ""
	case ValUnlockID:
		return op.unlockID, true
	case ValLockName:
		return op.lock, true
	}
	if k := v.d.key(name); k != nil {
		return keyName(k.Name, op.lock, op.unlockID), true
	}
	return "", false
}

// leaseSeconds is a lease of leaseMS milliseconds in whole seconds, rounded
// up (a script that calls EXPIRE takes seconds: a lease of 1,500 ms is 2 s,
// never 1 s, so that the key never expires before the lease the lesson
// gives; docs/variant-format.md).
func leaseSeconds(leaseMS int64) int64 { return (leaseMS + 999) / 1000 }

// call builds the call of script s. Values a lesson does not have (the
// fencing counter of a lesson without fencing) are left out; the validator
// keeps them at the end of their lists.
func (v *defVariant) call(s *ScriptDef, op lockOp, g *grant) *Call {
	c := &Call{Script: s.Script, mapsErrors: s.MapsErrors}
	build := func(refs []ValueRef) []string {
		var out []string
		for _, ref := range refs {
			if ref.IsLiteral {
				out = append(out, ref.Literal)
				continue
			}
			if val, ok := v.value(op, g, ref.Name); ok {
				out = append(out, val)
			}
		}
		return out
	}
	c.Keys, c.Args = build(s.Keys), build(s.Args)
	for i, ref := range s.Keys {
		if !ref.IsLiteral && ref.Name == ValOwner && i < len(c.Keys) {
			if c.KeyValues == nil {
				c.KeyValues = make([]bool, len(c.Keys))
			}
			c.KeyValues[i] = true
		}
	}
	return c
}

func (v *defVariant) acquire(op lockOp, g *grant) *Call {
	if g != nil && v.d.Reentry == ReentryClient {
		return nil // the client's own count goes up; Redis sees nothing
	}
	return v.call(v.d.Acquire, op, g)
}

func (v *defVariant) release(op lockOp, g *grant) *Call {
	if g != nil && g.count > 1 && v.d.Reentry == ReentryClient {
		return nil
	}
	return v.call(v.d.Release, op, g)
}

func (v *defVariant) renew(op lockOp) *Call { return v.call(v.d.Renew, op, &grant{}) }

func (v *defVariant) finishRelease(op lockOp) *Call {
	return v.call(v.d.FinishRelease, op, &grant{})
}

// element returns the element of an array reply with role, and whether the
// script reads array replies and reply is one of the right length.
func (s *ScriptDef) element(reply Reply, role string) (Reply, bool) {
	if len(s.ArrayReply) == 0 || reply.Kind != ReplyArray || len(reply.Elems) != len(s.ArrayReply) {
		return Reply{}, false
	}
	for i, r := range s.ArrayReply {
		if r == role {
			return reply.Elems[i], true
		}
	}
	return Reply{}, false
}

// read maps reply through s's reply map.
func (v *defVariant) read(s *ScriptDef, reply Reply, owner string) (string, error) {
	if e, ok := s.element(reply, ElemReply); ok {
		reply = e
	}
	rule, ok := s.match(reply, owner)
	if !ok {
		return "", &UnmappedReplyError{Variant: v.d.Name, File: v.d.File, Script: s.Script.Name, Reply: reply, Pos: v.d.repliesPos(s)}
	}
	return rule.Outcome, nil
}

func (v *defVariant) acquireOutcome(op lockOp, g *grant, reply Reply, after KeyState) (Outcome, error) {
	if g != nil && v.d.Reentry == ReentryClient {
		return Reentered, nil
	}
	out, err := v.read(v.d.Acquire, reply, op.owner)
	if err != nil || out != OutHeld {
		return Outcome(out), err
	}
	if v.d.Reentry != ReentryRedis {
		return Acquired, nil
	}
	switch n := v.holds(after)[op.owner]; {
	case n == 1:
		return Acquired, nil
	case n > 1:
		return Reentered, nil
	}
	// The script says the owner holds, and Redis keeps no count of it: the
	// file's declaration (lock.count, the layout) and its script disagree,
	// and reading either outcome would be a guess (it once read as a
	// silent REENTERED, a fresh-eyes review of issue 33).
	e := &HeldWithoutCountError{Variant: v.d.Name, File: v.d.File, Script: v.d.Acquire.Script.Name, Key: after.Name, Pos: v.d.at["acquire.replies"]}
	if ck := v.d.key(v.d.Lock.Count); ck != nil {
		e.Count = keyName(ck.Name, strings.TrimPrefix(after.Name, lockKeyPrefix), "")
		e.Pos = v.d.at["lock.count"]
	}
	return "", e
}

// HeldWithoutCountError is an acquire whose reply the variant file maps to
// held (ACQUIRED at a count of 1, REENTERED above) while Redis keeps no
// count of the owner after it: the lock key holds none, or the count key
// the file declares (lock.count) is absent or not a number, since the
// scripts never write it. The step fails with it.
type HeldWithoutCountError struct {
	Variant, File, Script string
	// Key is the lock key; Count the count key lock.count names ("" when
	// the file declares none).
	Key, Count string
	// Pos is where the file declares lock.count (or, without one, the
	// acquire's reply map), zero when not known.
	Pos Pos
}

// Where is the declaration's place, FILE:LINE:COL, "" when not known.
func (e *HeldWithoutCountError) Where() string {
	if e.File == "" || e.Pos.Line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", e.File, e.Pos.Line, e.Pos.Col)
}

func (e *HeldWithoutCountError) Error() string {
	msg := fmt.Sprintf("sim: variant %s: script %s replied held, but Redis keeps no count for the owner of %s", e.Variant, e.Script, e.Key)
	if e.Count != "" {
		msg += fmt.Sprintf(" (count key %s, named by lock.count, is absent or not a number after it: the scripts do not write it)", e.Count)
	}
	if w := e.Where(); w != "" {
		msg = w + ": " + msg
	}
	return msg
}

// Message makes HeldWithoutCountError a Coded error: variant.held-no-count
// (with the count key: variant.held-no-count-key), each with Where ("" when
// not known).
func (e *HeldWithoutCountError) Message() Msg {
	where := e.Where()
	if where == "" {
		where = e.Variant
	}
	if e.Count != "" {
		return M("variant.held-no-count-key", "Where", where, "Script", e.Script, "Key", e.Key, "Count", e.Count)
	}
	return M("variant.held-no-count", "Where", where, "Script", e.Script, "Key", e.Key)
}

func (v *defVariant) releaseOutcome(op lockOp, g *grant, reply Reply, after KeyState) (Outcome, error) {
	if g != nil && g.count > 1 && v.d.Reentry == ReentryClient {
		return StillHeld, nil
	}
	out, err := v.read(v.d.Release, reply, op.owner)
	if err != nil || out != OutReleasedOrHeld {
		return Outcome(out), err
	}
	if after.Exists() {
		return StillHeld, nil
	}
	return Released, nil
}

func (v *defVariant) renewOutcome(reply Reply) (Outcome, error) {
	out, err := v.read(v.d.Renew, reply, "")
	return Outcome(out), err
}

func (v *defVariant) finishOutcome(reply Reply) (Outcome, error) {
	out, err := v.read(v.d.FinishRelease, reply, "")
	return Outcome(out), err
}

func (v *defVariant) renewPeriod(leaseMS int64) int64 { return v.d.RenewEvery.of(leaseMS) }

// fenceIn returns the fencing token an acquire reply carries, 0 when none.
func (v *defVariant) fenceIn(reply Reply) int64 {
	if e, ok := v.d.Acquire.element(reply, ElemFencingToken); ok && e.Kind == ReplyInt {
		return e.Int
	}
	return 0
}

// keys are the state keys read beside each lock (latches come and go).
func (v *defVariant) keys(lock string) []KeyRef {
	var out []KeyRef
	for _, k := range v.d.Keys {
		if k.Role == RoleState {
			out = append(out, KeyRef{Name: keyName(k.Name, lock, ""), Type: k.Type})
		}
	}
	return out
}

// latches returns the unlock-latch keys of one unlock call.
func (v *defVariant) latches(lock, unlockID string) []KeyRef {
	var out []KeyRef
	for _, k := range v.d.Keys {
		if k.Role == RoleUnlockLatch {
			out = append(out, KeyRef{Name: keyName(k.Name, lock, unlockID), Type: k.Type})
		}
	}
	return out
}

func (v *defVariant) holds(k KeyState) map[string]int64 {
	switch v.d.Lock.Layout {
	case LayoutFieldPerOwner:
		return hashCounts(k)
	case LayoutOwnerAndCount:
		owner, ok := k.Field("owner")
		if !ok {
			return nil
		}
		n, _ := k.Field("count")
		c, _ := strconv.ParseInt(n, 10, 64)
		return map[string]int64{owner: c}
	}
	if k.Type != TypeString {
		return nil
	}
	if ck := v.d.key(v.d.Lock.Count); ck != nil && v.keyOf != nil {
		// The count in a second key: absent (or not a number) is no
		// count Redis keeps, 0.
		c := v.keyOf(keyName(ck.Name, strings.TrimPrefix(k.Name, lockKeyPrefix), ""))
		n, _ := strconv.ParseInt(c.Value, 10, 64)
		return map[string]int64{k.Value: n}
	}
	return map[string]int64{k.Value: 1}
}

// UnmappedReplyError is a reply that a variant file's reply map does not
// list, found when the script gave it: the step fails with this error
// (wrapped in a *StepRunError, which names the step) and the run stops.
type UnmappedReplyError struct {
	Variant, File, Script string
	Reply                 Reply
	// Pos is where the variant file writes the script's reply map (its
	// `replies:`), zero when not known.
	Pos Pos
}

// Where is the reply map's place, FILE:LINE:COL, "" when not known.
func (e *UnmappedReplyError) Where() string {
	if e.File == "" || e.Pos.Line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", e.File, e.Pos.Line, e.Pos.Col)
}

func (e *UnmappedReplyError) Error() string {
	msg := fmt.Sprintf("sim: variant %s: script %s replied %s, which its reply map does not list", e.Variant, e.Script, e.Reply)
	if w := e.Where(); w != "" {
		msg = w + ": " + msg
	}
	return msg
}

// Message makes UnmappedReplyError a Coded error: variant.unmapped-reply,
// or variant.unmapped-reply.at with the reply map's place (Where).
func (e *UnmappedReplyError) Message() Msg {
	if w := e.Where(); w != "" {
		return M("variant.unmapped-reply.at", "Where", w, "Variant", e.Variant, "Script", e.Script, "Reply", e.Reply.String())
	}
	return M("variant.unmapped-reply", "Variant", e.Variant, "Script", e.Script, "Reply", e.Reply.String())
}

// repliesPos is where d's file writes the reply map of its script s.
func (d *VariantDef) repliesPos(s *ScriptDef) Pos {
	for role, sd := range map[string]*ScriptDef{"acquire": d.Acquire, "release": d.Release, "renew": d.Renew, "finish_release": d.FinishRelease} {
		if sd == s {
			return d.at[role+".replies"]
		}
	}
	return Pos{}
}
