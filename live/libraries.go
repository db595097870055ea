package live

import "lockstep/proxy"

// knownScript is a lock library's script, known by its SHA1 digest: the
// library that sends it and what the script does.
type knownScript struct {
	lib  string
	role string // "acquire", "release", "renew"
}

// knownScripts are the Lua scripts of the lock libraries the tests run
// (internal/realclients), by digest. A client that runs one is most
// likely that library, whatever client library it declared (node-redlock
// and node-redisson run on ioredis; redis-py 4 declares nothing): the
// page names both. The digests are of the scripts as each pinned version
// sends them (TestProxy* in internal/realclients check them against the
// real libraries); another version's scripts are simply not recognised.
var knownScripts = map[string]knownScript{
	// redsync v4 (scripts.go)
	"e950836ed1e694540c503ef9972b8de518044d3b": {"redsync", "release"},
	"b6b55c439e02c6f52ffb8be7ec8c0d0ac816ea79": {"redsync", "renew"},
	"d75bb8b5bd13532ddedd17762e772346e39b321e": {"redsync", "renew"},
	// node-redlock 4 (redlock.js: lockScript, unlockScript, extendScript)
	"e5a322e2634ef59a516e8ea150cb085afafee684": {"node-redlock", "acquire"},
	"0f0f23b9048b36752b5be114f357ba083449f908": {"node-redlock", "release"},
	"ce46f80993d5dac20dd066eb301a4e37994bdbed": {"node-redlock", "renew"},
	// node-redisson 1 (CommandExecutor.js with PubSubCommandExecutor's
	// unlock message): Redisson's lock protocol
	"1aa70d3714f14a74e5d432283dae75da8fd9f1f8": {"node-redisson", "acquire"},
	"4a66e59a59b914f2e818c168080109f73e3b4996": {"node-redisson", "release"},
	"998172e59d96b314fb35ad302575fa19c8f518f2": {"node-redisson", "renew"},
	"95d09a0dc5130d77bf36b4cb795f78f8839bc372": {"node-redisson", "release"},
	// redis-py's Lock (redis/lock.py: LUA_RELEASE_SCRIPT, LUA_EXTEND_SCRIPT,
	// LUA_REACQUIRE_SCRIPT)
	"c3f8721cbb97f72bc19e972846bd7aaf91901658": {"redis-py", "release"},
	"a4e8783852e6b949f9ef3a97212805108459a890": {"redis-py", "renew"},
	"1cac51482acf5858da00f6d685d68f886cd6b6b2": {"redis-py", "renew"},
}

// KnownScript returns the lock library whose script has digest sha (a
// command's CommandEvent.Script), or "" for a script not known.
func KnownScript(sha string) string { return knownScripts[sha].lib }

// ScriptRole returns what the known script with digest sha does:
// "acquire", "release" or "renew" ("" for a script not known).
func ScriptRole(sha string) string { return knownScripts[sha].role }

// LaneView is a client lane as the live page heads it.
type LaneView struct {
	Lane string `json:"lane"`
	Name string `json:"name,omitempty"` // CLIENT SETNAME
	Addr string `json:"addr"`
	// Library is what the client declared (CLIENT SETINFO LIB-NAME and
	// LIB-VER); LockLibrary the lock library its scripts are known from
	// (KnownScript), "" until it runs one.
	Library     string `json:"library,omitempty"`
	LockLibrary string `json:"lock_library,omitempty"`
	Closed      bool   `json:"closed,omitempty"`
}

// Lanes are s's client lanes in the order of connection, each with the
// lock library of the first known script it ran: among the scripts its
// lane records (proxy.ClientInfo.Scripts, however old), else among s's
// events.
func Lanes(s proxy.Snapshot) []LaneView {
	libs := laneLibraries(s.Events)
	for _, l := range s.Lanes {
		for _, sha := range l.Scripts {
			if lib := KnownScript(sha); lib != "" {
				libs[l.Lane] = lib
				break
			}
		}
	}
	out := make([]LaneView, 0, len(s.Lanes))
	for _, l := range s.Lanes {
		lib := l.Library
		if lib != "" && l.LibraryVersion != "" {
			lib += " " + l.LibraryVersion
		}
		out = append(out, LaneView{Lane: l.Lane, Name: l.Name, Addr: l.Addr, Library: lib, LockLibrary: libs[l.Lane], Closed: !l.Closed.IsZero()})
	}
	return out
}

// laneLibraries maps each lane to the lock library of the first known
// script it ran.
func laneLibraries(events []proxy.Event) map[string]string {
	out := map[string]string{}
	for _, e := range events {
		if e.Command == nil || e.Command.Script == "" {
			continue
		}
		if _, ok := out[e.Lane]; !ok {
			if lib := KnownScript(e.Command.Script); lib != "" {
				out[e.Lane] = lib
			}
		}
	}
	return out
}
