package proxy

import (
	"fmt"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultListen     = "127.0.0.1:6380"
	DefaultTraceSize  = 10000
	DefaultMaxClients = 64
	DefaultSlowScript = 500 * time.Millisecond
	// DefaultClockTick is how often the embedded Redis's clock moves:
	// miniredis expires keys only when told to, so the proxy moves it on
	// in real time in steps of this size; a key expires up to one tick late.
	DefaultClockTick = 5 * time.Millisecond
	// MaxTraceSize and MaxMaxClients are the largest values the flags
	// take (refused by name above): about 1 KiB per event, 128 KiB per
	// connection (bench measures both).
	MaxTraceSize  = 1_000_000
	MaxMaxClients = 10_000
	// maxFindings bounds the findings kept (the oldest go first).
	maxFindings = 1000
	// maxPipeline bounds the commands of one client awaiting replies; a
	// client that sends more waits (as on a full socket buffer).
	maxPipeline = 4096
	// observeQueue bounds the commands on lock keys awaiting the lock
	// reader; beyond it their lock states are skipped (an EventFault with
	// Kind "observer-behind" says so), never the application's traffic.
	observeQueue = 4096
)

// Config is the proxy's configuration; the zero value of a field means its
// default.
type Config struct {
	// Listen is the address clients connect to (default 127.0.0.1:6380,
	// loopback: the proxy has no authentication of its own).
	Listen string
	// RedisURL is the upstream Redis (redis:// or rediss://, as -redis
	// takes it, with ACL user and password); "" starts an embedded Redis
	// (miniredis). A Redis Cluster is refused.
	RedisURL string
	// RedisCA is a PEM file of CAs for a rediss:// upstream.
	RedisCA string
	// Locks are glob patterns of lock key names (-locks 'lock:*,order:*').
	// Empty: keys the proxy suggests (SET NX, scripts that set a TTL on a
	// KEYS element, known lock libraries' scripts) are treated as locks.
	Locks string
	// TraceSize is how many events the trace keeps (default 10,000; at
	// most MaxTraceSize).
	TraceSize int
	// MaxClients is how many client connections the proxy holds at once
	// (default 64; at most MaxMaxClients); one more is answered with an
	// error naming the flag and closed.
	MaxClients int
	// SlowScript is the duration above which a script's round trip is a
	// finding (default 500 ms).
	SlowScript time.Duration
	// FlagPrefix is what the proxy's own messages put between "-" and a
	// flag's name (-trace-size, -max-clients): "" for `lockstep proxy`,
	// "proxy-" beside the player (`lockstep -proxy`, whose flags are
	// -proxy-trace-size, -proxy-max-clients).
	FlagPrefix string
	// ClockTick is the embedded Redis's clock step (DefaultClockTick).
	ClockTick time.Duration
	// plainRate, when set, is the plain commands' trace budget and its
	// refills (a test's: a budget that no timer refills); nil:
	// defaultPlainRate.
	plainRate *plainRate
	// analyzerHold, when set, holds the analyzer's goroutine before its
	// first job until it is closed (a test's: jobs queue up behind it);
	// nil: none.
	analyzerHold <-chan struct{}
	// maxReply, when > 0, is the bound of one reply instead of
	// maxReplyBytes (a test's: a reply over it without moving 64 MiB).
	maxReply int
}

// LimitError is a refused limit: the flag (or Config field) and its bound.
type LimitError struct {
	Flag  string
	Value int
	Max   int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("proxy: %s %d is out of range (1 to %d)", e.Flag, e.Value, e.Max)
}

// withDefaults fills defaults and refuses out-of-range limits by flag name.
func (c Config) withDefaults() (Config, error) {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.TraceSize == 0 {
		c.TraceSize = DefaultTraceSize
	}
	if c.MaxClients == 0 {
		c.MaxClients = DefaultMaxClients
	}
	if c.SlowScript <= 0 {
		c.SlowScript = DefaultSlowScript
	}
	if c.ClockTick <= 0 {
		c.ClockTick = DefaultClockTick
	}
	if c.TraceSize < 1 || c.TraceSize > MaxTraceSize {
		return c, &LimitError{Flag: c.flag("trace-size"), Value: c.TraceSize, Max: MaxTraceSize}
	}
	if c.MaxClients < 1 || c.MaxClients > MaxMaxClients {
		return c, &LimitError{Flag: c.flag("max-clients"), Value: c.MaxClients, Max: MaxMaxClients}
	}
	return c, nil
}

// listenFlag is the flag that gives the proxy's address: -listen of
// `lockstep proxy`, -proxy beside the player (FlagPrefix "proxy-").
func (c Config) listenFlag() string {
	if c.FlagPrefix == "" {
		return "-listen"
	}
	return "-" + strings.TrimSuffix(c.FlagPrefix, "-")
}

// flag is the flag named name as the user gives it (FlagPrefix).
func (c Config) flag(name string) string { return "-" + c.FlagPrefix + name }
