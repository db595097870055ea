package web

import (
	"net/netip"
	"time"
)

// Defaults of Limits (docs/security.md lists every bound with its flag).
const (
	// DefaultMaxClasses bounds the classes this server owns at once: a
	// class costs some 100 KiB while it lives (its bus subscription's
	// buffer, `make bench`'s class-memory row), so 100 are some 10 MiB.
	DefaultMaxClasses = 100
	// DefaultMaxClassesPerAddr bounds the classes owned at once whose
	// presenter started or resumed them from one address: a teacher with
	// a class and a spare tab or two fits.
	DefaultMaxClassesPerAddr = 3
	// DefaultClassGrace is how long a class goes on with no presenter's
	// page connected (a reload, a laptop that slept, a walk to another
	// room) before it ends and all its state is dropped.
	DefaultClassGrace = 5 * time.Minute
	// DefaultClassJoinGlobalRate and DefaultClassJoinGlobalBurst bound the
	// joins of unknown class codes from every address together, per
	// second and at once: at 5 a second, guessing one of 100 live codes
	// among 31^8 takes some 3,000 years on average (issue 37, item 8).
	DefaultClassJoinGlobalRate  = 5
	DefaultClassJoinGlobalBurst = 50
	// DefaultSearchShare is how long a search holds its slot before a
	// search from an address that has none running may take it over.
	DefaultSearchShare = 10 * time.Second
)

// Limits are the bounds on what visitors share that issue 37 added
// (docs/security.md). A zero field means its default.
type Limits struct {
	// TrustedProxies are the peers whose X-Forwarded-For (else
	// Forwarded for=) names the client a request is counted under
	// (clientAddr; serve -trusted-proxies). Empty: no peer is trusted,
	// loopback included.
	TrustedProxies []netip.Prefix
	// SessionReserve is how many of MaxSessions only an address with no
	// session open may take (webnet.SessionTable); 0 means MaxSessions/10, a
	// negative value none.
	SessionReserve int
	// MaxClasses bounds the classes owned by this server at once, and
	// MaxClassesPerAddr those of one presenter's address; a class-start
	// or class-resume over either is refused (error code class-limit).
	// 0 means DefaultMaxClasses and DefaultMaxClassesPerAddr.
	MaxClasses        int
	MaxClassesPerAddr int
	// ClassGrace ends a class (reason "idle") once no presenter's page has
	// been connected to it for this long, and drops its state from the bus
	// and from this server; 0 means DefaultClassGrace.
	ClassGrace time.Duration
	// ClassJoinGlobalRate and ClassJoinGlobalBurst bound the failed class
	// joins of all addresses together, per second and at once (besides
	// ClassJoinRate per address); 0 means their defaults.
	ClassJoinGlobalRate  float64
	ClassJoinGlobalBurst int
	// SearchShare: when every search slot is taken, a search asked for
	// by an address with none running stops the search that has run the
	// longest, if it has run this long, and takes its slot (searchpage: fair.go);
	// 0 means DefaultSearchShare.
	SearchShare time.Duration
	// SandboxKillsPerAddr bounds how many times within a minute one
	// client address's steps of its own scripts may get the Lua sandbox's
	// process stopped (time or memory bound) before its further such
	// steps are refused, by name (backend.SandboxConfig.MaxKillsPerAddr,
	// serve -sandbox-kills-per-addr); 0 means
	// backend.DefaultSandboxKillsPerAddr, a negative value no bound.
	SandboxKillsPerAddr int
	// SandboxTimePerAddr and SandboxTimeTotal bound the time one client
	// address's steps of its own scripts, and all addresses' together,
	// may take in the Lua sandbox within a minute, over which further
	// such steps are refused by name (backend.SandboxConfig.TimePerAddr
	// and TimeTotal, serve -sandbox-time-per-addr and
	// -sandbox-time-total); 0 means backend.DefaultSandboxTimePerAddr and
	// DefaultSandboxTimeTotal, a negative value no bound.
	SandboxTimePerAddr, SandboxTimeTotal time.Duration
}

// setDefaults fills the zero fields of l; maxSessions is Config's.
func (l *Limits) setDefaults(maxSessions int) {
	switch {
	case l.SessionReserve == 0:
		l.SessionReserve = maxSessions / 10
	case l.SessionReserve < 0:
		l.SessionReserve = 0
	}
	defaultIfUnset(&l.MaxClasses, DefaultMaxClasses)
	defaultIfUnset(&l.MaxClassesPerAddr, DefaultMaxClassesPerAddr)
	defaultIfUnset(&l.ClassGrace, DefaultClassGrace)
	defaultIfUnset(&l.ClassJoinGlobalRate, DefaultClassJoinGlobalRate)
	defaultIfUnset(&l.ClassJoinGlobalBurst, DefaultClassJoinGlobalBurst)
	defaultIfUnset(&l.SearchShare, DefaultSearchShare)
}
