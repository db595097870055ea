package backend

import (
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"text/template"
	"time"

	"lockstep/sim"
)

// A user's script (sim.Script.Custom) may touch only its own run's keys:
// on the Lua sandbox and on a real Redis opened with -allow-custom-scripts,
// every run shares one Redis, so a script that computed another run's key
// name could read or change another visitor's lesson (a fresh-eyes review
// of issue 37). Redis offers no per-script key ACL short of an ACL user per
// run, which an operator's confined user may not create, and redis-server
// 7 makes the globals and the `redis` table read-only, so redis.call
// cannot be replaced in place. The guard (keyGuardPrefix) shadows them
// lexically instead: the first line of a user's script declares locals
// `redis`, `_G`, `loadstring`, `load`, `string`, `table` and
// `getmetatable`. The shadow redis.call and redis.pcall check every
// command's keys before handing it to the real ones; Lua 5.1 without
// getfenv and debug (RemovedGlobals) has no other way to the globals.
// loadstring and load refuse (compileRefused): code compiled as the script
// runs is outside its turn count. string.rep and table.concat refuse a
// result over MaxMadeBytes, and getmetatable of a string is nil (its
// __index is the real string table). redis.REDIS_VERSION and
// REDIS_VERSION_NUM read nil: the server's version is the operator's
// business (a fresh-eyes attack on issue 37). The shadow tables hold their
// own fields and read the rest from the real ones through a metatable the
// script cannot get (__metatable): copying every global at every call cost
// some 25 KB a call. So pairs(_G) lists only the seven names. What the
// shadows cannot reach: a method call on a string value (s:rep(n), or
// s[k] with k computed) goes through the strings' own metatable, which on
// redis-server is the real string table, read-only there (so the guard
// cannot route it either); on a miniredis the environment
// (redisEnvPrefix) bounds that table itself. What such a call makes or
// how long it runs is not bounded on redis-server (docs/security.md, Known
// gaps); growth by `..` and turn by turn is (luaheap.go, MaxScriptHeap).
//
// The rule, the same on every backend: a key a command names must be one
// of the script's KEYS as the call began, or start with one of them and a
// colon (a key derived from it, such as KEYS[1] .. ":count", issue 33). On
// a shared Redis every key the store passes starts with the run's own
// hash-tagged namespace ("lockstep:{run-<id>}:"), so such a key is always
// in it; on the in-process embedded Redis (no prefix, a server per run)
// the same rule gives the same replies to every key a script builds from
// KEYS. A key argument that is neither a string nor a number is left to
// Redis, which refuses the whole call ("Lua redis lib command arguments
// must be strings or integers"). (The colon is why a run whose lock is "lock" may not name
// "lockstep:{run-...}:lock" on the embedded Redis either. The one
// difference left: a literal "order:42:count" in a script whose lock is
// order:42 is allowed there and refused on a shared Redis, where the
// run's key is "lockstep:{run-<id>}:order:42".) A looser rule, any key in
// the run's namespace, could not be the same on the embedded Redis, which
// has no namespace. A command is checked by where its keys are (guardedCommands);
// a command not listed there (SCAN, KEYS, FLUSHALL, SORT, EVAL, CONFIG ...)
// // is refused, since which keys it touches cannot be told. A refusal is a
// Lua error from redis.call, a string raised at the script's own line
// (below), and
// an error table from redis.pcall; its text, from keyGuardMarker on, is
// the same on every backend.

// An error of a command the guard passes is raised as a refusal is: the guard
// sends it with redis.pcall and raises the error table's text at the
// script's level,
// "user_script:7: WRONGTYPE ..." (a fresh-eyes review of issue 37: raised
// from the guard's redis.call, every such error named line 1, the guard's).
// The price: such an error is a string, not redis-server's error table, so
// its reply starts with ERR, as it does on a miniredis already, and a
// script's own pcall(redis.call, ...) gets that string.

// compileRefused is the error of loadstring and load in a user's script,
// on every backend: the turn count (sim.MaxScriptTurns) is in the script's
// own text, so code compiled as it runs would not be counted, and on a
// real Redis such code after a write held Redis BUSY, unkillable (a
// fresh-eyes attack on issue 37). A lock script needs neither.
const compileRefused = keyGuardMarker + " loadstring and load refused: a script of your own may not compile code as it runs, as Lockstep could not count its turns"

// maxMade is MaxMadeBytes as the guard's Lua text writes it.
var maxMade = fmt.Sprint(MaxMadeBytes)

// MaxPatternWork bounds one pattern match (string.find, match, gmatch,
// gsub) in a user's script, however it is called (string.find(s, p),
// s:find(p): luaindex.go), one table.sort (sortStoppedMarker), and all the
// matches and sorts of one call of the script together. Any find, match,
// gmatch or gsub, plain or not, may compare len(s) x len(p) bytes
// (string.find(s, p, 1, true) of 1 MiB and 512 KiB held redis-server BUSY
// 17 s, a fresh attacker on issue 37), and a call whose len(s) x len(p)
// passes the bound is refused. Besides, a pattern with q repetition items (*, +, -, ?, %b and a back
// reference %1-%9, each counted, escaped or not) may backtrack some
// n^(q+1) times on a string of n bytes (n^q when find, match or gsub
// anchor it with ^), and one such call ran for ever on every backend, out
// of reach of the turn count and of SCRIPT KILL (a fresh-eyes review of
// issue 37). A call whose n^(q+1) passes it is refused, and so is the
// call that brings the script's sum past it. 10^7 is some 60 ms on
// redis-server 7.0 (10^8 took 0.25 to 0.63 s, and several seconds in the
// Lua sandbox's gopher-lua); a lock script matches short values with few
// items (^(.-):(%d+)$ on up to 3,162 bytes).
const MaxPatternWork = 1e7

// patternWorkLog is the natural log of MaxPatternWork, as the guard's Lua
// text compares it.
var patternWorkLog = fmt.Sprintf("%.6f", math.Log(MaxPatternWork))

// patternStoppedMarker starts the error of a pattern match the guard
// refuses (MaxPatternWork).
const patternStoppedMarker = "lockstep: pattern:"

// sortStoppedMarker starts the error of a table.sort the guard refuses:
// one whose worst case, n log2(n) comparisons of up to the longest
// string's length plus one bytes each, passes MaxPatternWork, or brings
// the script's sum of pattern and sort work past it. A sort runs in one C
// call (with or without a comparator: each comparison of two strings is
// one C call too), out of reach of the turn count and of SCRIPT KILL;
// before, sorting 8,000 references to one 1 MiB string held redis-server
// BUSY 3 to 11 s (a fresh attacker on issue 37).
const sortStoppedMarker = "lockstep: table.sort:"

// keyGuardMarker starts the error of a command the guard refuses (after
// "ERR " in a reply of redis-server and in an error table of
// redis.pcall).
const keyGuardMarker = "lockstep: key guard:"

// keySpec says where a command's keys are among its arguments (after the
// command's name).
type keySpec byte

// The key positions guardedCommands knows.
const (
	keysNone     keySpec = '0' // no key (PING, TIME)
	keysFirst    keySpec = '1' // the first argument
	keysFirstTwo keySpec = '2' // the first two (RENAME src dst)
	keysAll      keySpec = 'A' // every argument (DEL, MGET)
	keysPairs    keySpec = 'M' // every other, from the first (MSET k v k v)
	keysDestNum  keySpec = 'N' // a destination, a count, that many keys (ZUNIONSTORE)
	keysNum      keySpec = 'n' // a count, then that many keys (ZUNION, SINTERCARD)
)

// guardedCommands are the commands a user's script may call, lowercase,
// with where their keys are (from the key specifications of Redis 7.0's
// COMMAND DOCS). Options that name keys elsewhere (SORT's BY and GET) or
// reach other databases (COPY's DB, MOVE, SELECT) are why those commands
// are not listed.
var guardedCommands = map[string]keySpec{
	"ping": keysNone, "echo": keysNone, "time": keysNone,
	// strings
	"get": keysFirst, "set": keysFirst, "setnx": keysFirst, "setex": keysFirst, "psetex": keysFirst,
	"getset": keysFirst, "getdel": keysFirst, "getex": keysFirst, "append": keysFirst, "strlen": keysFirst,
	"incr": keysFirst, "decr": keysFirst, "incrby": keysFirst, "decrby": keysFirst, "incrbyfloat": keysFirst,
	"getrange": keysFirst, "setrange": keysFirst, "setbit": keysFirst, "getbit": keysFirst, "bitcount": keysFirst,
	"mget": keysAll, "mset": keysPairs, "msetnx": keysPairs,
	// keys and their TTLs
	"del": keysAll, "unlink": keysAll, "exists": keysAll, "touch": keysAll, "type": keysFirst,
	"expire": keysFirst, "pexpire": keysFirst, "expireat": keysFirst, "pexpireat": keysFirst, "persist": keysFirst,
	"ttl": keysFirst, "pttl": keysFirst, "expiretime": keysFirst, "pexpiretime": keysFirst,
	"rename": keysFirstTwo, "renamenx": keysFirstTwo,
	// hashes
	"hset": keysFirst, "hsetnx": keysFirst, "hget": keysFirst, "hmset": keysFirst, "hmget": keysFirst,
	"hdel": keysFirst, "hlen": keysFirst, "hstrlen": keysFirst, "hexists": keysFirst, "hkeys": keysFirst,
	"hvals": keysFirst, "hgetall": keysFirst, "hincrby": keysFirst, "hincrbyfloat": keysFirst,
	"hrandfield": keysFirst, "hscan": keysFirst,
	// lists
	"lpush": keysFirst, "rpush": keysFirst, "lpushx": keysFirst, "rpushx": keysFirst, "lpop": keysFirst,
	"rpop": keysFirst, "llen": keysFirst, "lrange": keysFirst, "lindex": keysFirst, "lset": keysFirst,
	"lrem": keysFirst, "ltrim": keysFirst, "linsert": keysFirst, "lpos": keysFirst,
	"rpoplpush": keysFirstTwo, "lmove": keysFirstTwo,
	// sets
	"sadd": keysFirst, "srem": keysFirst, "smembers": keysFirst, "sismember": keysFirst, "smismember": keysFirst,
	"scard": keysFirst, "spop": keysFirst, "srandmember": keysFirst, "sscan": keysFirst, "smove": keysFirstTwo,
	"sinter": keysAll, "sunion": keysAll, "sdiff": keysAll, "sinterstore": keysAll, "sunionstore": keysAll,
	"sdiffstore": keysAll, "sintercard": keysNum,
	// sorted sets
	"zadd": keysFirst, "zrem": keysFirst, "zscore": keysFirst, "zmscore": keysFirst, "zincrby": keysFirst,
	"zcard": keysFirst, "zcount": keysFirst, "zlexcount": keysFirst, "zrange": keysFirst, "zrangebyscore": keysFirst,
	"zrevrange": keysFirst, "zrevrangebyscore": keysFirst, "zrangebylex": keysFirst, "zrevrangebylex": keysFirst,
	"zrank": keysFirst, "zrevrank": keysFirst, "zremrangebyrank": keysFirst, "zremrangebyscore": keysFirst,
	"zremrangebylex": keysFirst, "zpopmin": keysFirst, "zpopmax": keysFirst, "zrandmember": keysFirst,
	"zscan": keysFirst, "zrangestore": keysFirstTwo,
	"zunionstore": keysDestNum, "zinterstore": keysDestNum, "zdiffstore": keysDestNum,
	"zunion": keysNum, "zinter": keysNum, "zdiff": keysNum,
	// HyperLogLog, streams
	"pfadd": keysFirst, "pfcount": keysAll,
	"xadd": keysFirst, "xlen": keysFirst, "xrange": keysFirst, "xrevrange": keysFirst, "xdel": keysFirst,
	"xtrim": keysFirst,
	// A channel is checked as a key: a lock that publishes on release
	// (Redisson's) passes its channel in KEYS, and another run's channel
	// is as much another visitor's as its keys.
	"publish": keysFirst, "spublish": keysFirst,
}

// writingCommands are the guarded commands that may create, change or
// delete a key they name (from Redis 7.0's COMMAND DOCS: the write flag).
// A Derived batch's guard records their keys (keyGuard's record).
var writingCommands = map[string]bool{
	"set": true, "setnx": true, "setex": true, "psetex": true, "getset": true, "getdel": true, "getex": true,
	"append": true, "incr": true, "decr": true, "incrby": true, "decrby": true, "incrbyfloat": true,
	"setrange": true, "setbit": true, "mset": true, "msetnx": true,
	"del": true, "unlink": true, "expire": true, "pexpire": true, "expireat": true, "pexpireat": true,
	"persist": true, "rename": true, "renamenx": true,
	"hset": true, "hsetnx": true, "hmset": true, "hdel": true, "hincrby": true, "hincrbyfloat": true,
	"lpush": true, "rpush": true, "lpushx": true, "rpushx": true, "lpop": true, "rpop": true, "lset": true,
	"lrem": true, "ltrim": true, "linsert": true, "rpoplpush": true, "lmove": true,
	"sadd": true, "srem": true, "spop": true, "smove": true, "sinterstore": true, "sunionstore": true, "sdiffstore": true,
	"zadd": true, "zrem": true, "zincrby": true, "zremrangebyrank": true, "zremrangebyscore": true,
	"zremrangebylex": true, "zpopmin": true, "zpopmax": true, "zrangestore": true,
	"zunionstore": true, "zinterstore": true, "zdiffstore": true,
	"pfadd": true, "xadd": true, "xdel": true, "xtrim": true,
}

// writtenSuffix makes the name of a call's written set from its first
// KEYS entry that is a key (WrittenKey). The guard refuses the name to the
// script itself, so a user's script can neither read nor spoil it.
const writtenSuffix = ":lockstep:written"

// writtenTTL is the written set's TTL: the store deletes it in the
// transaction that made it, so it outlives that only if the connection
// broke mid-transaction.
const writtenTTL = time.Minute

// WrittenKey returns the key (as the store sends it: prefix included) of
// the Set in which the guard of c's script, sent with record, notes the
// keys it wrote that are not among c's KEYS: the first KEYS entry that is
// a key, then writtenSuffix. ok is false when c names no key (its guard
// refuses every key then, so it writes none). This is how a Derived batch
// finds the keys a user's script built (derived.go): at the cost of the
// keys written, where a SCAN of the run's namespace walks the whole
// keyspace of a shared Redis.
func WrittenKey(c *sim.Call, prefix string) (key string, ok bool) {
	for i, k := range c.Keys {
		if c.IsKey(i) {
			return prefix + k + writtenSuffix, true
		}
	}
	return "", false
}

// keyGuardPrefix is put before a user's script on every backend, on the
// script's first line (line numbers stay). See the comment at the top of
// this file for what it does. The command table is one string (" get=1
// set=1 ..."), searched per command: a Lua table of it would be built
// again at every call. A refusal is raised as a string at the level of the
// script's own call, so that its position is the script's line, not the
// guard's (its first): redis-server's error handler and gopher-lua both
// put it before the text ("user_script:7: lockstep: key guard: ..."),
// where sim.ScriptError reads the line from. That level is 2 in Lua 5.1
// (redis-server) and 3 in gopher-lua, which counts the function that
// calls error as level 2 (the embedded Redis: a miniredis).
//
// With record (a Derived batch's call, see WrittenKey) the guard also
// notes every key a writing command names that is not one of KEYS in the
// call's written set (WrittenKey), once per key and run of the script.
//
// With clock (redis-server 7.0 or later, a single server: vclock.go) the
// guard also runs the script on the step's clock: see vclock.go.
func keyGuardPrefix(embedded, record, clock bool) string {
	i := 0
	if embedded {
		i |= 1
	}
	if record {
		i |= 2
	}
	if clock && !embedded {
		i |= 4
	}
	return keyGuards[i]
}

// keyGuards are the guard's texts by keyGuardPrefix's index: for
// redis-server (level 2) or a miniredis (3), recording the keys written
// or not, on the step's clock or not.
var keyGuards = func() (out [8]string) {
	for i := range out {
		level := "2"
		if i&1 != 0 {
			level = "3"
		}
		out[i] = keyGuard(level, i&2 != 0, i&4 != 0)
	}
	return out
}()

// keyGuard returns the guard's first line, which raises its errors at
// level (see keyGuardPrefix), with record notes the keys written and with
// clock runs on the step's clock (vclock.go): lua/guard.lua, its lines
// joined with spaces.
func keyGuard(level string, record, clock bool) string {
	names := make([]string, 0, len(guardedCommands))
	for n := range guardedCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	var spec strings.Builder
	for _, n := range names {
		w := ""
		if writingCommands[n] {
			w = "+"
		}
		fmt.Fprintf(&spec, " %s=%c%s", n, guardedCommands[n], w)
	}
	// inner is the level of an error raised in a helper of a bounded
	// function, one call deeper than level.
	inner := "3"
	if level == "3" {
		inner = "4"
	}
	// Everything the guard uses is taken before the script runs: a script
	// may replace string.sub or KEYS[1] on a miniredis (and KEYS on
	// redis-server too), never the guard's own copies.
	// On a miniredis the script's string library (and cjson) is its own
	// copy, so its bounded functions replace the library's in place, which
	// bounds a method call on a string value too; on redis-server the
	// libraries are read-only, so cjson and cmsgpack are shadowed like
	// string, and a string value's methods are routed (luaindex.go).
	inPlace, shadowNames, shadowLibs := "false", ", cjson, cmsgpack", ", J, M"
	if level == "3" {
		inPlace, shadowNames, shadowLibs = "true", "", ""
	}
	// The server's real time in ms, whatever clock the step runs on:
	// heapBounded's check reads it (MaxScriptRunTime).
	shadowNames += ", " + nowName
	shadowLibs += ", now"
	return renderLua(guardTemplate, map[string]string{
		"Level": level, "Inner": inner, "Record": fmt.Sprint(record), "Clock": fmt.Sprint(clock),
		"InPlace": inPlace, "ShadowNames": shadowNames, "ShadowLibs": shadowLibs,
		"Spec": spec.String(), "Values": valuesMarker,
		"Copying": strings.Join(copyingCommands, " "), "Elements": strings.Join(elementCommands, " "),
		"WrittenSuffix": writtenSuffix, "WrittenTTLMS": fmt.Sprint(writtenTTL.Milliseconds()),
		"ClockSuffix": clockSuffix, "ClockMoved": clockMovedMarker,
		"KeyGuard": keyGuardMarker, "CompileRefused": compileRefused,
		"WriteOverhead": fmt.Sprint(writeOverhead), "ElementOverhead": fmt.Sprint(elementOverhead),
		"HLLBytes": fmt.Sprint(hllBytes), "MaxWrite": fmt.Sprint(MaxScriptWriteBytes),
		"MaxMade": maxMade, "MaxMadeTotal": maxMadeTotal,
		"PatternWorkTotal": patternWorkTotal, "PatternWorkLog": patternWorkLog,
		"RepStopped": repStoppedMarker, "ConcatStopped": concatStoppedMarker, "PatternStopped": patternStoppedMarker,
		"SortStopped": sortStoppedMarker, "GsubStopped": gsubStoppedMarker, "FormatStopped": formatStoppedMarker,
		"EncodeStopped": encodeStoppedMarker, "MadeStopped": madeStoppedMarker, "WritesStopped": writesStoppedMarker,
	})
}

// guardText is the key guard's Lua (keyGuard), a text/template whose
// substitutions the file's opening comment lists.
//
//go:embed lua/guard.lua
var guardText string

// guardTemplate is guardText parsed; a substitution keyGuard does not
// fill is an error (missingkey=error), so a panic at start.
var guardTemplate = template.Must(template.New("guard.lua").Option("missingkey=error").Parse(guardText))

// renderLua returns t filled with values, its lines joined with spaces
// (a prelude goes on the script's first line, so that the script's line
// numbers stay) and its final newline dropped. It panics on an error of
// t: the templates are the package's own, so that is a bug, caught by
// every test that runs a user's script.
func renderLua(t *template.Template, values map[string]string) string {
	var b strings.Builder
	if err := t.Execute(&b, values); err != nil {
		panic(fmt.Sprintf("backend: lua template %s: %v", t.Name(), err))
	}
	return strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\n", " ")
}

// valuesMarker stands in the guard's text for the Lua table of the KEYS
// positions that hold a value, not a key (guardValues).
const valuesMarker = "{--[[values]]}"

// guardValues is the Lua table of c's KEYS positions that hold a value
// (sim.Call.KeyValues: an owner id a variant file passes in KEYS, issue
// 33 item 3), such as "{[2]=true}". The guard does not count those as the
// script's own keys: the owner id is not under the run's namespace, so a
// write to it would land outside Lockstep's keys on a real Redis and stay
// there (a fresh-eyes review of issue 33).
func guardValues(c *sim.Call) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range c.Keys {
		if !c.IsKey(i) {
			fmt.Fprintf(&b, "[%d]=true,", i+1)
		}
	}
	b.WriteString("}")
	return b.String()
}

// ScriptSource is the text a store sends for c's script: a built-in script
// as it is (sim.Script.RunSource); a user's script (Custom) with the key
// guard (keyGuardPrefix, told which of c's KEYS are values) before it, and
// on a miniredis (embedded true: the embedded backend, its pairs and
// nodes, the Lua sandbox, a search's own miniredis) Redis's environment
// (redisEnvPrefix) before that. A script's calls all pass the same kinds
// of KEYS (its variant file's keys list), so its text is the same for each.
//
// record (a Derived batch: sim.Batch.Derived) makes the guard note the
// keys the script writes outside its KEYS in the Set named by WrittenKey,
// which the caller reads and deletes after the call.
//
// clock (a real Redis of version 7.0 or later, a single server: vclock.go)
// runs the script on the step's clock, which the caller sets first.
//
// On redis-server (embedded false) every concatenation is checked against
// MaxScriptHeap (heapBounded), the check defined on the guard's line.
func ScriptSource(c *sim.Call, embedded, record, clock bool) string {
	sc := c.Script
	if !sc.Custom {
		return sc.RunSource()
	}
	guard := strings.Replace(keyGuardPrefix(embedded, record, clock), valuesMarker, guardValues(c), 1)
	if embedded {
		return redisEnvPrefix + guard + plainCallReturns(sc.RunSource())
	}
	routed, index, ok := routeStrings(sc.RunSource())
	if !ok {
		return guard + unroutable
	}
	src, heap := heapBounded(routed)
	return guard + heap + index + src
}

// unroutable is what runs on redis-server in place of a user's script that
// gopher-lua parses and routeStrings could not route: an error, never the
// script with its string values' methods unbounded.
const unroutable = "error('lockstep: key guard: the script could not be given its bounds, so it was not run')"

// clockedBuiltin returns the text of c's built-in script run on the step's
// clock on redis-server (see vclock.go): the guard's line, recording
// nothing, before the script's own text.
func clockedBuiltin(c *sim.Call) string {
	return strings.Replace(keyGuardPrefix(false, false, true), valuesMarker, guardValues(c), 1) + c.Script.RunSource()
}

// KeyGuardRefused reports whether errText, a script's error reply, is the
// key guard's refusal of a command.
func KeyGuardRefused(errText string) bool { return strings.Contains(errText, keyGuardMarker) }

// guardReplyAsRun returns r, a script's reply on a store whose keys carry
// prefix (the run's namespace on a shared Redis), with that namespace taken
// out of the key a key-guard refusal names: the run's keys are named as the
// lesson names them, so the refusal reads the same on every backend (the
// embedded Redis has no prefix; a fresh review of issue 33 found
// "lockstep:{run-…}:lock:order:42:lockstep:written" on redis-server and
// "lock:order:42:lockstep:written" on the embedded one). Another run's
// key keeps its namespace, and every other reply is returned as it is. A
// refusal a script caught (redis.pcall) and returned in a table is an
// element of an array reply: it is named the same way.
func guardReplyAsRun(r sim.Reply, prefix string) sim.Reply {
	switch {
	case prefix == "":
	case r.Kind == sim.ReplyError && KeyGuardRefused(r.Str):
		r.Str = strings.ReplaceAll(r.Str, " on key '"+prefix, " on key '")
	case r.Kind == sim.ReplyArray:
		elems := make([]sim.Reply, len(r.Elems))
		for i, e := range r.Elems {
			elems[i] = guardReplyAsRun(e, prefix)
		}
		r.Elems = elems
	}
	return r
}

// guardStopped reports whether errText, a script's error reply, is a
// refusal or a bound of the key guard or of Redis's environment.
func guardStopped(errText string) bool {
	for _, m := range []string{keyGuardMarker, repStoppedMarker, concatStoppedMarker, patternStoppedMarker, heapStoppedMarker,
		gsubStoppedMarker, formatStoppedMarker, encodeStoppedMarker, madeStoppedMarker, writesStoppedMarker, timeStoppedMarker, sortStoppedMarker} {
		if strings.Contains(errText, m) {
			return true
		}
	}
	return false
}

// MaxScriptWriteBytes bounds what one call of a user's script may write
// through redis.call and redis.pcall, in bytes, on every backend: the
// arguments of every writing command (its keys and values, less the
// script's own KEYS entry a key or value starts with, which differs between
// backends by the run's namespace, so that a script's count is the same on
// each) and
// writeOverhead for each, elementOverhead for each argument after the key
// of a command that adds fields or elements, SETRANGE's offset and SETBIT's offset over 8 (the
// bytes Redis makes to reach them), and a HyperLogLog's 12 KiB for PFADD.
// Without it one `SETRANGE k 536870911 x` made 512 MB in Redis (or in the
// embedded server's Go heap), and APPEND, SET or RPUSH in a loop grew it by
// gigabytes within the script's turns (a fresh-eyes attack on issue 37). A
// lock writes a few short keys: 1 MiB is thousands of times that. Over it
// the call fails (writesStoppedMarker) at the script's line, naming the
// command and the bound. Each call of the script has its own count.
const MaxScriptWriteBytes = 1 << 20

// writeOverhead is what each writing command is charged besides its
// arguments: about what Redis keeps for a key or an element (so a loop of
// many tiny writes counts too).
const writeOverhead = 64

// elementOverhead is what a command that adds fields, members or
// elements (elementCommands) is charged besides writeOverhead for each
// argument after its key: Redis keeps each entry with some bytes of its
// own, and a frame draws each field (a fresh-eyes re-check of issue 37:
// one HSET of many one-byte fields was charged as one key).
const elementOverhead = 16

// elementCommands are the writing commands whose arguments after the key
// are each a field, member or element (or its value or score).
var elementCommands = []string{"hset", "hmset", "hsetnx", "sadd", "zadd", "rpush", "lpush", "rpushx", "lpushx", "linsert", "xadd", "geoadd", "mset", "msetnx"}

// hllBytes is a dense HyperLogLog's size, what one PFADD may make.
const hllBytes = 12304

// copyingCommands are the guarded commands that copy what other keys hold
// into a key: what they write is not in their arguments, so a user's
// script may not call them (its writes could not be bounded:
// MaxScriptWriteBytes). A lock never needs them.
var copyingCommands = []string{"sunionstore", "sinterstore", "sdiffstore", "zunionstore", "zinterstore", "zdiffstore", "zrangestore"}

// The starts of the errors of the guard's other bounds: a string.gsub or
// string.format whose result could pass MaxMadeBytes, a cjson.encode or
// cmsgpack.pack that could, all the making of one call past
// MaxScriptMadeBytes, and writes past MaxScriptWriteBytes.
const (
	gsubStoppedMarker   = "lockstep: string.gsub"
	formatStoppedMarker = "lockstep: string.format"
	encodeStoppedMarker = "lockstep: encode:"
	madeStoppedMarker   = "lockstep: made:"
	writesStoppedMarker = "lockstep: writes:"
)

// MaxScriptMadeBytes bounds the bytes one call of a user's script makes in
// all with string.rep, table.concat, string.format, string.gsub,
// cjson.encode and cmsgpack.pack, each of them bounded by MaxMadeBytes a
// call, and string.upper, lower, reverse and sub (a copy of their string,
// up to MaxScriptHeap): 16 MiB (MaxScriptHeap). Each of them runs in one C call, and a
// loop of them after a write could hold redis-server unkillable: the turn
// count (100,000 turns) times 64 KiB is 6.5 GB of copying.
const MaxScriptMadeBytes = MaxScriptHeap

// maxMadeTotal and patternWorkTotal are MaxScriptMadeBytes and
// MaxPatternWork as the guard's Lua text writes them: the pattern work of
// one call of a script in all is bounded by MaxPatternWork as well (a loop
// of matches each under the bound ran as long as the bound times the
// turns).
var (
	maxMadeTotal     = fmt.Sprint(MaxScriptMadeBytes)
	patternWorkTotal = fmt.Sprint(int64(MaxPatternWork))
)
