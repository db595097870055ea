package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/tidwall/redcon"

	"lockstep/backend"
)

// ErrCluster is returned by Start for a Redis Cluster upstream.
var ErrCluster = errors.New("proxy: the upstream is a Redis Cluster; the proxy forwards to a single Redis (point -redis at one node outside a cluster, or leave -redis out for the embedded Redis)")

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	cfg     Config
	locks   globs
	started time.Time
	ln      net.Listener
	trace   *ring
	// inlineAwaited counts commands recorded whose inline reads are not
	// back yet (inlineRead.counted): SaveLesson waits for them.
	inlineAwaited atomic.Int64

	// upstream
	// mini is the embedded upstream, nil with RedisURL; RestartUpstream
	// replaces it, under miniMu, which is held wherever it is used once
	// the proxy runs (embedded says whether there is one).
	mini     *miniredis.Miniredis
	miniMu   sync.Mutex
	dialOpt  *redis.Options // RedisURL's options
	upAddr   string
	observer *redis.Client // reads lock keys

	mu       sync.Mutex
	sessions map[int64]*session
	// conns are the accepted connections that have no session yet.
	conns map[net.Conn]struct{}
	// closedLanes are the lanes of ended connections, the newest
	// maxClosedLanes, kept for the snapshot.
	closedLanes []ClientInfo
	nextID      int64
	scripts     map[string]*Script // by SHA, every script seen
	suggest     map[string]string  // suggested lock keys and why (a reason code)
	chosen      map[string]bool    // the suggested keys ticked as locks (ChooseLocks); nil: all of them
	// lockSet is what isLock reads: the chosen keys, else the suggested
	// ones (refreshLockSet), replaced whole on each change.
	lockSet atomic.Pointer[map[string]bool]
	clients atomic.Int64

	an *analyzer

	// sharedConns are the shared upstream connections (shared.go), dialled
	// on first use, under sharedMu.
	sharedMu    sync.Mutex
	sharedConns [sharedUpstreams]*sharedUp

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Start listens on cfg.Listen and forwards to the upstream: the embedded
// Redis, started here, or cfg.RedisURL, which must answer PING and must not
// be a cluster (ErrCluster). A limit out of range is a *LimitError. The
// proxy runs until ctx ends or Close.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g, err := parseGlobs(cfg.Locks, cfg.flag("locks"))
	if err != nil {
		return nil, err
	}
	rate, stopRate := plainRate{}, func() {}
	if cfg.plainRate != nil {
		rate = *cfg.plainRate
	} else {
		rate, stopRate = defaultPlainRate()
	}
	p := &Proxy{cfg: cfg, locks: g, started: time.Now(), trace: newRing(cfg.TraceSize, rate.budget),
		sessions: map[int64]*session{}, conns: map[net.Conn]struct{}{}, scripts: map[string]*Script{}, suggest: map[string]string{}}
	if err := p.openUpstream(ctx); err != nil {
		stopRate()
		return nil, err
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.an = newAnalyzer(p)
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		p.closeUpstream()
		stopRate()
		return nil, fmt.Errorf("proxy: listen on %s (%s): %w", cfg.Listen, cfg.listenFlag(), err)
	}
	p.ln = ln
	p.wg.Add(4)
	go func() { defer p.wg.Done(); p.serve(ln) }()
	go func() { defer p.wg.Done(); p.trace.runResyncs(p.ctx) }()
	go func() { defer p.wg.Done(); defer stopRate(); p.trace.runPlainRefills(p.ctx, rate) }()
	go func() { defer p.wg.Done(); p.an.run(p.ctx) }()
	if p.embedded() {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.runClock(p.ctx) }()
	}
	go func() {
		select {
		case <-ctx.Done():
			p.Close()
		case <-p.ctx.Done():
		}
	}()
	return p, nil
}

// Addr is the address the proxy listens on (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Upstream names the upstream: "embedded" (the embedded Redis) or its address.
func (p *Proxy) Upstream() string {
	if p.embedded() {
		return "embedded"
	}
	return p.upAddr
}

// Close stops listening, closes every client connection and the upstream.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.cancel() // under mu: no session registers after it
		conns := make([]net.Conn, 0, len(p.conns))
		for c := range p.conns {
			conns = append(conns, c)
		}
		p.mu.Unlock()
		if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			p.closeErr = err
		}
		for _, c := range conns {
			c.Close()
		}
		for _, s := range p.openSessions() {
			s.close(nil)
		}
		p.closeShared()
		p.wg.Wait()
		p.closeUpstream()
	})
	return p.closeErr
}

func (p *Proxy) openUpstream(ctx context.Context) error {
	if p.cfg.RedisURL == "" {
		m := miniredis.NewMiniRedis()
		if err := m.Start(); err != nil {
			return fmt.Errorf("proxy: start the embedded Redis: %w", err)
		}
		p.mini, p.upAddr = m, m.Addr()
		p.observer = redis.NewClient(&redis.Options{Addr: m.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: 1})
		return nil
	}
	bcfg := backend.Config{URL: p.cfg.RedisURL, CAFile: p.cfg.RedisCA}
	be, err := backend.Open(ctx, bcfg)
	if err != nil {
		return fmt.Errorf("proxy: upstream: %w", err)
	}
	cluster := be.Info().Cluster
	be.Close()
	if cluster {
		return ErrCluster
	}
	opt, err := backend.DialOptions(bcfg)
	if err != nil {
		return fmt.Errorf("proxy: upstream: %w", err)
	}
	p.dialOpt, p.upAddr = opt, opt.Addr
	obs := *opt
	obs.PoolSize = 2
	p.observer = redis.NewClient(&obs)
	return nil
}

func (p *Proxy) closeUpstream() {
	p.observer.Close()
	if p.embedded() {
		p.miniMu.Lock()
		p.mini.Close()
		p.miniMu.Unlock()
	}
}

// embedded reports whether the upstream is the embedded Redis (no
// RedisURL), which the proxy starts and may restart.
func (p *Proxy) embedded() bool { return p.cfg.RedisURL == "" }

// runClock moves the embedded Redis's clock with the wall clock, so that
// its keys expire in real time.
func (p *Proxy) runClock(ctx context.Context) {
	t := time.NewTicker(p.cfg.ClockTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			p.miniMu.Lock()
			p.mini.FastForward(now.Sub(last))
			p.miniMu.Unlock()
			last = now
		}
	}
}

// upstreamBuffer is the read buffer of an upstream connection: a reply's
// line (a simple string or an error) must fit in it; bulk strings are read
// past it.
const upstreamBuffer = 16 << 10

// dialUpstream opens one upstream connection for a client: to the embedded
// Redis, or to RedisURL with its TLS, and its AUTH and SELECT when the URL
// carries them (the client may still send its own). Callers hold miniMu.
func (p *Proxy) dialUpstream(ctx context.Context) (net.Conn, *bufio.Reader, error) {
	d := net.Dialer{Timeout: backend.DefaultDialTimeout}
	if p.embedded() {
		c, err := d.DialContext(ctx, "tcp", p.mini.Addr())
		if err != nil {
			return nil, nil, fmt.Errorf("proxy: dial the embedded Redis: %w", err)
		}
		return c, bufio.NewReaderSize(c, upstreamBuffer), nil
	}
	opt := p.dialOpt
	if opt.DialTimeout > 0 {
		d.Timeout = opt.DialTimeout
	}
	c, err := d.DialContext(ctx, "tcp", opt.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("proxy: dial upstream %s: %w", opt.Addr, err)
	}
	if opt.TLSConfig != nil {
		tc := tls.Client(c, opt.TLSConfig.Clone())
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("proxy: TLS to upstream %s: %w", opt.Addr, err)
		}
		c = tc
	}
	r := bufio.NewReaderSize(c, upstreamBuffer)
	var setup [][]string
	if opt.Password != "" {
		if opt.Username != "" {
			setup = append(setup, []string{"AUTH", opt.Username, opt.Password})
		} else {
			setup = append(setup, []string{"AUTH", opt.Password})
		}
	}
	if opt.DB != 0 {
		setup = append(setup, []string{"SELECT", strconv.Itoa(opt.DB)})
	}
	for _, cmd := range setup {
		if _, err := c.Write(encodeCommand(cmd)); err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("proxy: upstream %s: %w", opt.Addr, err)
		}
		_, v, err := readReply(r)
		if err == nil && v.IsError() {
			err = errors.New(v.Str)
		}
		if err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("proxy: upstream %s refused %s: %w", opt.Addr, cmd[0], err)
		}
	}
	return c, r, nil
}

// encodeCommand writes args as a RESP array of bulk strings.
func encodeCommand(args []string) []byte {
	b := redcon.AppendArray(nil, len(args))
	for _, a := range args {
		b = redcon.AppendBulkString(b, a)
	}
	return b
}

// serve accepts client connections until the listener closes: each
// while fewer than MaxClients are open gets its session (the rest an error
// naming -max-clients).
func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if p.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(5 * time.Millisecond) // out of descriptors: try again
			continue
		}
		if p.clients.Add(1) > int64(p.cfg.MaxClients) {
			p.clients.Add(-1)
			msg := fmt.Sprintf("-ERR proxy: %d client connections are open, the limit (%s %d)\r\n", p.cfg.MaxClients, p.cfg.flag("max-clients"), p.cfg.MaxClients)
			_, _ = c.Write([]byte(msg))
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.ctx.Err() != nil {
			p.mu.Unlock()
			c.Close()
			p.clients.Add(-1)
			return
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		go p.runSession(c)
	}
}

// dropConn closes an accepted connection that got no session.
func (p *Proxy) dropConn(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
	p.clients.Add(-1)
}

// script returns the script with digest sha the proxy saw, or nil.
func (p *Proxy) script(sha string) *Script {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scripts[sha]
}

// learn remembers a script's body by digest.
func (p *Proxy) learn(s *Script) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.scripts[s.SHA]; !ok && len(p.scripts) < 1000 {
		p.scripts[s.SHA] = s
	}
}

// isLock reports whether key is a lock: it matches -locks, or without
// -locks the proxy suggested it.
func (p *Proxy) isLock(key string) bool {
	if len(p.locks) > 0 {
		return p.locks.match(key)
	}
	if m := p.lockSet.Load(); m != nil {
		return (*m)[key]
	}
	return false
}

// refreshLockSet publishes the keys isLock takes for locks without
// -locks: the chosen ones, or every suggested one; called with mu held
// whenever suggest or chosen changes (rarely: at most maxSuggestions
// keys), so that isLock, on every command, takes no lock.
func (p *Proxy) refreshLockSet() {
	m := make(map[string]bool, len(p.suggest))
	if p.chosen != nil {
		for k := range p.chosen {
			m[k] = true
		}
	} else {
		for k := range p.suggest {
			m[k] = true
		}
	}
	p.lockSet.Store(&m)
}

// maxSuggestions bounds the suggested lock keys.
const maxSuggestions = 1000

// suggestLocks records the keys c marks as locks by its shape: SET NX, a
// script that sets a TTL on a KEYS element or acquires.
func (p *Proxy) suggestLocks(c command) {
	reason := ""
	if nx, _ := c.setNX(); nx {
		reason = "set-nx"
	} else if c.script != nil && (c.script.TTLOnKeys || c.script.Acquire) && (c.name == "EVAL" || c.name == "EVALSHA" || c.name == "EVAL_RO" || c.name == "EVALSHA_RO") {
		reason = "script-ttl"
	}
	if reason == "" || len(c.keys) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.suggest[c.keys[0]]; !ok && len(p.suggest) < maxSuggestions {
		p.suggest[c.keys[0]] = reason
		p.refreshLockSet()
	}
}
