package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"lockstep/sim"
)

// DefaultDialTimeout bounds how long Open waits for a real Redis.
const DefaultDialTimeout = 3 * time.Second

// KeyNamespace starts every key Lockstep writes on a real Redis.
const KeyNamespace = "lockstep:"

// Config selects and configures a backend.
type Config struct {
	// URL is a redis:// (or rediss://) URL of a real Redis, as go-redis's
	// ParseURL reads it. Empty selects the embedded miniredis.
	URL string
	// A redis:// URL names one server, or one node of a Redis Cluster, which
	// is enough to find the rest; a list of seeds is added as go-redis's
	// ParseClusterURL reads one: redis://HOST:PORT?addr=HOST:PORT&addr=...
	// Open asks the server whether it is a cluster node (CLUSTER INFO).
	// DialTimeout bounds connecting to a real Redis and its first PING;
	// 0 means DefaultDialTimeout (3 s).
	DialTimeout time.Duration
	// CAFile is a PEM file of the certificate authorities to trust for a
	// rediss:// URL (flag -redis-ca), instead of the system's.
	CAFile string
	// DeleteRetry is the first wait before Lockstep tries again to delete
	// the keys of a run that ended while Redis could not be reached; it
	// doubles up to a minute. 0 means DefaultDeleteRetry (1 s).
	DeleteRetry time.Duration
	// MaxPairs bounds the primary+replica pairs of redis-server processes
	// that runs of lessons with a replica start at once; the nodes of a
	// run of a lesson with nodes (Redlock's) take one place too. A run's
	// first step waits for a free place until its context ends. 0 means
	// DefaultMaxPairs (4).
	MaxPairs int
	// RedisServer is the redis-server program that a run of a lesson with a
	// replica (`replica: true`) starts twice, as a private primary and
	// replica, when URL is set: one server given by URL cannot fail over.
	// Empty means "redis-server" looked up on PATH, and when it is not
	// there such runs use an embedded pair instead. The embedded backend
	// (URL empty) always uses an embedded pair.
	RedisServer string
	// AllowCustomScripts lets the scripts of a user's variant file
	// (sim.Script.Custom) run on the real Redis at URL (flag
	// -allow-custom-scripts): such a script may run long and block that
	// server for every client. The embedded backend always runs them, on a
	// server of the run's own.
	AllowCustomScripts bool
	// ScriptTimeLimit bounds a step that calls a user's script on a real
	// Redis with AllowCustomScripts (see the constant ScriptTimeLimit);
	// 0 means that constant.
	ScriptTimeLimit time.Duration
	// RunWriteBytes bounds what a user's scripts may write over one run,
	// in bytes, as MaxRunWriteBytes counts it (RunWritesError); 0 means
	// MaxRunWriteBytes (2 MiB). Tests set less to reach the bound with
	// fewer writes.
	RunWriteBytes int64
	// ScriptTimePerAddr bounds the time one client address's steps of a
	// user's script may take on a real Redis with AllowCustomScripts within
	// a minute (flag -script-time-per-addr); over it they are refused
	// (ScriptTimeError), and an address runs one such step at once. 0
	// means DefaultScriptTimePerAddr (3 s); negative, no bound of its own.
	// It is cut to a quarter of ScriptTimeTotal when that is smaller.
	ScriptTimePerAddr time.Duration
	// ScriptTimeTotal bounds the time the steps of users' scripts from all
	// client addresses together may take on a real Redis with
	// AllowCustomScripts within a minute (flag -script-time-total), so
	// that many addresses do not multiply ScriptTimePerAddr; over it they
	// are refused (ScriptTimeError with Server set). 0 means
	// DefaultScriptTimeTotal (20 s); negative, no bound.
	ScriptTimeTotal time.Duration
}

// Info describes a backend, or what one run's Store runs on, for people (the
// player's badge, the CLI).
type Info struct {
	Embedded bool   `json:"embedded"`
	Addr     string `json:"addr,omitempty"`    // real: host:port (a started pair: the primary's)
	Version  string `json:"version,omitempty"` // real: redis_version from INFO ("" when INFO is refused)
	// Cluster is set on a Redis Cluster; TLS on a rediss:// connection.
	Cluster bool `json:"cluster,omitempty"`
	TLS     bool `json:"tls,omitempty"`
	// Pair is set on the Store of a run with a replica: PairEmbedded or
	// PairStarted; "" for a single server.
	Pair Pair `json:"pair,omitempty"`
	// ReplicaAddr is the host:port of a started pair's replica.
	ReplicaAddr string `json:"replica_addr,omitempty"`
	// NotOn is the host:port of the Redis given by URL that a run with a
	// replica does not use, since a single server cannot fail over.
	NotOn string `json:"not_on,omitempty"`
	// Nodes is set on the Store of a run with nodes (Redlock's independent
	// primaries): how many it runs on, N miniredis (Embedded) or N
	// redis-server processes it started (Addr is node 1's).
	Nodes int `json:"nodes,omitempty"`
}

// Pair is how a run with a replica gets its primary and replica.
type Pair string

// The kinds of pair.
const (
	// PairEmbedded is two miniredis, primary and replica, of the run's own.
	PairEmbedded Pair = "embedded"
	// PairStarted is two redis-server processes, primary and replica with
	// real replication, that Lockstep started for the run.
	PairStarted Pair = "started"
)

// Message returns i as a message of the catalogue, for the CLI's header and
// a local player's badge in the reader's language (a fresh review of issue
// 39: `run --lang zh-CN` named a real Redis in English): an embedded Redis,
// pair or nodes (backend.embedded, backend.embedded-pair,
// backend.embedded-nodes), a pair or nodes Lockstep started
// (backend.started-pair, backend.started-nodes), each with "-not-on" when
// a URL was given that the run does not use, or a Redis given by URL
// (backend-redis: its version, address, cluster and TLS).
func (i Info) Message() sim.Msg {
	switch {
	case i.Nodes > 0 && i.Embedded && i.NotOn != "":
		return sim.M("backend.embedded-nodes-not-on", "Nodes", i.Nodes, "NotOn", i.NotOn)
	case i.Nodes > 0 && i.Embedded:
		return sim.M("backend.embedded-nodes", "Nodes", i.Nodes)
	case i.Nodes > 0 && i.NotOn != "":
		return sim.M("backend.started-nodes-not-on", "Nodes", i.Nodes, "Version", i.Version, "Addr", i.Addr, "NotOn", i.NotOn)
	case i.Nodes > 0:
		return sim.M("backend.started-nodes", "Nodes", i.Nodes, "Version", i.Version, "Addr", i.Addr)
	case i.Pair == PairEmbedded && i.NotOn != "":
		return sim.M("backend.embedded-pair-not-on", "NotOn", i.NotOn)
	case i.Pair == PairEmbedded:
		return sim.M("backend.embedded-pair")
	case i.Pair == PairStarted && i.NotOn != "":
		return sim.M("backend.started-pair-not-on", "Version", i.Version, "Addr", i.Addr, "Replica", i.ReplicaAddr, "NotOn", i.NotOn)
	case i.Pair == PairStarted:
		return sim.M("backend.started-pair", "Version", i.Version, "Addr", i.Addr, "Replica", i.ReplicaAddr)
	case i.Embedded:
		return sim.M("backend.embedded")
	}
	return sim.M("backend-redis", "Version", i.Version, "Addr", i.Addr, "Cluster", i.Cluster, "TLS", i.TLS)
}

// String is "embedded Redis (miniredis)", "Redis 7.0.15 at 127.0.0.1:6379"
// (with " (cluster, TLS)" after it on a cluster over TLS; without the
// version when the server refused INFO),
// for a run with nodes "3 embedded Redis nodes (miniredis, independent
// primaries)" or "3 private redis-server nodes (Redis 7.0.15, independent
// primaries, node 1 127.0.0.1:41001)",
// or for a run with a replica "embedded Redis pair (miniredis primary +
// replica)" or "private primary+replica redis-server pair (Redis 7.0.15,
// primary 127.0.0.1:41001, replica 127.0.0.1:41002)", then, when a URL was
// given, which Redis it does not run on and why. Message says the same in
// the catalogue's words.
func (i Info) String() string {
	var s string
	switch {
	case i.Nodes > 0 && i.Embedded:
		s = fmt.Sprintf("%d embedded Redis nodes (miniredis, independent primaries)", i.Nodes)
		if i.NotOn != "" {
			s += ", not the Redis at " + i.NotOn + ": a single Redis is not several nodes, and no redis-server is on PATH to start them"
		}
		return s
	case i.Nodes > 0:
		s = fmt.Sprintf("%d private redis-server nodes (Redis %s, independent primaries, node 1 %s)", i.Nodes, i.Version, i.Addr)
		if i.NotOn != "" {
			s += ", not the Redis at " + i.NotOn + ": a single Redis is not several nodes"
		}
		return s
	case i.Pair == PairEmbedded:
		s = "embedded Redis pair (miniredis primary + replica)"
		if i.NotOn != "" {
			s += ", not the Redis at " + i.NotOn + ": a single Redis cannot fail over, and no redis-server is on PATH to start a pair"
		}
		return s
	case i.Pair == PairStarted:
		s = fmt.Sprintf("private primary+replica redis-server pair (Redis %s, primary %s, replica %s)", i.Version, i.Addr, i.ReplicaAddr)
		if i.NotOn != "" {
			s += ", not the Redis at " + i.NotOn + ": a single Redis cannot fail over"
		}
		return s
	case i.Embedded:
		return "embedded Redis (miniredis)"
	}
	s = "Redis"
	if i.Version != "" {
		s += " " + i.Version
	}
	s += " at " + i.Addr
	var kind []string
	if i.Cluster {
		kind = append(kind, "cluster")
	}
	if i.TLS {
		kind = append(kind, "TLS")
	}
	if len(kind) > 0 {
		s += " (" + strings.Join(kind, ", ") + ")"
	}
	return s
}

// Backend opens a Store per run.
type Backend struct {
	cfg    Config
	info   Info
	client redis.UniversalClient // real only: a *redis.Client or *redis.ClusterClient, shared by every run's Store
	user   string                // real only: the ACL user connected as, for messages
	// pairSlots holds one token per started pair running (real only),
	// up to Config.MaxPairs.
	pairSlots chan struct{}
	// cleanup retries deleting the keys of runs that ended while Redis
	// could not be reached (cleanup.go).
	cleanup cleaner
	// overrun stops a user's script that ran past scriptLimit and says
	// how (see ScriptOverrunError.Killed): on a real Redis with
	// AllowCustomScripts killScript, in the Lua sandbox the kill of its
	// process; nil where user's scripts are not bounded in time (the
	// in-process embedded Redis, used by the CLI for its own user's files).
	overrun     func() string
	scriptLimit time.Duration
	// sandbox is set on the backend of a Lua sandbox's process: a
	// miniredis reached over loopback as a real Redis is, whose Info says
	// embedded.
	sandbox bool
	// lost reports whether the sandbox's process has ended (nil elsewhere):
	// a step that failed on a lost process ran into its memory bound.
	lost func() bool
	// spawn starts one more server in the sandbox's process and returns a
	// client of it and its release, which shuts it down (nil elsewhere):
	// the nodes, primary and replica of a sandboxed run with several
	// servers (nodes.go, sandboxpair.go).
	spawn func(ctx context.Context) (*redis.Client, func(), error)
	// ended says why the sandbox's process ended (endKilled, endMemory),
	// "" while it runs or for another end; nil elsewhere.
	ended func() string
	// reopen returns the backend of the sandbox's process, started again
	// if it ended (Sandbox.Backend); nil elsewhere.
	reopen func(ctx context.Context) (*Backend, error)
	// kills counts the sandbox's stops per client address (shared by the
	// sandbox's processes, sandboxshare.go); nil elsewhere.
	kills *killLedger
	// scriptTime charges each client address the time its steps of a
	// user's script take on a real Redis with AllowCustomScripts
	// (scripttime.go); nil elsewhere.
	scriptTime *timeLedger
}

// quietLogger drops go-redis's own log lines (pool dial retries): Lockstep
// reports every failure as an error that names the address instead.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// Info describes the backend.
func (b *Backend) Info() Info { return b.info }

// NewStore returns a Store for one run: on the embedded backend a fresh
// miniredis of its own, on a real one a new key prefix
// "lockstep:{run-<12 hex>}:" on the shared connection pool. A run of a
// lesson with a replica gets its primary and replica at its first batch
// (see Store.Exec), and the Store's Info then names them.
func (b *Backend) NewStore() (*Store, error) {
	if b.info.Embedded && !b.sandbox {
		m, client := NewMiniredis()
		// Start the run's server and its connection now, with the run,
		// rather than inside the run's first step: miniredis registers its
		// ~200 commands when its first connection is made. The pipe is in
		// memory, so there is nothing to wait for. A transaction, as every
		// batch is one: go-redis sends those on its pipeline pool, and a
		// plain PING would open a second connection on the main pool.
		if _, err := client.TxPipelined(context.Background(), func(p redis.Pipeliner) error {
			p.Ping(context.Background())
			return nil
		}); err != nil {
			client.Close()
			m.Close()
			return nil, fmt.Errorf("backend: start embedded run: %w", err)
		}
		return &Store{client: client, mini: m, advance: m.FastForward, names: map[string]bool{}, cached: map[*sim.Script]bool{},
			be: b, info: b.info, closeFn: func() { client.Close(); m.Close() }}, nil
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("backend: run id: %w", err)
	}
	prefix := KeyNamespace + "{run-" + hex.EncodeToString(id[:]) + "}:"
	return &Store{client: b.client, prefix: prefix, restore: true, names: map[string]bool{}, be: b, info: b.info}, nil
}

// noMaintNotifications turns off go-redis's maintenance notifications
// (a RESP3 feature Lockstep, on RESP2, never uses). With them on, NewClient
// classifies Addr first, and for a host name ("miniredis") that is a DNS
// lookup: a stall of up to 2 s on every new run when DNS is slow, measured
// by `make bench` (docs/performance.md).
func noMaintNotifications() *maintnotifications.Config {
	return &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}

// embeddedBufferSize sizes the read and write buffers of an embedded run's
// connections, in bytes.
const embeddedBufferSize = 4096

// NewMiniredis returns a fresh miniredis and a go-redis client that reaches
// it through a buffered in-memory connection (memPipe), with no TCP
// listener: an embedded run's Redis. The caller closes both.
func NewMiniredis() (*miniredis.Miniredis, *redis.Client) {
	m := miniredis.NewMiniRedis()
	// Miniredis.Dial starts a server with no listener; its own connection
	// (an unbuffered net.Pipe, see memconn.go) is closed at once, and every
	// connection of the run is served on a memPipe instead.
	if c, err := m.Dial(); err == nil {
		c.Close()
	}
	srv := m.Server()
	client := redis.NewClient(&redis.Options{
		Addr:                     "miniredis",
		Protocol:                 2,
		PoolSize:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: noMaintNotifications(),
		// An in-process pipe has no network to time out on; under load (1,000
		// sessions on 2 cores, `make bench`) go-redis's default 3 s read
		// timeout failed steps that were only queued for the CPU. The
		// caller's context bounds a step instead (the player's: 10 s).
		ReadTimeout:           -1,
		WriteTimeout:          -1,
		ContextTimeoutEnabled: true,
		// A run's commands and replies are a few hundred bytes (a script's
		// first call carries its source, ~2 KB). go-redis's default buffers,
		// 32 KiB per connection and 128 KiB on the pipeline pool that
		// MULTI/EXEC uses, were allocated and cleared for every run, since
		// every run has its own miniredis and connections: most of a
		// lesson's first step, and of the memory of an idle session.
		ReadBufferSize:          embeddedBufferSize,
		WriteBufferSize:         embeddedBufferSize,
		PipelineReadBufferSize:  embeddedBufferSize,
		PipelineWriteBufferSize: embeddedBufferSize,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			client, server := memPipe()
			srv.ServeConn(server)
			return client, nil
		},
	})
	return m, client
}

// Close releases the backend's connections. On a real Redis it first tries
// once more (for up to 3 s) to delete the keys of runs that ended while
// Redis could not be reached, and returns an error naming those left.
func (b *Backend) Close() error {
	if b.client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := b.closeCleanup(ctx)
	if cerr := b.client.Close(); err == nil {
		err = cerr
	}
	return err
}
