package backend

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrUnreachable is wrapped by Open's error when a real Redis cannot be
// reached within the dial timeout.
var ErrUnreachable = errors.New("backend: redis unreachable")

// Open returns the backend cfg selects. For a real Redis it connects and
// checks the server within cfg.DialTimeout: PING (failing with an error that
// wraps ErrUnreachable and names the address), then CLUSTER INFO (a cluster
// node gets a cluster client that follows the cluster from there), then
// INFO server for the version, which is optional: a user the ACL denies INFO
// gets a backend whose Info has no version.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	if cfg.URL == "" {
		return &Backend{cfg: cfg, info: Info{Embedded: true}}, nil
	}
	opt, seeds, err := parseURL(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	quietOnce.Do(func() { redis.SetLogger(quietLogger{}) })
	single := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := single.Ping(ctx).Err(); err != nil {
		single.Close()
		var reply redis.Error
		if errors.As(err, &reply) {
			// Reached, but it refused: a wrong DB index, a password, ...
			return nil, fmt.Errorf("backend: Redis at %s refused the connection: %w", opt.Addr, err)
		}
		return nil, fmt.Errorf("%w: cannot reach Redis at %s within %s: %w", ErrUnreachable, opt.Addr, timeout, err)
	}
	user := opt.Username
	if user == "" {
		user = "default"
	}
	b := &Backend{cfg: cfg, user: user, info: Info{Addr: opt.Addr, TLS: opt.TLSConfig != nil}, cleanup: cleaner{stop: make(chan struct{})}}
	maxPairs := cfg.MaxPairs
	if maxPairs <= 0 {
		maxPairs = DefaultMaxPairs
	}
	b.pairSlots = make(chan struct{}, maxPairs)
	if cfg.AllowCustomScripts {
		b.overrun, b.scriptLimit = b.killScript, cfg.ScriptTimeLimit
		budget, total := cfg.ScriptTimePerAddr, cfg.ScriptTimeTotal
		if budget == 0 {
			budget = DefaultScriptTimePerAddr
		}
		if total == 0 {
			total = DefaultScriptTimeTotal
		}
		if budget > 0 || total > 0 {
			b.scriptTime = newTimeLedger(budget, total)
		}
	}
	cluster, err := isCluster(ctx, single)
	if err != nil {
		single.Close()
		return nil, fmt.Errorf("backend: CLUSTER INFO at %s: %w", opt.Addr, b.permission("CLUSTER", err))
	}
	b.client = single
	if cluster {
		single.Close()
		if opt.DB != 0 {
			return nil, fmt.Errorf("backend: Redis at %s is a cluster node, which has only database 0; the URL asks for database %d", opt.Addr, opt.DB)
		}
		cc := redis.NewClusterClient(clusterOptions(opt, seeds))
		if err := cc.Ping(ctx).Err(); err != nil {
			cc.Close()
			return nil, fmt.Errorf("backend: Redis Cluster at %s: %w", opt.Addr, err)
		}
		b.client, b.info.Cluster = cc, true
	}
	info, err := b.client.Info(ctx, "server").Result()
	switch {
	case err == nil:
		b.info.Version = infoField(info, "redis_version")
	case !isPermission(err):
		b.client.Close()
		return nil, fmt.Errorf("backend: INFO server at %s: %w", opt.Addr, err)
	}
	return b, nil
}

// parseURL reads cfg.URL (and cfg.CAFile) into the options of its first
// node, with Lockstep's settings, and the further seeds of a cluster
// (?addr=HOST:PORT parameters).
func parseURL(cfg Config) (*redis.Options, []string, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("backend: redis URL %q: %w", RedactURL(cfg.URL), urlProblem(err))
	}
	if !knownScheme(u.Scheme+"://") || u.Host == "" && u.Scheme != "unix" {
		// go-redis's errors for these quote the rest of the value, a
		// password with it (issue 37).
		return nil, nil, fmt.Errorf("backend: redis URL %s: want redis://[USER:PASSWORD@]HOST:PORT[/DB], rediss://… or unix://PATH", RedactURL(cfg.URL))
	}
	var opt *redis.Options
	var seeds []string
	if u.Query().Has("addr") {
		copt, err := redis.ParseClusterURL(cfg.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("backend: redis URL %q: %w", RedactURL(cfg.URL), urlProblem(err))
		}
		opt = &redis.Options{Addr: copt.Addrs[0], Username: copt.Username, Password: copt.Password, TLSConfig: copt.TLSConfig}
		seeds = copt.Addrs
	} else if opt, err = redis.ParseURL(cfg.URL); err != nil {
		return nil, nil, fmt.Errorf("backend: redis URL %q: %w", RedactURL(cfg.URL), urlProblem(err))
	}
	if cfg.CAFile != "" {
		if opt.TLSConfig == nil {
			return nil, nil, fmt.Errorf("backend: a CA file (%s) is for TLS, but the redis URL %q is not rediss://", cfg.CAFile, RedactURL(cfg.URL))
		}
		pool, err := loadCAs(cfg.CAFile)
		if err != nil {
			return nil, nil, err
		}
		opt.TLSConfig.RootCAs = pool
	}
	if opt.TLSConfig != nil && opt.TLSConfig.MinVersion == 0 {
		opt.TLSConfig.MinVersion = tls.VersionTLS12
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	opt.Protocol = 2
	opt.DialTimeout = timeout
	// Bound the first PING by ctx too: by default go-redis applies only its
	// own ReadTimeout to a server that accepts and never answers.
	opt.ContextTimeoutEnabled = true
	opt.ReadTimeout, opt.WriteTimeout = timeout, timeout
	opt.MaxRetries = 0
	opt.DialerRetries = 1
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = noMaintNotifications()
	return opt, seeds, nil
}

// loadCAs reads a PEM file of CA certificates.
func loadCAs(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("backend: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("backend: CA file %s holds no PEM certificate", file)
	}
	return pool, nil
}

// isCluster asks a server whether it is a Redis Cluster node. A server
// with cluster support off answers CLUSTER INFO with an error saying so.
func isCluster(ctx context.Context, c *redis.Client) (bool, error) {
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		if strings.Contains(err.Error(), "cluster support disabled") {
			return false, nil
		}
		return false, err
	}
	return strings.Contains(info, "cluster_enabled:1") || strings.Contains(info, "cluster_state:"), nil
}

// clusterOptions are the options of a cluster client that starts from opt's
// node and the further seeds: the same credentials, TLS and timeouts.
func clusterOptions(opt *redis.Options, seeds []string) *redis.ClusterOptions {
	addrs := seeds
	if len(addrs) == 0 {
		addrs = []string{opt.Addr}
	}
	return &redis.ClusterOptions{
		Addrs: addrs, Username: opt.Username, Password: opt.Password, TLSConfig: opt.TLSConfig, Protocol: 2,
		DialTimeout: opt.DialTimeout, ReadTimeout: opt.ReadTimeout, WriteTimeout: opt.WriteTimeout,
		ContextTimeoutEnabled: true, DialerRetries: 1, DisableIdentity: true,
		MaintNotificationsConfig: noMaintNotifications(),
		// Follow MOVED and ASK (a slot migrating while a run goes on) a few
		// times; a run's keys share one hash tag, so one slot.
		MaxRedirects: 3, MinRetryBackoff: 8 * time.Millisecond, MaxRetryBackoff: 64 * time.Millisecond,
	}
}

// DialOptions returns the go-redis options that cfg.URL (with cfg.CAFile)
// gives: address, credentials, database, TLS (at least TLS 1.2) and dial
// timeout, for a program that opens its own connections to the same Redis
// (package proxy's per-client upstream connections). It fails on a URL
// Open would fail on, and on a URL with cluster seeds (?addr=), which
// names a cluster.
func DialOptions(cfg Config) (*redis.Options, error) {
	opt, seeds, err := parseURL(cfg)
	if err != nil {
		return nil, err
	}
	if len(seeds) > 0 {
		return nil, fmt.Errorf("backend: redis URL %q names cluster seeds (addr=); a single node is needed here", cfg.URL)
	}
	return opt, nil
}
