package sim

import (
	"strconv"
	"strings"
)

// VariantDef is a lock variant defined as data: a variant file
// (docs/variant-format.md, NAME.variant.yaml) read by LoadVariant and
// checked by ValidateVariant. It says which scripts an acquire and a release
// run, what goes into their KEYS and ARGV, and how each raw reply reads as an
// outcome; the runner runs it like a built-in variant (defVariant).
type VariantDef struct {
	Name   string // [a-z0-9-]+
	Source string // where the semantics come from (a seed, a library)
	File   string // path it was read from, for messages; "" when built in
	// Lock is the lock key: its Redis type and how it keeps holds.
	Lock LockLayout
	// Keys are the keys (and channels) the scripts use beside the lock key,
	// by the name KEYS lists refer to them with.
	Keys []ExtraKey
	// Owner is who the owner id is (OwnerGrantToken, ... or a template).
	Owner string
	// Reentry says where reentry is counted: ReentryRedis (the scripts
	// count holds), ReentryClient (a client count in front of a
	// non-reentrant lock: only the outermost acquire and the last release
	// reach Redis) or ReentryNone (every call reaches Redis, nothing counts).
	Reentry string
	// Acquire and Release are required; Renew (a watchdog, with RenewEvery)
	// and FinishRelease (the second round trip of a two-step release) are
	// optional.
	Acquire, Release, Renew, FinishRelease *ScriptDef
	// RenewEvery is the renewal period: a fraction of the lease
	// (RenewEvery.LeaseDiv > 0: lease/N) or fixed milliseconds.
	RenewEvery Period
	// BooleanReading shows, beside each raw release reply, what a client
	// that reads it as a Boolean sees (seed 004).
	BooleanReading bool
	// Builtin is true for the variant files embedded in sim/variants.
	Builtin bool
	// Texts are what LoadVariant read of a user's variant file: the file's
	// text under File and each script file's under the path read (nil for
	// a built-in variant). Loading them again (LoadVariant with a
	// ReadFunc over Texts) gives the same variant, which is how a share
	// code carries a user's lock (package explore).
	Texts map[string]string
	// Warnings are what the validator found legal but worth a word: a
	// design that works here and fails elsewhere (the owner id in KEYS,
	// which Redis Cluster refuses). Each at FILE:LINE:COL, like an error;
	// the variant loads all the same.
	Warnings LoadErrors
	at       map[string]Pos // where the file wrote each field, by path
}

// LockLayout is the lock key's type and layout.
type LockLayout struct {
	Type KeyType // TypeHash or TypeString
	// Layout is LayoutFieldPerOwner (a Hash field per owner id, value the
	// hold count), LayoutOwnerAndCount (a Hash {owner, count}) or
	// LayoutOwnerValue (a String holding the owner id).
	Layout string
	// Count, for a String lock (LayoutOwnerValue) whose hold count the
	// scripts keep in a second key, is the id of that key under keys (a
	// String of role state whose value is the count: "count in a second
	// key"); "" otherwise.
	Count string
}

// The layouts of a lock key.
const (
	LayoutFieldPerOwner = "field-per-owner"
	LayoutOwnerAndCount = "owner-and-count"
	LayoutOwnerValue    = "owner-value"
)

// The owner kinds of a variant file; a value with '{' is a template of
// them ("{process_id}:{thread_id}").
const (
	OwnerGrantToken = "grant-token" // fresh per outermost acquire (seed 001)
	OwnerRequestID  = "request-id"  // the execution context's request id (seed 000)
	OwnerProcessID  = "process-id"  // the process (the known mistake)
	OwnerThreadID   = "thread-id"   // the thread, reused by the tasks it runs
)

// The places reentry is counted.
const (
	ReentryRedis  = "redis"
	ReentryClient = "client"
	ReentryNone   = "none"
)

// ExtraKey is a key (or channel) the scripts use beside the lock key.
type ExtraKey struct {
	ID string // the name KEYS lists use
	// Name is the key's name template: "{lock}" becomes the lock's name and
	// "{unlock_id}" the unlock call's id (a key per unlock call).
	Name string
	Role string  // RoleState, RoleChannel or RoleUnlockLatch
	Type KeyType // for keys that are read (not channels)
}

// The roles of an extra key.
const (
	// RoleState is a key the scripts keep beside the lock, one per lock:
	// read and shown after every step.
	RoleState = "state"
	// RoleChannel is a pub/sub channel name, not a key: never read.
	RoleChannel = "channel"
	// RoleUnlockLatch is a key per unlock call ("{unlock_id}" in its name)
	// that remembers the call's answer for a while: read while it exists
	// or a retry of its call may come.
	RoleUnlockLatch = "unlock-latch"
)

// Period is a renewal period: lease/LeaseDiv, or MS milliseconds.
type Period struct {
	LeaseDiv int64
	MS       int64
}

// of returns the period for a lease of leaseMS, at least 1 ms.
func (p Period) of(leaseMS int64) int64 {
	if p.LeaseDiv > 0 {
		return max(leaseMS/p.LeaseDiv, 1)
	}
	return max(p.MS, 1)
}

// ScriptDef is one script of a variant and how it is called and read.
type ScriptDef struct {
	Script *Script
	// Path is the .lua file as the variant file names it; "" for an inline
	// script.
	Path string
	// Keys and Args build KEYS and ARGV, in order, from named values.
	Keys, Args []ValueRef
	// ArrayReply, when set, reads an array reply element by element: one
	// ElemReply is matched against Replies, one ElemFencingToken is the
	// hold's fencing token, the rest are ElemIgnore.
	ArrayReply []string
	Replies    []ReplyRule
	// MapsErrors is true when Replies has an "error" rule: an error reply
	// is then an outcome, not a failed step.
	MapsErrors bool
}

// The roles of an array reply's elements.
const (
	ElemReply        = "reply"
	ElemFencingToken = "fencing_token"
	ElemIgnore       = "ignore"
)

// ValueRef is one KEYS or ARGV entry: a named value or a literal.
type ValueRef struct {
	Name      string // a value name (ValueNames) or an extra key's id
	Literal   string
	IsLiteral bool
	Pos       Pos
}

// The named values a KEYS or ARGV list may use.
const (
	ValLock       = "lock"         // the lock key
	ValOwner      = "owner"        // the owner id of the call
	ValLeaseMS    = "lease_ms"     // the lease, in ms
	ValLeaseS     = "lease_s"      // the lease, in whole seconds, rounded up (for EXPIRE)
	ValOutermost  = "outermost"    // "1" for an outermost acquire, "0" nested
	ValFenceKey   = "fence_key"    // the fencing counter (fencing lessons only)
	ValFenceTTLMS = "fence_ttl_ms" // its TTL in ms (fencing lessons only)
	ValUnlockID   = "unlock_id"    // this release call's id; a retry repeats it
	ValLockName   = "lock_name"    // the lock's name, without the key prefix
)

// ValueNames lists the named values, in the documentation's order.
var ValueNames = []string{ValLock, ValOwner, ValLeaseMS, ValLeaseS, ValOutermost, ValFenceKey, ValFenceTTLMS, ValUnlockID, ValLockName}

// ReplyRule maps one reply pattern to an outcome.
type ReplyRule struct {
	Match   ReplyMatch
	Outcome string // an outcome, or OutHeld / OutReleasedOrHeld
	Pos     Pos
}

// The outcomes a reply map may give beyond the lesson format's.
const (
	// OutHeld reads as ACQUIRED when the owner's count in Redis is 1
	// after the call (its first hold: outermost) and REENTERED when more
	// (nested); where nothing counts, as ACQUIRED.
	OutHeld = "held"
	// OutReleasedOrHeld reads as STILL_HELD while the lock key exists after
	// the call and RELEASED once it is gone (seed 000's reply 1).
	OutReleasedOrHeld = "released-or-held"
)

// MatchKind is what a reply pattern matches.
type MatchKind string

// The reply patterns.
const (
	MatchNil       MatchKind = "nil"     // Lua nil or false: Redis's nil reply
	MatchInt       MatchKind = "int"     // one integer
	MatchAnyInt    MatchKind = "integer" // any other integer
	MatchString    MatchKind = "str"     // one string
	MatchOwner     MatchKind = "owner"   // the string that is the caller's owner id
	MatchAnyString MatchKind = "string"  // any other string
	MatchError     MatchKind = "error"   // an error reply
)

// ReplyMatch is a reply pattern.
type ReplyMatch struct {
	Kind MatchKind
	Int  int64
	Str  string
}

// String writes the pattern as a variant file does.
func (m ReplyMatch) String() string {
	switch m.Kind {
	case MatchInt:
		return strconv.FormatInt(m.Int, 10)
	case MatchString:
		return strconv.Quote(m.Str)
	}
	return string(m.Kind)
}

// match returns the rule that reads reply for a caller whose owner id is
// owner: an exact integer or string before "integer" and "string", the
// owner before any string. ok is false when no rule matches.
func (s *ScriptDef) match(reply Reply, owner string) (ReplyRule, bool) {
	best, rank := ReplyRule{}, 0
	for _, r := range s.Replies {
		n := 0
		switch m := r.Match; {
		case m.Kind == MatchNil && reply.Kind == ReplyNil,
			m.Kind == MatchError && reply.Kind == ReplyError:
			n = 3
		case m.Kind == MatchInt && reply.IsInt(m.Int):
			n = 3
		case m.Kind == MatchAnyInt && reply.Kind == ReplyInt:
			n = 1
		case m.Kind == MatchOwner && reply.IsString(owner):
			n = 3
		case m.Kind == MatchString && reply.IsString(m.Str):
			n = 2
		case m.Kind == MatchAnyString && reply.Kind == ReplyString:
			n = 1
		}
		if n > rank {
			best, rank = r, n
		}
	}
	return best, rank > 0
}

// Info describes the variant as VariantInfo.
func (d *VariantDef) Info() VariantInfo {
	in := VariantInfo{Name: d.Name, Source: d.Source, LockType: d.Lock.Type,
		CountsInRedis: d.Reentry == ReentryRedis, BooleanReading: d.BooleanReading,
		Watchdog: d.Renew != nil, TwoStepRelease: d.FinishRelease != nil, Custom: !d.Builtin}
	for _, s := range []*ScriptDef{d.Acquire, d.Renew, d.Release, d.FinishRelease} {
		if s == nil {
			continue
		}
		if s.uses(ValUnlockID) || d.usesKeyRole(s, RoleUnlockLatch) {
			in.UnlockIDs = true
		}
		in.Scripts = append(in.Scripts, s.Script)
	}
	in.IssuesFences = d.Acquire != nil && d.Acquire.uses(ValFenceKey)
	in.Scripts = append(in.Scripts, mustScript("resource/write"))
	if in.IssuesFences {
		in.Scripts = append(in.Scripts, mustScript("resource/write_fenced"))
	}
	return in
}

func (s *ScriptDef) uses(name string) bool {
	for _, v := range append(append([]ValueRef(nil), s.Keys...), s.Args...) {
		if !v.IsLiteral && v.Name == name {
			return true
		}
	}
	return false
}

func (d *VariantDef) usesKeyRole(s *ScriptDef, role string) bool {
	for _, v := range s.Keys {
		if k := d.key(v.Name); k != nil && k.Role == role {
			return true
		}
	}
	return false
}

func (d *VariantDef) key(id string) *ExtraKey {
	for i := range d.Keys {
		if d.Keys[i].ID == id {
			return &d.Keys[i]
		}
	}
	return nil
}

// keyName fills a key name template: "{lock}" is the lock's name,
// "{lock_key}" the lock key's ("lock:" and the name: a script's KEYS[1],
// so that "{lock_key}:count" is the key a script builds as
// KEYS[1] .. ':count') and "{unlock_id}" the unlock call's id.
func keyName(tmpl, lock, unlockID string) string {
	return strings.NewReplacer("{lock_key}", lockKeyPrefix+lock, "{lock}", lock, "{unlock_id}", unlockID).Replace(tmpl)
}
