package proxy

import (
	"bytes"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Redacted replaces an argument the trace must not keep: credentials
// everywhere (AUTH's and HELLO AUTH's, ACL SETUSER's rules, CONFIG SET's
// values: command.traceArgs), and the values written to or read from
// keys that are not locks.
const Redacted = "(redacted)"

// command is what the proxy learns from one client command before sending
// it upstream: its name, the keys it names, and for a script its body.
type command struct {
	name   string   // upper case; "CLIENT SETNAME" style for CLIENT subcommands
	args   []string // as sent, copied
	keys   []string
	script *Script // EVAL, EVALSHA (when the body is known), SCRIPT LOAD
	sha    string  // EVALSHA's digest
	// subscribe marks the pub/sub commands whose confirmations arrive as
	// pushes, one per channel, instead of one reply.
	subscribe bool
}

// keyless are commands that name no key (connection, server, transaction
// and pub/sub commands).
var keyless = map[string]bool{
	"AUTH": true, "HELLO": true, "PING": true, "ECHO": true, "SELECT": true, "CLIENT": true, "QUIT": true,
	"RESET": true, "INFO": true, "TIME": true, "DBSIZE": true, "COMMAND": true, "CONFIG": true, "SCRIPT": true,
	"FUNCTION": true, "MULTI": true, "EXEC": true, "DISCARD": true, "UNWATCH": true, "PUBLISH": true,
	"SPUBLISH": true, "SUBSCRIBE": true, "UNSUBSCRIBE": true, "PSUBSCRIBE": true, "PUNSUBSCRIBE": true,
	"SSUBSCRIBE": true, "SUNSUBSCRIBE": true, "PUBSUB": true, "FLUSHALL": true, "FLUSHDB": true, "KEYS": true,
	"SCAN": true, "WAIT": true, "READONLY": true, "READWRITE": true, "RANDOMKEY": true, "ROLE": true,
	"LASTSAVE": true, "MEMORY": true, "LATENCY": true, "SLOWLOG": true, "CLUSTER": true, "ACL": true,
}

// allKeys are commands every argument of which is a key.
var allKeys = map[string]bool{"DEL": true, "UNLINK": true, "EXISTS": true, "MGET": true, "WATCH": true, "TOUCH": true}

var subscribeFamily = map[string]bool{
	"SUBSCRIBE": true, "UNSUBSCRIBE": true, "PSUBSCRIBE": true, "PUNSUBSCRIBE": true, "SSUBSCRIBE": true, "SUNSUBSCRIBE": true,
}

// scriptCommands take numkeys at argument 2 and the keys after it.
var scriptCommands = map[string]bool{"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true, "FCALL": true, "FCALL_RO": true}

// parseCommand reads args (at least one) into a command; scripts resolves
// an EVALSHA digest to a body the proxy saw before.
// readOnLock are the commands that read keys and write none: on a lock
// key they are sent without a read after them (session.forward), and the
// analyzer keeps its view of the key where their reply agrees with it
// (analyzer.unchanged, replyAgrees).
var readOnLock = map[string]bool{
	"GET": true, "EXISTS": true, "PTTL": true, "TTL": true, "TYPE": true, "STRLEN": true, "GETRANGE": true,
	"PEXPIRETIME": true, "EXPIRETIME": true, "HGET": true, "HMGET": true, "HGETALL": true, "HEXISTS": true,
	"HLEN": true, "HKEYS": true, "HVALS": true, "WATCH": true,
}

func parseCommand(raw [][]byte, scripts func(sha string) *Script) command {
	c := command{args: make([]string, len(raw))}
	for i, a := range raw {
		c.args[i] = string(a)
	}
	c.name = strings.ToUpper(c.args[0])
	args := c.args[1:]
	switch {
	case scriptCommands[c.name]:
		if len(args) >= 2 {
			if n, err := strconv.Atoi(args[1]); err == nil && n >= 0 && n <= len(args)-2 {
				c.keys = args[2 : 2+n]
			}
		}
		switch {
		case len(args) == 0:
		case c.name == "EVAL" || c.name == "EVAL_RO":
			c.script = newScript(args[0])
		case c.name == "EVALSHA" || c.name == "EVALSHA_RO":
			c.sha = strings.ToLower(args[0])
			c.script = scripts(c.sha)
		}
	case c.name == "SCRIPT" && len(args) >= 2 && strings.EqualFold(args[0], "LOAD"):
		c.name = "SCRIPT LOAD"
		c.script = newScript(args[1])
	case c.name == "CLIENT" && len(args) >= 1:
		c.name = "CLIENT " + strings.ToUpper(args[0])
	case subscribeFamily[c.name]:
		c.subscribe = true
	case keyless[c.name]:
	case allKeys[c.name]:
		c.keys = args
	case c.name == "MSET" || c.name == "MSETNX":
		for i := 0; i < len(args); i += 2 {
			c.keys = append(c.keys, args[i])
		}
	case len(args) > 0:
		c.keys = args[:1]
	}
	return c
}

// setNX reports whether c is a SET with NX (a lock acquire by a plain
// command, redsync's and redis-py's shape) and its PX/EX lease in ms (0
// when none).
func (c command) setNX() (nx bool, leaseMS int64) {
	if c.name != "SET" || len(c.args) < 3 {
		return false, 0
	}
	for i := 3; i < len(c.args); i++ {
		switch strings.ToUpper(c.args[i]) {
		case "NX":
			nx = true
		case "PX", "EX":
			if i+1 < len(c.args) {
				n, _ := strconv.ParseInt(c.args[i+1], 10, 64)
				if strings.EqualFold(c.args[i], "EX") {
					n *= 1000
				}
				leaseMS = n
			}
		}
	}
	return nx, leaseMS
}

// traceArgs returns the arguments the trace keeps: everything for a
// command on a lock key and for connection commands; credentials
// redacted always (AUTH's and HELLO AUTH's, ACL SETUSER's rules and ACL
// DRYRUN's command, CONFIG SET's values, all of MIGRATE's arguments,
// which may hold AUTH or AUTH2, and COMMAND GETKEYS's command); for
// other keys the key names only, the values replaced by Redacted. A
// script's body is code, not a value, and is kept; its ARGV only when it
// touches a lock. What it hides, an error reply must not repeat
// (replyShown).
func (c command) traceArgs(touchesLock bool) []string {
	out := append([]string(nil), c.args...)
	switch {
	case c.name == "AUTH":
		for i := 1; i < len(out); i++ {
			out[i] = Redacted
		}
		return out
	case c.name == "HELLO":
		for i := 1; i < len(out); i++ {
			if strings.EqualFold(out[i], "AUTH") {
				for j := i + 1; j < len(out) && j <= i+2; j++ {
					out[j] = Redacted
				}
			}
		}
		return out
	case c.name == "MIGRATE":
		return out[:1]
	case c.name == "CONFIG" && len(out) > 2 && strings.EqualFold(out[1], "SET"):
		for i := 3; i < len(out); i += 2 { // CONFIG SET name value [name value ...]
			out[i] = Redacted
		}
		return out
	case c.name == "ACL" && len(out) > 3 && (strings.EqualFold(out[1], "SETUSER") || strings.EqualFold(out[1], "DRYRUN")):
		for i := 3; i < len(out); i++ { // the user's rules (>password, #hash), or the command run as the user
			out[i] = Redacted
		}
		return out
	case c.name == "COMMAND" && len(out) > 2 && strings.HasPrefix(strings.ToUpper(out[1]), "GETKEYS"):
		for i := 3; i < len(out); i++ { // a command's arguments: its values
			out[i] = Redacted
		}
		return out
	case touchesLock:
		return out
	case scriptCommands[c.name]:
		for i := 3 + len(c.keys); i < len(out); i++ {
			out[i] = Redacted
		}
		return out
	case c.name == "PUBLISH" || c.name == "SPUBLISH":
		for i := 2; i < len(out); i++ {
			out[i] = Redacted
		}
		return out
	case keyless[c.name] || c.subscribe || strings.HasPrefix(c.name, "CLIENT ") || c.name == "SCRIPT LOAD":
		return out
	}
	for i := 1; i < len(out); i++ {
		if !slices.Contains(c.keys, out[i]) {
			out[i] = Redacted
		}
	}
	return out
}

// Script is a Lua script the proxy saw (an EVAL body or SCRIPT LOAD), with
// the lock shapes read from its text.
type Script struct {
	SHA  string `json:"sha"`
	Body string `json:"body"`
	// Acquire: it writes the key with SET ... NX, HINCRBY or HSET and
	// deletes nothing (Redisson's hincrby+pexpire, node-redlock's SET NX
	// PX, the seeds' scripts). Release: it deletes (DEL, UNLINK, HDEL)
	// a key. Renew: it only sets a TTL (PEXPIRE, EXPIRE) on a key.
	Acquire bool `json:"acquire,omitempty"`
	Release bool `json:"release,omitempty"`
	Renew   bool `json:"renew,omitempty"`
	// TTLOnKeys: it sets a TTL on a KEYS element (PEXPIRE, EXPIRE, SET
	// PX/EX), which marks its keys as lock suggestions.
	TTLOnKeys bool `json:"ttl_on_keys,omitempty"`
}

var (
	callPattern = regexp.MustCompile(`(?i)redis\.p?call\(\s*["'](\w+)["']\s*,\s*KEYS\[`)
	nxPattern   = regexp.MustCompile(`(?i)["']NX["']`)
	pxPattern   = regexp.MustCompile(`(?i)["'](PX|EX)["']`)
)

// newScript reads body's lock shapes.
func newScript(body string) *Script {
	sum := sha1.Sum([]byte(body))
	s := &Script{SHA: hex.EncodeToString(sum[:]), Body: body}
	calls := keyCalls(body)
	writes := calls["HINCRBY"] || calls["HSET"] || setIfAbsent(body, calls)
	ttl := calls["PEXPIRE"] || calls["EXPIRE"] || (calls["SET"] && pxPattern.MatchString(body))
	s.Release = calls["DEL"] || calls["UNLINK"] || calls["HDEL"]
	s.Acquire = writes && !s.Release
	s.Renew = ttl && !writes && !s.Release
	s.TTLOnKeys = ttl
	return s
}

// globs matches key names against the -locks patterns (path.Match syntax:
// `*` matches any run of characters but '/').
type globs []string

// parseGlobs splits a comma-separated -locks value (flag, as the user
// gives it, names it in the error); an invalid pattern is
// an error naming it.
func parseGlobs(s, flag string) (globs, error) {
	var g globs
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, errBadGlob{p, flag}
		}
		g = append(g, p)
	}
	return g, nil
}

type errBadGlob struct{ pattern, flag string }

func (e errBadGlob) Error() string {
	return "proxy: " + e.flag + " pattern " + strconv.Quote(e.pattern) + " is not a valid glob"
}

func (g globs) match(key string) bool {
	for _, p := range g {
		if ok, _ := path.Match(p, key); ok {
			return true
		}
	}
	return false
}

// plainNames are the commands plainCommand may find plain: sharable ones
// that run no script and name keys.
var plainNames = func() map[string]bool {
	m := map[string]bool{}
	for n := range sharable {
		if !scriptCommands[n] && !keyless[n] && n != "SCRIPT LOAD" {
			m[n] = true
		}
	}
	return m
}()

// isCluster reports whether args are a CLUSTER command.
func isCluster(args [][]byte) bool {
	return len(args) > 0 && len(args[0]) == len("CLUSTER") && strings.EqualFold(string(args[0]), "CLUSTER")
}

// refuseLua is the script that answers the error reply its ARGV[1].
//
//go:embed lua/refuse.lua
var refuseLua string

// clusterRefusal is what the proxy sends in place of a CLUSTER command of
// n arguments: a script that answers as a standalone redis-server (7.0)
// does, "ERR This instance has cluster support disabled" (with no
// subcommand, wrong number of arguments). The proxy serves one standalone
// Redis: CLUSTER SLOTS, NODES, SHARDS or INFO forwarded to the embedded
// upstream (miniredis answers them) gave its own address, and a cluster
// client (go-redis's ClusterClient) pointed at the proxy then sent its
// commands there, past the proxy, untraced. Answered by the upstream, the
// refusal keeps its place among the replies (after a MULTI, queued and
// answered at EXEC, as Redis does). It differs from Redis only in an
// unknown subcommand's answer (the same refusal) and where the client's
// user may not run EVAL (NOPERM).
func clusterRefusal(n int) []byte {
	msg := "ERR This instance has cluster support disabled"
	if n < 2 {
		msg = "ERR wrong number of arguments for 'cluster' command"
	}
	return encodeCommand([]string{"EVAL", refuseLua, "0", msg})
}

// plainCommand reports, without copying its arguments, whether args is a
// plain command: one of plainNames, not SET ... NX (which suggests a
// lock), naming at least one key and no lock key (as parseCommand finds
// its keys). The trace may skip such a command (ring.takePlain).
func (p *Proxy) plainCommand(args [][]byte) bool {
	if len(args) < 2 || len(args[0]) > 16 {
		return false
	}
	var up [16]byte
	name := up[:len(args[0])]
	for i, c := range args[0] {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		name[i] = c
	}
	if !plainNames[string(name)] {
		return false
	}
	keys := args[1:2]
	switch string(name) {
	case "SET":
		for _, a := range args[3:] {
			if bytes.EqualFold(a, []byte("NX")) {
				return false
			}
		}
	case "DEL", "UNLINK", "EXISTS", "MGET", "TOUCH":
		keys = args[1:]
	case "MSET", "MSETNX":
		for i := 1; i < len(args); i += 2 {
			if p.isLock(string(args[i])) {
				return false
			}
		}
		return true
	}
	for _, k := range keys {
		if p.isLock(string(k)) {
			return false
		}
	}
	return true
}
