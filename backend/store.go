package backend

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

//go:embed lua/restore.lua
var restoreSource string

var restoreScript = redis.NewScript(restoreSource)

//go:embed lua/expire.lua
var expireSource string

// expireScript sets the PTTLs of the keys a step's restore wrote (see
// Store.exec).
var expireScript = redis.NewScript(expireSource)

// goScripts caches one redis.Script (with its SHA1) per built-in
// sim.Script: a fixed set. A custom script (a user's variant file) is not
// kept: every load of a variant file (each share link of a learner's lock
// the web UI opens) makes new *sim.Script values, and a cache by pointer
// would grow with them for the life of the process. Its redis.Script is
// made per call instead, which costs a SHA1 of its source.
var goScripts sync.Map // *sim.Script -> *redis.Script

// script is sc as this store sends it (ScriptSource): a user's script
// with the key guard, and on a miniredis (the embedded backend, an
// embedded pair or nodes, the Lua sandbox) in Redis's own environment.
//
// record (a Derived batch) makes the guard note the keys the script
// writes (WrittenKey).
func (s *Store) script(c *sim.Call, record, clock bool) *redis.Script {
	if c.Script.Custom {
		return redis.NewScript(ScriptSource(c, s.Info().Embedded, record, clock))
	}
	if clock {
		// A built-in script beside a user's on the step's clock runs on it
		// too: its expiries set at the real time landed a millisecond
		// after VT now and then, and the frames differed from the embedded
		// Redis's (a fresh-eyes review of issue 33: the fencing counter's
		// PTTL read 1 ms high in 3 of 12 runs). Our scripts touch only
		// their KEYS, so the guard passes every command they send.
		return redis.NewScript(clockedBuiltin(c))
	}
	return builtinScript(c.Script)
}

func builtinScript(s *sim.Script) *redis.Script {
	if v, ok := goScripts.Load(s); ok {
		return v.(*redis.Script)
	}
	v, _ := goScripts.LoadOrStore(s, redis.NewScript(s.RunSource()))
	return v.(*redis.Script)
}

// Store runs one lesson's batches on Redis. It implements sim.Store.
// Close it when the run ends.
type Store struct {
	client conn
	prefix string
	// restore is true on a real Redis, whose TTLs run on the wall clock.
	restore bool
	// advance moves a virtual clock (embedded); nil on a real Redis.
	advance func(time.Duration)
	// closeFn releases what the store owns (embedded: the server).
	closeFn func()
	// mini is the embedded backend's server, reached by client; nil on a
	// real Redis.
	mini *miniredis.Miniredis
	// be is the backend that opened the store.
	be *Backend
	// lastMS is the server time (Unix ms) of the last batch on a wall
	// clock, from its closing TIME.
	lastMS int64
	// expireBy is when every key of the run will have expired on a real
	// Redis, on this machine's clock: the last batch plus the longest PTTL
	// it knew.
	expireBy time.Time

	// cached holds the scripts that the store's current server has run,
	// when that server is a miniredis of the run's own (the embedded
	// backend; an embedded pair; cleared when the pair fails over), which
	// starts with no script cached: a script goes as EVAL (which caches
	// it) until it has run to its end once, instead of an EVALSHA bound to
	// fail with NOSCRIPT and be resent. nil on a real Redis, whose script cache outlives a run
	// and is shared with other runs: there calls start with EVALSHA and go
	// as EVAL after a NOSCRIPT.
	cached map[*sim.Script]bool

	mu    sync.Mutex
	names map[string]bool // logical keys this store has ever been asked about
	info  Info            // what the store runs on

	// pmu guards pair, which a run with a replica sets up at its first
	// batch (replica.go), against a concurrent Close.
	pmu    sync.Mutex
	pair   pair
	closed bool
	// nodes are the servers of a run with nodes (nodes.go), set up at its
	// first batch under pmu; nil in every other run.
	nodes *nodeSet
	// watch bounds the step in progress when it calls a user's script
	// (execBounded); nil between steps and for other steps.
	watch *overrunWatch
	// runWritten is what the run's calls of a user's script wrote, under
	// mu (chargeWrites, MaxRunWriteBytes).
	runWritten int64
}

// Info describes what the store runs on: the backend's Info, until the first
// batch of a run with a replica sets the store up on a pair (an embedded one,
// or redis-server processes it started) and Info names that pair.
func (s *Store) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// conn is what a Store sends its commands through: a *redis.Client, or on
// the primary of a started pair a *redis.Conn, one connection, since WAIT
// waits for the writes made on the connection it is sent on.
type conn interface {
	TxPipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
	Del(ctx context.Context, keys ...string) *redis.IntCmd
}

// Prefix returns the namespace of the store's keys ("" on the embedded
// backend, where each run has a server of its own).
func (s *Store) Prefix() string { return s.prefix }

func (s *Store) key(name string) string { return s.prefix + name }

func (s *Store) note(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.names[n] = true
	}
}

// Advance implements sim.Store: on the embedded backend it fast-forwards
// miniredis's clock by d; on a real one simulated time lives in the runner
// and the next Exec's restore carries it.
func (s *Store) Advance(_ context.Context, d time.Duration) error {
	if s.advance != nil {
		s.advance(d)
	}
	return nil
}

// CustomScriptError is a batch refused before it reached a real Redis: it
// calls a script of a user's variant file, and the operator did not allow
// custom scripts there (Config.AllowCustomScripts).
type CustomScriptError struct{ Script string }

func (e *CustomScriptError) Error() string {
	return fmt.Sprintf("backend: script %s comes from a variant file; a real Redis runs such scripts only with -allow-custom-scripts", e.Script)
}

// Message makes CustomScriptError a Coded error: backend.custom-script.
func (e *CustomScriptError) Message() sim.Msg {
	return sim.M("backend.custom-script", "Script", e.Script)
}

// maxTries bounds how often Exec sends a step's transaction again (after
// NOSCRIPT, after it straddled a millisecond on a real Redis, or to read
// keys its scripts built).
const maxTries = 200

// ErrClockStraddle is wrapped by Exec's error when no attempt at a step ran
// within one millisecond of server time (see Exec).
var ErrClockStraddle = errors.New("backend: step never ran within one server millisecond")

// Exec implements sim.Store: one MULTI/EXEC per step holding, on a real Redis,
// the restore script (every run key re-established with its simulated
// contents), TIME, the expire script (the keys' PTTLs), the calls as EVALSHA, the reads (PTTL plus HGETALL or
// GET per key), and TIME again. Redis 7.0 does not freeze its clock inside a
// transaction, so when the two TIMEs fall in different milliseconds the PTTLs
// read may be off by the time that passed: the transaction is then sent
// again, and the restore at its head makes the repeat exact. When the server
// has not cached a script (NOSCRIPT) it is sent again with EVAL.
//
// A batch whose Replica is not sim.NoReplica belongs to a run with a primary
// and a replica. The first such batch sets the pair up: on the embedded
// backend a second miniredis; given a URL, two redis-server processes the
// store starts (or an embedded pair when redis-server is not on PATH), never
// the server at the URL. See replica.go for what each kind of batch does.
// A batch whose Nodes is not 0 belongs to a run with independent nodes and
// goes to its node (nodes.go).
//
// A batch that calls a user's script on a backend that bounds them runs
// within the script's time limit as a whole (execBounded).
//
// The writes of a run's calls of a user's script are counted over the run
// (chargeWrites, MaxRunWriteBytes), on every backend.
func (s *Store) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	res, err := s.exec1(ctx, b)
	if err == nil && res != nil && callsCustom(b) != "" {
		if err = s.chargeWrites(b, res); err != nil {
			return nil, err
		}
	}
	return res, err
}

// exec1 runs b (see Exec) without the run's count of writes.
func (s *Store) exec1(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	if name := callsCustom(b); name != "" && s.be.overrun != nil {
		return s.execBounded(ctx, b, name)
	}
	res, err := s.execStep(ctx, b)
	if s.be.sandbox {
		err = withoutLoopback(err)
	}
	return res, err
}

// execStep runs b (see Exec).
func (s *Store) execStep(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	if s.be.cfg.URL != "" && !s.be.cfg.AllowCustomScripts {
		for _, c := range b.Calls {
			if c.Script.Custom {
				return nil, &CustomScriptError{Script: c.Script.Name}
			}
		}
	}
	for _, k := range b.Read {
		s.note(k.Name)
	}
	for _, k := range b.Prior {
		s.note(k.Name)
	}
	for _, c := range b.Calls {
		for i, k := range c.Keys {
			if c.IsKey(i) {
				s.note(k)
			}
		}
	}
	if b.Nodes > 0 {
		return s.execNode(ctx, b)
	}
	var p pair
	if b.Replica != sim.NoReplica {
		var err error
		if p, err = s.replicaPair(ctx); err != nil {
			return nil, err
		}
		if err := p.before(ctx, s, b); err != nil {
			return nil, err
		}
	}
	res, err := s.run(ctx, b)
	if err != nil {
		return nil, err
	}
	if p != nil {
		if err := p.after(ctx, s, b, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// run sends b's transaction until it holds (see Exec).
func (s *Store) run(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	eval := false
	// d is what a Derived batch found of the keys its scripts build
	// (derived.go); nil for any other batch.
	var d *derivedRead
	if b.Derived {
		d = &derivedRead{}
	}
	for try := 0; try < maxTries; try++ {
		res, again, written, err := s.exec(ctx, b, eval, d)
		if err == nil && res != nil && !s.Info().Embedded && heapSpent(res.Replies) {
			if cerr := collectLuaHeap(ctx, s.client); cerr != nil {
				log.Print(cerr)
			}
		}
		if err == nil && again == noRetry && d != nil && stoppedIn(res.Replies) {
			// A bound stopped a script: that is the step's outcome, sent
			// once. Reading what it built would send it again and run it
			// as long again (a fresh-eyes attack on issue 37: a script
			// stopped at its 1 s ran twice, and the step was reported as
			// the overrun watch's SCRIPT KILL); the keys it wrote are the
			// run's all the same (writtenNames), deleted by the next
			// step's restore and at Close. What it read of keys an
			// earlier attempt built (d.refs) is split off as Found, as
			// below: left in Keys, the step read more keys than it asked
			// for and failed, and was run again.
			res.Found = d.found(res)
			return res, nil
		}
		if err == nil && again == noRetry && d != nil {
			// Keys the calls built that the step did not read: read them
			// too, by sending the step again from Prior.
			if again, err = d.findNew(ctx, s, b, written); err == nil && again == noRetry {
				res.Found = d.found(res)
			}
		} else if err == nil && d != nil {
			// A resend starts from Prior: delete what the attempt built.
			_, err = d.findNew(ctx, s, b, written)
		}
		switch {
		case err != nil:
			return nil, err
		case again == retryNoScript:
			eval = true
		case again == retryStraddle, again == retryDerived:
			// The attempt's EVALs left its scripts in a real Redis's
			// cache: the next goes as EVALSHA. Sent as EVAL again, a
			// user's guarded script was compiled anew each time, past its
			// step's millisecond ("clock moved before the script started"),
			// 26 tries in a row on an idle machine.
			if s.cached == nil && !s.be.sandbox {
				eval = false
			}
		default:
			return res, nil
		}
	}
	return nil, fmt.Errorf("%w after %d tries", ErrClockStraddle, maxTries)
}

// stoppedIn reports whether a custom script of the batch was stopped for
// running too long (sim.MaxScriptTurns) or by a bound of the key guard
// (a string past MaxMadeBytes, a refused call): the step fails with that
// whenever it is sent, so the time it took must not send the batch again
// and again.
func stoppedIn(replies []sim.Reply) bool {
	for _, r := range replies {
		if r.Kind == sim.ReplyError && (sim.ScriptWasStopped(r.Str) || guardStopped(r.Str)) {
			return true
		}
	}
	return false
}

type retry int

const (
	noRetry retry = iota
	retryNoScript
	retryStraddle
	// retryDerived: a Derived batch's calls built keys it did not read;
	// it is sent again from Prior, reading them (derived.go).
	retryDerived
)

// exec sends one attempt at b (see Exec). It also returns, for a Derived batch (d not nil), the logical names of the
// keys its calls wrote outside their KEYS (derived.go), also with a
// retry.
func (s *Store) exec(ctx context.Context, b *sim.Batch, eval bool, d *derivedRead) (*sim.BatchResult, retry, []string, error) {
	var restore *redis.Cmd
	var t0, t1 *redis.TimeCmd
	prior, known := b.Prior, map[string]sim.KeyState(nil)
	read := b.Read
	restoring := s.restore || eval
	if d != nil {
		// Every key is re-established (a script may write keys its KEYS do
		// not name), and the keys the namespace holds outside Prior are
		// deleted; the keys found so far are read beside Read.
		prior, read = d.prior(s, b), append(b.Read[:len(b.Read):len(b.Read)], d.refs...)
		restoring = restoring || d.resend
	} else if s.restore && b.Replica == sim.NoReplica && b.Nodes == 0 {
		prior, known = touchedOnly(b)
	}
	var sets []string
	if d != nil {
		sets = s.writtenSets(b)
	}
	members := make([]*redis.StringSliceCmd, len(sets))
	// clock: the step runs on its own clock (vclock.go).
	clock := s.onClock(b)
	var clockKeys []string
	var clockCmd *redis.Cmd
	if clock {
		clockKeys = s.clockKeys(b)
	}
	calls := make([]*redis.Cmd, len(b.Calls))
	pttls := make([]*redis.Cmd, len(read))
	reads := make([]*redis.Cmd, len(read))
	var expire *redis.Cmd
	// Our own scripts (restore, expire, clock) go as EVAL in a step that
	// calls a user's script: an EVALSHA of ours that the server had not
	// cached answered NOSCRIPT only after the user's script had run, which
	// then ran again in the resend (a script stopped at its 1 s bound held
	// Redis 2 s; web.TestRealRedisBoundStopIsFinal). Their text is a few
	// hundred bytes; such steps are a user's own lock's.
	ownEval := eval || slices.ContainsFunc(b.Calls, func(c sim.Call) bool { return c.Script.Custom })
	cmds, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		// A resend after NOSCRIPT (eval) restores Prior on every store: calls
		// before the failed one had run, and the restore undoes them. The
		// keys' contents go first, without expiry, and their PTTLs after
		// TIME: writing thousands of fields takes milliseconds, setting
		// the PTTLs microseconds, and only what follows TIME must fall in
		// one server millisecond (before, a run whose keys held a few
		// thousand Hash fields never did: its steps were sent again and
		// again, holding Redis up to the step's bound, then failed).
		var ekeys []string
		var eargs []any
		if restoring && len(prior) > 0 {
			keys, args, ek, ea := restoreSplitArgs(s, prior)
			restore = run(ctx, p, restoreScript, ownEval, keys, args)
			ekeys, eargs = ek, ea
		}
		if s.restore {
			t0 = p.Time(ctx)
		}
		if len(ekeys) > 0 {
			expire = run(ctx, p, expireScript, ownEval, ekeys, eargs)
		}
		if len(clockKeys) > 0 {
			clockCmd = run(ctx, p, clockScript, ownEval, clockKeys, []any{clockTTL})
		}
		for i, c := range b.Calls {
			keys := make([]string, len(c.Keys))
			for j, k := range c.Keys {
				keys[j] = k
				if c.IsKey(j) {
					keys[j] = s.key(k) // a value (the owner id) goes as it is
				}
			}
			args := make([]any, len(c.Args))
			for j, a := range c.Args {
				args[j] = a
			}
			calls[i] = run(ctx, p, s.script(&b.Calls[i], d != nil, clock), eval || s.cached != nil && !s.cached[c.Script], keys, args)
		}
		if len(clockKeys) > 0 {
			p.Del(ctx, clockKeys...)
		}
		for i, k := range sets {
			members[i] = p.SMembers(ctx, k)
		}
		if len(sets) > 0 {
			p.Del(ctx, sets...)
		}
		for i, k := range read {
			if _, ok := known[k.Name]; ok {
				continue
			}
			if clock {
				pttls[i] = p.Do(ctx, "PEXPIRETIME", s.key(k.Name))
			} else {
				pttls[i] = p.Do(ctx, "PTTL", s.key(k.Name))
			}
			if k.Type == sim.TypeString {
				reads[i] = p.Do(ctx, "GET", s.key(k.Name))
			} else {
				reads[i] = p.Do(ctx, "HGETALL", s.key(k.Name))
			}
		}
		if s.restore {
			t1 = p.Time(ctx)
		}
		return nil
	})
	// The keys a script wrote are the run's, whatever became of the step.
	written, werr := s.writtenNames(members)
	if oerr := s.watch.check(s.be, err); oerr != nil {
		return nil, noRetry, nil, oerr
	}
	// A user's script's ACL refusal is its own error reply, decoded
	// below (without the user's name): a PermissionError names the Redis
	// user and its rules, the operator's business, not a visitor's (a
	// fresh-eyes attack on issue 37).
	own := map[redis.Cmder]bool{}
	for i, c := range b.Calls {
		if c.Script.Custom && calls[i] != nil {
			own[calls[i]] = true
		}
	}
	if perr := s.be.permissionIn(cmds, own); perr != nil {
		return nil, noRetry, nil, fmt.Errorf("backend: %w", perr)
	}
	if err != nil && !isReply(err) {
		return nil, noRetry, nil, fmt.Errorf("backend: %w", err)
	}
	if restore != nil {
		if isNoScript(restore.Err()) {
			return nil, retryNoScript, written, nil
		}
		if err := restore.Err(); err != nil && !isExecAbort(err) {
			return nil, noRetry, nil, fmt.Errorf("backend: restore run keys: %w", err)
		}
	}
	if expire != nil {
		if isNoScript(expire.Err()) {
			return nil, retryNoScript, written, nil
		}
		if err := expire.Err(); err != nil && !isExecAbort(err) {
			return nil, noRetry, nil, fmt.Errorf("backend: set run keys' PTTLs: %w", err)
		}
	}
	var vt int64
	if clockCmd != nil {
		if isNoScript(clockCmd.Err()) {
			return nil, retryNoScript, written, nil
		}
		if vt, err = clockCmd.Int64(); err != nil && !isExecAbort(err) {
			return nil, noRetry, nil, fmt.Errorf("backend: fix the step's clock: %w", err)
		}
	}
	out := &sim.BatchResult{Replies: make([]sim.Reply, len(calls)), Keys: make([]sim.KeyState, len(read))}
	for i, c := range calls {
		if isNoScript(c.Err()) {
			return nil, retryNoScript, written, nil
		}
		// The script ran to its end, so the server keeps it: a reply or a
		// nil reply (redis.Nil). After an error reply it may not (miniredis
		// keeps no script whose run raised an error); the next call then
		// goes as EVAL again.
		if s.cached != nil && (c.Err() == nil || errors.Is(c.Err(), redis.Nil)) {
			s.cached[b.Calls[i].Script] = true
		}
		r, err := DecodeReply(c.Val(), c.Err())
		if err != nil {
			return nil, noRetry, nil, fmt.Errorf("backend: %s: %w", b.Calls[i].Script.Name, err)
		}
		out.Replies[i] = guardReplyAsRun(r, s.prefix)
	}
	// After the calls: when Redis refused the transaction (EXECABORT), a
	// call's own error says why; the written sets' SMEMBERS only echo it.
	if werr != nil && !isExecAbort(werr) {
		return nil, noRetry, nil, werr
	}
	if isExecAbort(err) {
		// Nothing ran: the keys are as the step found them (Prior), and
		// the refused call's error reply is the step's outcome.
		for i, k := range read {
			out.Keys[i] = sim.Absent(k.Name)
			for _, p := range b.Prior {
				if p.Name == k.Name {
					out.Keys[i] = p
				}
			}
		}
		return out, noRetry, written, nil
	}
	for i, k := range read {
		if ks, ok := known[k.Name]; ok {
			out.Keys[i] = ks
			continue
		}
		ks, err := readKey(k, pttls[i], reads[i], vt)
		if err != nil {
			return nil, noRetry, nil, err
		}
		out.Keys[i] = ks
	}
	if t0 != nil {
		if t0.Err() != nil || t1.Err() != nil {
			return nil, noRetry, nil, fmt.Errorf("backend: TIME: %w", errors.Join(t0.Err(), t1.Err()))
		}
		// The Lua sandbox's servers are miniredis, whose TTLs move only
		// when told (the restore at each step's head): a step that
		// straddles a millisecond there reads the PTTLs it wrote, so it is
		// not sent again (under a race-instrumented test binary, the
		// sandbox's child, a guarded step takes over a millisecond).
		switch {
		case clockCmd != nil:
			// On the step's clock, only the restore and the scripts' starts
			// must fall in its millisecond (vclock.go). A bound's stop is
			// the step's outcome however long it took: sent again, it
			// would run as long again (stoppedIn).
			// (Both tests: a stopped script's step had its restore's
			// millisecond read as straddled and ran twice.)
			if !stoppedIn(out.Replies) && (slices.ContainsFunc(out.Replies, clockMoved) || clockStraddled(t0.Val().UnixMilli(), vt, t1.Val().UnixMilli(), prior, out.Keys)) {
				return nil, retryStraddle, written, nil
			}
		case t0.Val().UnixMilli() != t1.Val().UnixMilli() && !s.be.sandbox && !stoppedIn(out.Replies):
			return nil, retryStraddle, written, nil
		}
		s.lastMS = t1.Val().UnixMilli()
		var longest int64
		for _, k := range out.Keys {
			longest = max(longest, k.PTTL)
		}
		s.expireBy = maxTime(s.expireBy, time.Now().Add(time.Duration(longest)*time.Millisecond))
	}
	return out, noRetry, written, nil
}

// touchedOnly splits a batch of a single real Redis by the keys its calls
// name. A script touches only the keys it is given (KEYS, as Redis Cluster
// requires), so in a step that runs within one server millisecond a key no
// call names stays exactly as Prior has it: its state is known without a
// round trip. Only the named keys are restored and read, and the size of a
// step's transaction does not grow with the run's keys (hardening finding
// 3: a run of 100 locks once restored and read all 300 keys at every step,
// until no transaction fitted in one millisecond). It returns the Prior
// keys to restore and the known states of the others, by name.
func touchedOnly(b *sim.Batch) ([]sim.KeyState, map[string]sim.KeyState) {
	named := map[string]bool{}
	for _, c := range b.Calls {
		for i, k := range c.Keys {
			if c.IsKey(i) {
				named[k] = true
			}
		}
	}
	var restore []sim.KeyState
	known := make(map[string]sim.KeyState, len(b.Prior))
	for _, k := range b.Prior {
		if named[k.Name] {
			restore = append(restore, k)
		} else {
			known[k.Name] = k
		}
	}
	return restore, known
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func run(ctx context.Context, p redis.Pipeliner, sc *redis.Script, eval bool, keys []string, args []any) *redis.Cmd {
	if eval {
		return sc.Eval(ctx, p, keys, args...)
	}
	return sc.EvalSha(ctx, p, keys, args...)
}

func restoreArgs(s *Store, prior []sim.KeyState) ([]string, []any) {
	keys, args, _, _ := restoreArgsPTTL(s, prior, true)
	return keys, args
}

// restoreSplitArgs returns restoreScript's keys and arguments for prior
// with every PTTL left out (the empty string), and expireScript's: the
// keys that exist in prior and their PTTLs.
func restoreSplitArgs(s *Store, prior []sim.KeyState) (keys []string, args []any, ekeys []string, eargs []any) {
	return restoreArgsPTTL(s, prior, false)
}

// restoreArgsPTTL builds restoreScript's keys and arguments for prior:
// with each key's PTTL when withPTTL, else with "" in its place and the
// keys that exist with their PTTLs as expireScript's keys and arguments.
func restoreArgsPTTL(s *Store, prior []sim.KeyState, withPTTL bool) (keys []string, args []any, ekeys []string, eargs []any) {
	keys = make([]string, len(prior))
	for i, k := range prior {
		keys[i] = s.key(k.Name)
		var pttl any = k.PTTL
		if !withPTTL && (k.Type == sim.TypeHash || k.Type == sim.TypeString) {
			ekeys, eargs = append(ekeys, keys[i]), append(eargs, k.PTTL)
			pttl = ""
		}
		switch k.Type {
		case sim.TypeHash:
			args = append(args, "hash", pttl, len(k.Fields))
			for _, f := range k.Fields {
				args = append(args, f.Name, f.Value)
			}
		case sim.TypeString:
			args = append(args, "string", pttl, 1, k.Value)
		default:
			args = append(args, "none", 0, 0)
		}
	}
	return keys, args, ekeys, eargs
}

// readKey reads key k from its PTTL and GET or HGETALL replies; with vt
// (the step's clock, vclock.go; 0 otherwise) pttl is PEXPIRETIME's reply
// and the PTTL is that less vt.
func readKey(k sim.KeyRef, pttl, read *redis.Cmd, vt int64) (sim.KeyState, error) {
	ttl, err := pttl.Int64()
	if err != nil {
		return sim.KeyState{}, fmt.Errorf("backend: PTTL %s: %w", k.Name, err)
	}
	if vt != 0 && ttl >= 0 {
		ttl = max(ttl-vt, 0)
	}
	if ttl == -2 {
		return sim.Absent(k.Name), nil
	}
	ks := sim.KeyState{Name: k.Name, Type: k.Type, PTTL: ttl}
	if k.Type == sim.TypeString {
		v, err := read.Text()
		if err != nil {
			return sim.KeyState{}, fmt.Errorf("backend: GET %s: %w", k.Name, err)
		}
		ks.Value = v
		return ks, CheckKeySize(ks)
	}
	flat, err := read.StringSlice()
	if err != nil {
		return sim.KeyState{}, fmt.Errorf("backend: HGETALL %s: %w", k.Name, err)
	}
	for i := 0; i+1 < len(flat); i += 2 {
		ks.Fields = append(ks.Fields, sim.Field{Name: flat[i], Value: flat[i+1]})
	}
	// Hash field order differs between servers; frames must not.
	sort.Slice(ks.Fields, func(i, j int) bool { return ks.Fields[i].Name < ks.Fields[j].Name })
	return ks, CheckKeySize(ks)
}

func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

func isNoScript(err error) bool { return redis.HasErrorPrefix(err, "NOSCRIPT") }

// isExecAbort reports whether err is Redis's EXECABORT: a command of the
// transaction was refused as it was queued (an ACL refusal of a user's
// script, say), and that command's own error says why.
func isExecAbort(err error) bool { return redis.HasErrorPrefix(err, "EXECABORT") }

// Close ends the run: on a real Redis it deletes every key of the run (even
// when ctx is already done, it tries for up to 3 s more); on the embedded one
// it shuts the run's server down. A run with a replica deletes its keys on
// the server it ran on last, then kills the redis-server processes it
// started (or shuts its embedded pair down).
func (s *Store) Close(ctx context.Context) error {
	var err error
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.closed {
		return nil // closed before: its place among MaxPairs is free already
	}
	s.closed = true
	if s.prefix != "" {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		defer cancel()
		s.mu.Lock()
		keys := make([]string, 0, len(s.names))
		for n := range s.names {
			keys = append(keys, s.key(n))
		}
		s.mu.Unlock()
		sort.Strings(keys)
		if len(keys) > 0 {
			if e := s.client.Del(ctx, keys...).Err(); e != nil {
				e = s.be.permission("DEL", e)
				err = fmt.Errorf("backend: delete run keys under %s: %w", s.prefix, e)
				if s.pair == nil && !isReply(e) && !s.be.sandbox {
					// Redis is down or slow: try again later.
					s.be.retryDelete(s.prefix, keys, s.expireBy)
					err = fmt.Errorf("%w (Lockstep tries again while it runs)", err)
				}
			}
		}
	}
	if s.pair != nil {
		s.pair.close()
	}
	if s.nodes != nil {
		s.nodes.close()
	}
	if s.closeFn != nil {
		s.closeFn()
	}
	return err
}
