package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
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
	// DialTimeout bounds connecting to a real Redis and its first PING;
	// 0 means DefaultDialTimeout (3 s).
	DialTimeout time.Duration
}

// Info describes a backend for people (the player's badge, the CLI).
type Info struct {
	Embedded bool   `json:"embedded"`
	Addr     string `json:"addr,omitempty"`    // real: host:port
	Version  string `json:"version,omitempty"` // real: redis_version from INFO
}

// String is "embedded Redis (miniredis)" or "Redis 7.0.15 at 127.0.0.1:6379".
func (i Info) String() string {
	if i.Embedded {
		return "embedded Redis (miniredis)"
	}
	return fmt.Sprintf("Redis %s at %s", i.Version, i.Addr)
}

// Backend opens a Store per run.
type Backend struct {
	info   Info
	client *redis.Client // real only; shared by every run's Store
}

// ErrUnreachable is wrapped by Open's error when a real Redis cannot be
// reached within the dial timeout.
var ErrUnreachable = errors.New("backend: redis unreachable")

// Open returns the backend cfg selects. For a real Redis it connects and
// checks the server (PING, then INFO server for the version) within
// cfg.DialTimeout, failing with an error that wraps ErrUnreachable and names
// the address.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	if cfg.URL == "" {
		return &Backend{info: Info{Embedded: true}}, nil
	}
	opt, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("backend: redis URL %q: %w", cfg.URL, err)
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	opt.Protocol = 2
	opt.DialTimeout = timeout
	opt.MaxRetries = 0
	opt.DialerRetries = 1
	quietOnce.Do(func() { redis.SetLogger(quietLogger{}) })
	opt.DisableIdentity = true
	client := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("%w: cannot reach Redis at %s within %s: %w", ErrUnreachable, opt.Addr, timeout, err)
	}
	info, err := client.Info(ctx, "server").Result()
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("backend: INFO server at %s: %w", opt.Addr, err)
	}
	version := infoField(info, "redis_version")
	return &Backend{info: Info{Addr: opt.Addr, Version: version}, client: client}, nil
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
// "lockstep:{run-<12 hex>}:" on the shared connection pool.
func (b *Backend) NewStore() (*Store, error) {
	if b.info.Embedded {
		m := miniredis.NewMiniRedis()
		client := redis.NewClient(&redis.Options{
			Addr:            "miniredis",
			Protocol:        2,
			PoolSize:        2,
			DisableIdentity: true,
			Dialer: func(context.Context, string, string) (net.Conn, error) {
				return m.Dial()
			},
		})
		return &Store{client: client, advance: m.FastForward, names: map[string]bool{},
			closeFn: func() { client.Close(); m.Close() }}, nil
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("backend: run id: %w", err)
	}
	prefix := KeyNamespace + "{run-" + hex.EncodeToString(id[:]) + "}:"
	return &Store{client: b.client, prefix: prefix, restore: true, names: map[string]bool{}}, nil
}

// Close releases the backend's connections.
func (b *Backend) Close() error {
	if b.client != nil {
		return b.client.Close()
	}
	return nil
}
