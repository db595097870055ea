// Package refmodel is an independent reference model of the Redis that
// Lockstep's simulation core talks to. Its Store implements sim.Store in pure
// Go, with no Lua and no Redis: a map of keys (hashes and strings), each with a
// time to live in whole milliseconds on a virtual clock that only Advance
// moves, and one Go function per lock script that does what the script means
// (sim/lua/**, docs/lesson-format.md "Variants", lessons/README.md).
// A pub/sub channel a script publishes on (watchdog's release) is not a key:
// the model keeps nothing for it, as no client of a run subscribes.
//
// The model exists for tests: running a lesson on it and on the real backends
// (package backend) and finding the frames equal is evidence that the Lua
// scripts, the backends and the runner agree with the intended semantics. It
// is written from the meaning of each script, not translated from its Lua, so
// a slip in one is unlikely to be repeated in the other.
//
// Replies are what Redis would send back for the script's return value (Lua
// false or nil: a nil reply; a number: an integer; a string: a string; a
// table: an array). A call that Lockstep never makes (a wrong number of keys or
// arguments, a non-integer where Redis wants one, a key of the wrong type) gets
// an error reply and changes nothing; its text is the model's own, not
// Redis's.
package refmodel

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"lockstep/sim"
)

// Store is the reference model's sim.Store: an in-memory keyspace on virtual
// time. The zero value is not usable; call New. A Store is safe for concurrent
// use, though a sim.Runner never uses one concurrently.
type Store struct {
	mu   sync.Mutex
	keys map[string]*value
	// replica is the keyspace of the replica of a run with one
	// (sim.Batch.Replica): a copy of keys after every Replicated batch, left
	// alone by Unreplicated ones, and keys itself from the Failover on.
	replica    map[string]*value
	failedOver bool
	// nodes are the keyspaces of the independent nodes of a run with nodes
	// (sim.Batch.Nodes), nodes[0] being node 1's; a batch for a node works
	// on its keyspace, and a Restart batch empties it first.
	nodes []map[string]*value
}

// value is one key's contents and time to live.
type value struct {
	typ    sim.KeyType       // TypeHash or TypeString
	fields map[string]string // hash contents
	str    string            // string contents
	ttlMS  int64             // remaining lifetime in ms, when expires
	// expires is false for a key with no TTL (PTTL -1). Lockstep's scripts
	// always give their keys one; Put may not.
	expires bool
}

// New returns an empty Store.
func New() *Store { return &Store{keys: map[string]*value{}} }

// Open is a sim.StoreOpener of the model: an empty Store for each run, and a
// close that has nothing to release (it always returns nil).
func Open() (sim.Store, func(context.Context) error, error) {
	return New(), func(context.Context) error { return nil }, nil
}

var _ sim.Store = (*Store)(nil)

// Exec implements sim.Store. It ignores b.Prior (the model's clock is the
// virtual one Advance moves, so nothing drifts between steps), runs each call
// with the Go model of its script, in order, and then reads b.Read: an absent
// key as sim.Absent, a hash with its fields sorted by name, a string with its
// value, each with its PTTL in milliseconds. Like a MULTI/EXEC, a call that
// gets an error reply does not stop the ones after it.
//
// In a run with a replica the model keeps the replica's keyspace too: after
// a Replicated batch it is a copy of the primary's, an Unreplicated batch
// leaves it, and a Failover batch makes it the keyspace every later batch
// works on (the primary's is dropped, whatever the replica never got with
// it). The replica starts empty, as a run's keys all start absent.
//
// In a run with nodes each node has a keyspace of its own, empty at first;
// a batch works on its node's (b.Node), and a Restart batch empties it
// first, as a Redis without persistence comes back from a crash.
//
// Exec returns an error, and runs nothing, when ctx is done or a call names a
// script the model does not know; it returns an error after running the calls
// when a key read has another type than b.Read says (Redis answers WRONGTYPE
// to GET or HGETALL).
func (s *Store) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, c := range b.Calls {
		if c.Script == nil {
			return nil, fmt.Errorf("refmodel: call without a script")
		}
		if scriptModels[c.Script.Name] == nil {
			return nil, fmt.Errorf("refmodel: no model for script %q", c.Script.Name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.Node > 0 {
		if b.Node > b.Nodes {
			return nil, fmt.Errorf("refmodel: node %d of %d", b.Node, b.Nodes)
		}
		for len(s.nodes) < b.Nodes {
			s.nodes = append(s.nodes, map[string]*value{})
		}
		if b.Restart {
			s.nodes[b.Node-1] = map[string]*value{}
		}
		if b.Jump > 0 {
			expire(s.nodes[b.Node-1], b.Jump.Milliseconds()) // that node's clock alone jumps
		}
		base := s.keys
		s.keys = s.nodes[b.Node-1]
		defer func() { s.keys = base }()
	}
	if b.Replica == sim.Failover && !s.failedOver {
		s.keys, s.replica, s.failedOver = s.replica, nil, true
		if s.keys == nil {
			s.keys = map[string]*value{}
		}
	}
	res := &sim.BatchResult{Replies: make([]sim.Reply, len(b.Calls)), Keys: make([]sim.KeyState, len(b.Read))}
	for i, c := range b.Calls {
		res.Replies[i] = scriptModels[c.Script.Name](s, c.Keys, c.Args)
	}
	if b.Replica == sim.Replicated && !s.failedOver {
		s.replica = cloneKeys(s.keys)
	}
	for i, ref := range b.Read {
		k, err := s.read(ref)
		if err != nil {
			return nil, err
		}
		res.Keys[i] = k
	}
	return res, nil
}

// Advance implements sim.Store: simulated time moves on by d, counted in whole
// milliseconds as the runner counts it (d.Milliseconds()). Every key with a
// TTL (on the replica too) loses that much of it, and a key whose TTL reaches
// 0 or less is gone.
func (s *Store) Advance(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	by := d.Milliseconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, keys := range append([]map[string]*value{s.keys, s.replica}, s.nodes...) {
		expire(keys, by)
	}
	return nil
}

// expire takes by milliseconds off every TTL of keys, deleting a key whose
// TTL reaches 0 or less.
func expire(keys map[string]*value, by int64) {
	for name, v := range keys {
		if !v.expires {
			continue
		}
		v.ttlMS -= by
		if v.ttlMS <= 0 {
			delete(keys, name)
		}
	}
}

// cloneKeys copies a keyspace, hash fields included.
func cloneKeys(keys map[string]*value) map[string]*value {
	out := make(map[string]*value, len(keys))
	for name, v := range keys {
		c := *v
		if v.fields != nil {
			c.fields = maps.Clone(v.fields)
		}
		out[name] = &c
	}
	return out
}

// Put sets a key to k as it stands: a hash with k.Fields, a string with
// k.Value, with a TTL of k.PTTL milliseconds, or none when k.PTTL is
// negative. A k of type none, or a TTL of 0, removes the key. Tests use Put to
// set up states the scripts alone would not reach.
func (s *Store) Put(k sim.KeyState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k.Type == sim.TypeNone || k.Type == "" || k.PTTL == 0 {
		delete(s.keys, k.Name)
		return
	}
	v := &value{typ: k.Type, ttlMS: k.PTTL, expires: k.PTTL > 0}
	if k.Type == sim.TypeHash {
		v.fields = map[string]string{}
		for _, f := range k.Fields {
			v.fields[f.Name] = f.Value
		}
		if len(v.fields) == 0 { // Redis has no empty hashes
			delete(s.keys, k.Name)
			return
		}
	} else {
		v.str = k.Value
	}
	s.keys[k.Name] = v
}

// Get returns key name as it stands, whatever its type (sim.Absent when it
// does not exist).
func (s *Store) Get(name string) sim.KeyState {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.keys[name]
	if v == nil {
		return sim.Absent(name)
	}
	return v.state(name)
}

// Names returns the names of the keys that exist, sorted.
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.keys))
	for n := range s.keys {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (v *value) state(name string) sim.KeyState {
	k := sim.KeyState{Name: name, Type: v.typ, PTTL: -1}
	if v.expires {
		k.PTTL = v.ttlMS
	}
	if v.typ == sim.TypeHash {
		for f, val := range v.fields {
			k.Fields = append(k.Fields, sim.Field{Name: f, Value: val})
		}
		sort.Slice(k.Fields, func(i, j int) bool { return k.Fields[i].Name < k.Fields[j].Name })
	} else {
		k.Value = v.str
	}
	return k
}

// read is what the backends' PTTL plus GET (string) or HGETALL (any other
// type asked for) give for ref.
func (s *Store) read(ref sim.KeyRef) (sim.KeyState, error) {
	v := s.keys[ref.Name]
	if v == nil {
		return sim.Absent(ref.Name), nil
	}
	want := sim.TypeHash
	if ref.Type == sim.TypeString {
		want = sim.TypeString
	}
	if v.typ != want {
		return sim.KeyState{}, fmt.Errorf("refmodel: read %s as %s: WRONGTYPE, it holds a %s", ref.Name, want, v.typ)
	}
	return v.state(ref.Name), nil
}

// ---- the keyspace as the scripts see it ----

// hash returns key's hash, nil when the key is absent, and an error reply when
// it holds something else.
func (s *Store) hash(key string) (map[string]string, *sim.Reply) {
	v := s.keys[key]
	if v == nil {
		return nil, nil
	}
	if v.typ != sim.TypeHash {
		return nil, wrongType()
	}
	return v.fields, nil
}

// str returns key's string and whether it exists, or an error reply when it
// holds something else.
func (s *Store) str(key string) (string, bool, *sim.Reply) {
	v := s.keys[key]
	if v == nil {
		return "", false, nil
	}
	if v.typ != sim.TypeString {
		return "", false, wrongType()
	}
	return v.str, true, nil
}

// setFields writes fields into key's hash, creating it (with no TTL) if need
// be; an existing key keeps its TTL, as HSET leaves it.
func (s *Store) setFields(key string, kv ...string) {
	v := s.keys[key]
	if v == nil {
		v = &value{typ: sim.TypeHash, fields: map[string]string{}}
		s.keys[key] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		v.fields[kv[i]] = kv[i+1]
	}
}

// expireIn gives an existing key a TTL of ms milliseconds from now; a TTL of
// 0 or less deletes it, as PEXPIRE does.
func (s *Store) expireIn(key string, ms int64) {
	v := s.keys[key]
	if v == nil {
		return
	}
	if ms <= 0 {
		delete(s.keys, key)
		return
	}
	v.ttlMS, v.expires = ms, true
}

// ---- replies ----

func errReply(format string, args ...any) *sim.Reply {
	r := sim.ErrorReply("ERR refmodel: " + fmt.Sprintf(format, args...))
	return &r
}

func wrongType() *sim.Reply {
	r := sim.ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value")
	return &r
}

// parseInt reads an integer argument as Redis does (base 10, int64), or
// returns an error reply naming what it is.
func parseInt(what, s string) (int64, *sim.Reply) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errReply("%s %q is not an integer", what, s)
	}
	return n, nil
}

func need(name string, keys, args []string, nKeys, nArgs int) *sim.Reply {
	if len(keys) != nKeys || len(args) != nArgs {
		return errReply("%s wants %d keys and %d arguments, got %d and %d", name, nKeys, nArgs, len(keys), len(args))
	}
	return nil
}

// needLease is need, then the lease in ms that args[at] carries.
func needLease(name string, keys, args []string, nKeys, nArgs, at int) (int64, *sim.Reply) {
	if e := need(name, keys, args, nKeys, nArgs); e != nil {
		return 0, e
	}
	return parseInt("lease", args[at])
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ---- the scripts ----

// scriptModel runs one script on the keyspace and returns its reply.
type scriptModel func(s *Store, keys, args []string) sim.Reply

// scriptModels maps sim.Script names to their Go models.
var scriptModels = map[string]scriptModel{
	"token-count/acquire":       tokenCountAcquire,
	"token-count/release":       tokenCountRelease,
	"hash-refresh/acquire":      hashRefreshAcquire,
	"hash-refresh/release":      hashRefreshRelease,
	"hash-nil/acquire":          hashNilAcquire,
	"hash-nil/release":          hashNilRelease,
	"local-count/acquire":       localCountAcquire,
	"local-count/release":       localCountRelease,
	"setnx-del/acquire":         setnxDelAcquire,
	"setnx-del/release":         setnxDelRelease,
	"get-then-del/acquire":      getThenDelAcquire,
	"get-then-del/check":        getThenDelCheck,
	"get-then-del/delete":       getThenDelDelete,
	"watchdog/acquire":          watchdogAcquire,
	"watchdog/renew":            watchdogRenew,
	"watchdog/release":          watchdogRelease,
	"idempotent-unlock/release": idempotentUnlockRelease,
	"resource/write":            resourceWrite,
	"resource/write_fenced":     resourceWriteFenced,
	"resource/check":            resourceCheck,
	"resource/write_unchecked":  resourceWriteUnchecked,
	"resource/fence":            resourceFence,
}

// Scripts returns the names of the scripts the model knows, sorted.
func Scripts() []string {
	return slices.Sorted(maps.Keys(scriptModels))
}

// tokenCountAcquire: the lock is a hash {owner: grant token, count: holds}.
// Keys: lock [, fencing counter]; args: token, lease ms, "1" if outermost
// else "0" [, counter TTL ms].
//   - Free lock, outermost call: take it (count 1, lease set); with a counter,
//     the counter goes up by one in the same step and the reply is the pair
//     ["ACQUIRED", new counter value], else "ACQUIRED".
//   - Free lock, nested call: the hold the caller's token stood for is gone,
//     "LOST"; nothing changes (a nested call never creates the lock).
//   - Held under the caller's token: one more hold, lease set anew,
//     "REENTERED" (whether or not the call says it is outermost).
//   - Held under another token: "BUSY".
func tokenCountAcquire(s *Store, keys, args []string) sim.Reply {
	fenced := len(keys) == 2
	if len(keys) != 1 && !fenced {
		return *errReply("token-count/acquire wants 1 or 2 keys, got %d", len(keys))
	}
	if e := need("token-count/acquire", keys, args, len(keys), len(keys)+2); e != nil {
		return *e
	}
	lock, token := keys[0], args[0]
	lease, e := parseInt("lease", args[1])
	if e != nil {
		return *e
	}
	var keep int64
	if fenced {
		if keep, e = parseInt("counter TTL", args[3]); e != nil {
			return *e
		}
	}
	h, e := s.hash(lock)
	if e != nil {
		return *e
	}
	if h == nil {
		if args[2] != "1" {
			return sim.StringReply(string(sim.Lost))
		}
		if fenced {
			if _, _, e := s.str(keys[1]); e != nil {
				return *e // a counter of the wrong type fails before any write
			}
		}
		s.setFields(lock, "owner", token, "count", "1")
		s.expireIn(lock, lease)
		if !fenced {
			return sim.StringReply(string(sim.Acquired))
		}
		next, e := bumpFence(s, keys[1], keep)
		if e != nil {
			return *e
		}
		return sim.ArrayReply(sim.StringReply(string(sim.Acquired)), sim.IntReply(next))
	}
	if owner, ok := h["owner"]; !ok || owner != token {
		return sim.StringReply(string(sim.Busy))
	}
	n, e := fieldInt(h, "count")
	if e != nil {
		return *e
	}
	h["count"] = itoa(n + 1)
	s.expireIn(lock, lease)
	return sim.StringReply(string(sim.Reentered))
}

// tokenCountRelease: keys: lock; args: token. A caller whose token is not the
// lock's owner (or finds no lock) gets "NOT_OWNER" and changes nothing; the
// owner drops one hold, "STILL_HELD" while some remain (the lease runs on
// untouched), and "RELEASED" with the lock deleted when none do.
func tokenCountRelease(s *Store, keys, args []string) sim.Reply {
	if e := need("token-count/release", keys, args, 1, 1); e != nil {
		return *e
	}
	out, e := dropGrantHold(s, keys[0], args[0])
	if e != nil {
		return *e
	}
	return sim.StringReply(string(out))
}

// dropGrantHold is token-count's release of one hold of the grant token in
// lock (see tokenCountRelease), answering the outcome it came to.
func dropGrantHold(s *Store, lock, token string) (sim.Outcome, *sim.Reply) {
	h, e := s.hash(lock)
	if e != nil {
		return "", e
	}
	if owner, ok := h["owner"]; !ok || owner != token {
		return sim.NotOwner, nil
	}
	n, e := fieldInt(h, "count")
	if e != nil {
		return "", e
	}
	if n-1 > 0 {
		h["count"] = itoa(n - 1)
		return sim.StillHeld, nil
	}
	delete(s.keys, lock)
	return sim.Released, nil
}

// idempotentUnlockRelease: token-count's release with an unlock latch.
// Keys: lock, this unlock call's latch (a string, the call's first answer);
// args: token, unlock id, latch TTL ms. A latch that exists gives its
// answer again, and nothing at all changes: a retry does not release twice.
// Otherwise the call is answered as token-count's release answers
// ("NOT_OWNER", "STILL_HELD", "RELEASED", with the same effect on the
// lock), and the answer is set as the latch with the TTL given.
func idempotentUnlockRelease(s *Store, keys, args []string) sim.Reply {
	if e := need("idempotent-unlock/release", keys, args, 2, 3); e != nil {
		return *e
	}
	lock, latch, token := keys[0], keys[1], args[0]
	keep, e := parseInt("latch TTL", args[2])
	if e != nil {
		return *e
	}
	first, ok, e := s.str(latch)
	if e != nil {
		return *e
	}
	if ok {
		return sim.StringReply(first)
	}
	out, e := dropGrantHold(s, lock, token)
	if e != nil {
		return *e
	}
	s.keys[latch] = &value{typ: sim.TypeString, str: string(out)}
	s.expireIn(latch, keep)
	return sim.StringReply(string(out))
}

// hashRefreshAcquire: the lock is a hash {owner id: holds}; keys: lock; args:
// owner id, lease ms. A free lock is taken (owner at 1), a lock the owner id
// already has a field in gets one more hold; both renew the lease and answer
// 1. A lock held only by other owner ids answers 0.
func hashRefreshAcquire(s *Store, keys, args []string) sim.Reply {
	if e := need("hash-refresh/acquire", keys, args, 1, 2); e != nil {
		return *e
	}
	return countedAcquire(s, keys[0], args[0], args[1])
}

// hashNilAcquire has the same meaning as hashRefreshAcquire: only the caller's
// field or no key at all lets it in (one more hold, lease renewed, 1); a key
// without the caller's field answers 0.
func hashNilAcquire(s *Store, keys, args []string) sim.Reply {
	if e := need("hash-nil/acquire", keys, args, 1, 2); e != nil {
		return *e
	}
	return countedAcquire(s, keys[0], args[0], args[1])
}

// countedAcquire is the acquire shared by the owner-id-as-field designs.
func countedAcquire(s *Store, lock, owner, leaseArg string) sim.Reply {
	lease, e := parseInt("lease", leaseArg)
	if e != nil {
		return *e
	}
	h, e := s.hash(lock)
	if e != nil {
		return *e
	}
	_, mine := h[owner]
	if h != nil && !mine {
		return sim.IntReply(0)
	}
	n, e := fieldInt(h, owner)
	if e != nil {
		return *e
	}
	s.setFields(lock, owner, itoa(n+1))
	s.expireIn(lock, lease)
	return sim.IntReply(1)
}

// hashRefreshRelease: keys: lock; args: owner id, lease ms. An owner id with
// no field answers 0. Otherwise one hold goes and the answer is 1 either way:
// holds remaining renew the lease, none remaining delete the lock.
func hashRefreshRelease(s *Store, keys, args []string) sim.Reply {
	lease, e := needLease("hash-refresh/release", keys, args, 1, 2, 1)
	if e != nil {
		return *e
	}
	one := sim.IntReply(1)
	return releaseReplies{missing: sim.IntReply(0), kept: one, gone: one, renew: true}.release(s, keys[0], args[0], lease)
}

// hashNilRelease: keys: lock; args: owner token. No field for the token: nil.
// Holds remaining: 0, and the lease is left as it was. None remaining: the
// lock is deleted, 1.
func hashNilRelease(s *Store, keys, args []string) sim.Reply {
	if e := need("hash-nil/release", keys, args, 1, 1); e != nil {
		return *e
	}
	return releaseReplies{missing: sim.NilReply(), kept: sim.IntReply(0), gone: sim.IntReply(1)}.release(s, keys[0], args[0], 0)
}

// releaseReplies are a hash design's answers to a release, by what
// dropHold found: missing when the owner had no field, kept when holds remain
// (the lease set anew first when renew), gone when the lock was deleted.
type releaseReplies struct {
	missing, kept, gone sim.Reply
	renew               bool
}

// release drops one of owner's holds in lock and answers as r says; lease
// (ms) is the lease a renewing design sets anew.
func (r releaseReplies) release(s *Store, lock, owner string, lease int64) sim.Reply {
	left, found, e := dropHold(s, lock, owner)
	switch {
	case e != nil:
		return *e
	case !found:
		return r.missing
	case left > 0:
		if r.renew {
			s.expireIn(lock, lease)
		}
		return r.kept
	}
	return r.gone
}

// dropHold takes one hold off owner's field in lock. found is false when the
// field is not there (nothing changes). When no hold is left the whole lock
// key is deleted, whatever other fields it has.
func dropHold(s *Store, lock, owner string) (left int64, found bool, e *sim.Reply) {
	h, e := s.hash(lock)
	if e != nil {
		return 0, false, e
	}
	cur, ok := h[owner]
	if !ok {
		return 0, false, nil
	}
	n, e := parseInt("hold count", cur)
	if e != nil {
		return 0, false, e
	}
	left = n - 1
	if left > 0 {
		h[owner] = itoa(left)
	} else {
		delete(s.keys, lock)
	}
	return left, true, nil
}

// localCountAcquire: the lock is a plain string holding the owner token; keys:
// lock; args: token, lease ms. A free lock is taken with the lease and
// answers the status "OK"; a lock that exists (anyone's, even the caller's)
// answers nil and is left alone.
func localCountAcquire(s *Store, keys, args []string) sim.Reply {
	return takeIfFree(s, "local-count/acquire", keys, args)
}

// setnxDelAcquire: the plain lock of setnx-del, taken as local-count's is
// (free: the caller's token with the lease, "OK"; taken by anyone: nil). There
// is no reentry: the holder's own nested call is refused too.
func setnxDelAcquire(s *Store, keys, args []string) sim.Reply {
	return takeIfFree(s, "setnx-del/acquire", keys, args)
}

// getThenDelAcquire: the plain lock of get-then-del, taken as setnx-del's is.
func getThenDelAcquire(s *Store, keys, args []string) sim.Reply {
	return takeIfFree(s, "get-then-del/acquire", keys, args)
}

// takeIfFree is the acquire of the plain-string locks: keys: lock; args:
// token, lease ms (Redis refuses a lease of 0 or less with an error). A key
// that does not exist becomes the string token, expiring after the lease,
// and the answer is "OK"; a key that exists, whatever it holds, is left alone
// and the answer is nil.
func takeIfFree(s *Store, name string, keys, args []string) sim.Reply {
	lease, e := needLease(name, keys, args, 1, 2, 1)
	if e != nil {
		return *e
	}
	if lease <= 0 {
		return *errReply("invalid expire time %d", lease)
	}
	if _, taken := s.keys[keys[0]]; taken {
		return sim.NilReply()
	}
	s.keys[keys[0]] = &value{typ: sim.TypeString, str: args[0], ttlMS: lease, expires: true}
	return sim.StringReply("OK")
}

// setnxDelRelease: keys: lock; no args. Whatever the lock key holds, and
// whoever put it there, it is gone afterwards: 1 when there was a key to
// remove, 0 when there was none.
func setnxDelRelease(s *Store, keys, args []string) sim.Reply {
	if e := need("setnx-del/release", keys, args, 1, 0); e != nil {
		return *e
	}
	return removeKey(s, keys[0])
}

// getThenDelCheck: the first round trip of get-then-del's release, a read
// and nothing else. Keys: lock; no args. The answer is the token the lock
// holds, or nil when it is free; the client does the comparing.
func getThenDelCheck(s *Store, keys, args []string) sim.Reply {
	if e := need("get-then-del/check", keys, args, 1, 0); e != nil {
		return *e
	}
	v, ok, e := s.str(keys[0])
	switch {
	case e != nil:
		return *e
	case !ok:
		return sim.NilReply()
	}
	return sim.StringReply(v)
}

// getThenDelDelete: the second round trip of get-then-del's release, with no
// check of who holds the lock now: like setnxDelRelease, it removes the key
// (1) or finds none (0).
func getThenDelDelete(s *Store, keys, args []string) sim.Reply {
	if e := need("get-then-del/delete", keys, args, 1, 0); e != nil {
		return *e
	}
	return removeKey(s, keys[0])
}

// removeKey deletes key whatever its type and answers how many keys went.
func removeKey(s *Store, key string) sim.Reply {
	if _, ok := s.keys[key]; !ok {
		return sim.IntReply(0)
	}
	delete(s.keys, key)
	return sim.IntReply(1)
}

// watchdogAcquire: the lock is a hash {holder: holds}, the holder naming a
// client and a thread. Keys: lock; args: lease ms, holder (the lease comes
// first here). A free lock, or one where the holder already has a field,
// gains one hold for the holder, its lease is set anew, and the answer is
// nil (success, new or nested alike). A lock that only others hold is left
// alone and the answer is the time it has left to live, in ms (its PTTL on
// the model's clock; -1 if it had no TTL).
func watchdogAcquire(s *Store, keys, args []string) sim.Reply {
	lease, e := needLease("watchdog/acquire", keys, args, 1, 2, 0)
	if e != nil {
		return *e
	}
	lock, holder := keys[0], args[1]
	h, e := s.hash(lock)
	if e != nil {
		return *e
	}
	if _, mine := h[holder]; h != nil && !mine {
		v := s.keys[lock]
		if !v.expires {
			return sim.IntReply(-1)
		}
		return sim.IntReply(v.ttlMS)
	}
	n, e := fieldInt(h, holder)
	if e != nil {
		return *e
	}
	s.setFields(lock, holder, itoa(n+1))
	s.expireIn(lock, lease)
	return sim.NilReply()
}

// watchdogRenew: keys: lock; args: lease ms, holder. While the holder still
// has a field in the lock, the lease is set anew to the full lease and the
// answer is 1; otherwise (the lock gone, or someone else's) nothing changes
// and the answer is 0. The hold counts never change.
func watchdogRenew(s *Store, keys, args []string) sim.Reply {
	lease, e := needLease("watchdog/renew", keys, args, 1, 2, 0)
	if e != nil {
		return *e
	}
	h, e := s.hash(keys[0])
	if e != nil {
		return *e
	}
	if _, mine := h[args[1]]; !mine {
		return sim.IntReply(0)
	}
	s.expireIn(keys[0], lease)
	return sim.IntReply(1)
}

// watchdogRelease: keys: lock, the lock's release channel; args: lease ms,
// holder. A holder with no field in the lock gets nil and nothing changes.
// Otherwise one of its holds goes: with holds left the lease is set anew and
// the answer is 0; with none left the whole lock is deleted, the release is
// announced on the channel, and the answer is 1. The channel is a pub/sub
// channel, not a key: announcing on it touches no key (no client listens in
// a run, so the message reaches nobody).
func watchdogRelease(s *Store, keys, args []string) sim.Reply {
	lease, e := needLease("watchdog/release", keys, args, 2, 2, 0)
	if e != nil {
		return *e
	}
	return releaseReplies{missing: sim.NilReply(), kept: sim.IntReply(0), gone: sim.IntReply(1), renew: true}.release(s, keys[0], args[1], lease)
}

// localCountRelease: keys: lock; args: token. The lock is deleted only while
// it still holds the caller's token (1); otherwise nothing changes (0).
func localCountRelease(s *Store, keys, args []string) sim.Reply {
	if e := need("local-count/release", keys, args, 1, 1); e != nil {
		return *e
	}
	v, ok, e := s.str(keys[0])
	if e != nil {
		return *e
	}
	if !ok || v != args[0] {
		return sim.IntReply(0)
	}
	delete(s.keys, keys[0])
	return sim.IntReply(1)
}

// resourceWrite: the protected resource is a hash {value, writer[, fence]};
// keys: resource; args: value, writer, TTL ms. Every write lands: value and
// writer are replaced (any other field stays), the TTL is set anew, 1.
func resourceWrite(s *Store, keys, args []string) sim.Reply {
	return writeResource(s, "resource/write", keys, args, false, false)
}

// resourceWriteFenced: keys: resource; args: value, writer, fencing token
// (0 for none), TTL ms. The resource remembers the highest token it accepted
// (0 before any). A lower token is refused (0, nothing changes); an equal or
// higher one lands like resourceWrite and becomes the highest (1).
func resourceWriteFenced(s *Store, keys, args []string) sim.Reply {
	return writeResource(s, "resource/write_fenced", keys, args, true, true)
}

// resourceCheck: round trip 1 of a resource that checks and writes apart;
// keys: resource. The reply is the highest token the resource has accepted
// (0 before any, or when the resource has no fence field); nothing changes.
func resourceCheck(s *Store, keys, args []string) sim.Reply {
	if e := need("resource/check", keys, args, 1, 0); e != nil {
		return *e
	}
	h, e := s.hash(keys[0])
	if e != nil {
		return *e
	}
	highest, e := fieldInt(h, "fence")
	if e != nil {
		return *e
	}
	return sim.IntReply(highest)
}

// resourceWriteUnchecked: round trip 2 of a resource that checks and writes
// apart; keys: resource; args: value, writer, fencing token, TTL ms. It
// compares nothing: value, writer and fence (the token given, even a lower
// one than the fence kept) are replaced, the TTL is set anew, 1.
func resourceWriteUnchecked(s *Store, keys, args []string) sim.Reply {
	return writeResource(s, "resource/write_unchecked", keys, args, true, false)
}

// writeResource is the write of the resource scripts; keys: resource;
// args: value, writer, [fencing token, when fenced,] TTL ms. compare (with
// fenced) refuses a token lower than the fence kept.
func writeResource(s *Store, name string, keys, args []string, fenced, compare bool) sim.Reply {
	nArgs := 3
	if fenced {
		nArgs = 4
	}
	if e := need(name, keys, args, 1, nArgs); e != nil {
		return *e
	}
	var token int64
	if fenced {
		var e *sim.Reply
		if token, e = parseInt("fencing token", args[2]); e != nil {
			return *e
		}
	}
	keep, e := parseInt("TTL", args[nArgs-1])
	if e != nil {
		return *e
	}
	h, e := s.hash(keys[0])
	if e != nil {
		return *e
	}
	fields := []string{"value", args[0], "writer", args[1]}
	if fenced {
		highest, e := fieldInt(h, "fence")
		if e != nil {
			return *e
		}
		if compare && token < highest {
			return sim.IntReply(0)
		}
		fields = append(fields, "fence", itoa(token))
	}
	s.setFields(keys[0], fields...)
	s.expireIn(keys[0], keep)
	return sim.IntReply(1)
}

// resourceFence models the fencing token issued right after an acquire of a
// variant whose own script issues none: the counter goes up by one only if
// the owner now holds the lock with a hold the acquire just created (the
// String's value is the owner, or the owner's Hash count is exactly 1);
// otherwise the reply is 0 and nothing changes.
func resourceFence(s *Store, keys, args []string) sim.Reply {
	if e := need("resource/fence", keys, args, 2, 3); e != nil {
		return *e
	}
	owner, kind := args[0], args[1]
	keep, e := parseInt("TTL", args[2])
	if e != nil {
		return *e
	}
	took := false
	if kind == "string" {
		v, ok, e := s.str(keys[0])
		if e != nil {
			return *e
		}
		took = ok && v == owner
	} else {
		h, e := s.hash(keys[0])
		if e != nil {
			return *e
		}
		took = h != nil && h[owner] == "1"
	}
	if !took {
		return sim.IntReply(0)
	}
	n, e := bumpFence(s, keys[1], keep)
	if e != nil {
		return *e
	}
	return sim.IntReply(n)
}

// bumpFence raises the fencing counter at key by one (from 0 when absent),
// gives it a TTL of keep ms, and returns the new value: INCR then PEXPIRE.
func bumpFence(s *Store, key string, keep int64) (int64, *sim.Reply) {
	var n int64
	if cur, ok, e := s.str(key); e != nil {
		return 0, e
	} else if ok {
		if n, e = parseInt("fencing counter", cur); e != nil {
			return 0, e
		}
	}
	n++
	if v := s.keys[key]; v != nil {
		v.str = itoa(n)
	} else {
		s.keys[key] = &value{typ: sim.TypeString, str: itoa(n)}
	}
	s.expireIn(key, keep)
	return n, nil
}

// fieldInt reads hash field name as an integer, 0 when the hash or the field
// is missing (as HINCRBY and a Lua "or '0'" read them).
func fieldInt(h map[string]string, name string) (int64, *sim.Reply) {
	v, ok := h[name]
	if !ok {
		return 0, nil
	}
	return parseInt("field "+name, v)
}
