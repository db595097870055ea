package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"lockstep/backend"
	"lockstep/classbus"
	"lockstep/search"
	"lockstep/web"
	"lockstep/webnet"
)

// ClassroomSecretEnv is the environment variable that gives the class
// secret: the documented way, since a command line shows in ps (and
// /proc/PID/cmdline) to every user of the machine, and whoever reads the
// secret can speak for every class. -classroom-secret still works, with a
// warning, and wins over the variable.
const ClassroomSecretEnv = "LOCKSTEP_CLASSROOM_SECRET"

// serveLimits are the flags of issue 37's bounds (docs/security.md).
type serveLimits struct {
	trusted         *string
	reserve         *int
	maxClasses      *int
	classesPerAddr  *int
	classGrace      *time.Duration
	classroomSecret *string
	searchStates    *int
	searchMiB       *int
	sandboxKills    *int
	sandboxTime     *time.Duration
	sandboxTotal    *time.Duration
}

// limitFlags defines the flags of web.Limits on fs.
func limitFlags(fs *flag.FlagSet) *serveLimits {
	return &serveLimits{
		trusted: fs.String("trusted-proxies", "", "comma-separated addresses or CIDR prefixes of reverse proxies whose X-Forwarded-For names the client (e.g. 127.0.0.1/32); by default no peer is trusted, loopback included"),
		reserve: fs.Int("session-reserve", 0, "sessions kept for addresses with none open (0: a tenth of -max-sessions; -1: none)"),
		maxClasses: fs.Int("max-classes", web.DefaultMaxClasses,
			"most classes this server runs at once"),
		classesPerAddr: fs.Int("max-classes-per-addr", web.DefaultMaxClassesPerAddr,
			"most classes started or resumed from one client address at once"),
		classGrace: fs.Duration("class-grace", web.DefaultClassGrace,
			"end a class, and drop all its state, once no presenter's page has been connected to it for this long"),
		searchStates: fs.Int("search-max-states", web.DefaultSearchMaxStates,
			"most timelines one search of the Search page explores before it stops with what it found; a search's memory grows with them (about 45 KB a state with a built-in lock), so lower it on a small server"),
		searchMiB: fs.Int("search-max-mib", int(search.DefaultMaxBytes>>20),
			"most memory, in MiB, that the states one search of the Search page keeps may take (as the search counts them: their keys, values and saved runs) before it stops with what it found; the process's heap can reach some 4 times it (docs/security.md)"),
		sandboxKills: fs.Int("sandbox-kills-per-addr", backend.DefaultSandboxKillsPerAddr,
			"most times within a minute the scripts of one client address's own locks may get the shared Lua sandbox stopped (past its time or memory bound) before that address's further steps of them are refused for the rest of the minute (-1: no bound)"),
		sandboxTime: fs.Duration("sandbox-time-per-addr", backend.DefaultSandboxTimePerAddr,
			"the time one client address's steps of its own locks' scripts may take in the shared Lua sandbox within a minute (a step takes milliseconds); over it they are refused until it is a minute old, and an address runs one such step at once; searches are not counted (negative: no bound)"),
		sandboxTotal: fs.Duration("sandbox-time-total", backend.DefaultSandboxTimeTotal,
			"the time the steps of learners' own locks' scripts from all client addresses together may take in the shared Lua sandbox within a minute; over it they are refused until it is a minute old, and one address may take at most a quarter of it (negative: no bound)"),
		classroomSecret: fs.String("classroom-secret", "", "with -classroom-redis: a secret (16 bytes or more) every server sharing the classes is given; class messages and states are signed with it (HMAC-SHA256) and unsigned ones ignored. Prefer $"+ClassroomSecretEnv+": a flag shows in ps to every user of the machine"),
	}
}

// parse checks the flags and returns the limits and the class secret (nil
// without one). Without a secret on a shared bus it warns on stderr.
func (l *serveLimits) parse(classRedis string, stderr io.Writer) (web.Limits, []byte, error) {
	var lim web.Limits
	trusted, err := webnet.ParseTrustedProxies(*l.trusted)
	if err != nil {
		return lim, nil, fmt.Errorf("flag -trusted-proxies: %w", err)
	}
	switch {
	case *l.maxClasses < 1:
		return lim, nil, errors.New("flag -max-classes: must be at least 1")
	case *l.classesPerAddr < 1:
		return lim, nil, errors.New("flag -max-classes-per-addr: must be at least 1")
	case *l.classGrace < time.Second:
		return lim, nil, errors.New("flag -class-grace: must be 1s or more")
	case *l.searchStates < 100:
		return lim, nil, errors.New("flag -search-max-states: must be at least 100")
	case *l.searchMiB < 1:
		return lim, nil, errors.New("flag -search-max-mib: must be at least 1")
	case *l.sandboxKills == 0 || *l.sandboxKills < -1:
		return lim, nil, errors.New("flag -sandbox-kills-per-addr: must be at least 1, or -1 for no bound")
	case *l.sandboxTime == 0:
		return lim, nil, errors.New("flag -sandbox-time-per-addr: must be positive, or negative for no bound")
	case *l.sandboxTotal == 0:
		return lim, nil, errors.New("flag -sandbox-time-total: must be positive, or negative for no bound")
	}
	lim = web.Limits{TrustedProxies: trusted, SessionReserve: *l.reserve, MaxClasses: *l.maxClasses,
		MaxClassesPerAddr: *l.classesPerAddr, ClassGrace: *l.classGrace, SandboxKillsPerAddr: *l.sandboxKills,
		SandboxTimePerAddr: *l.sandboxTime, SandboxTimeTotal: *l.sandboxTotal}
	secret := *l.classroomSecret
	if secret == "" {
		secret = os.Getenv(ClassroomSecretEnv)
	} else {
		fmt.Fprintf(stderr, "lockstep: warning: -classroom-secret shows in the process list (ps) to every user of this machine, who could then speak for every class; set $%s instead\n", ClassroomSecretEnv)
	}
	switch {
	case secret != "" && classRedis == "":
		return lim, nil, errors.New("flag -classroom-secret: needs -classroom-redis: a class in one process has no bus to sign")
	case secret != "" && len(secret) < classbus.MinSecretLen:
		return lim, nil, fmt.Errorf("flag -classroom-secret: want %d bytes or more, got %d", classbus.MinSecretLen, len(secret))
	case secret == "" && classRedis != "":
		fmt.Fprintf(stderr, "lockstep: warning: class messages on -classroom-redis are not signed: anyone who can PUBLISH on that Redis can move every class; give every server the same secret in $%s\n", ClassroomSecretEnv)
		return lim, nil, nil
	case secret == "":
		return lim, nil, nil
	}
	return lim, []byte(secret), nil
}
