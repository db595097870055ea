package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// MinVersion is the oldest Redis Lockstep runs on: ACL users (6.0), and
// every command the store sends (EVALSHA, PTTL, TIME, MULTI).
const MinVersion = "6.0"

// CheckID names what one Diagnose check looked at.
type CheckID string

// The checks of Diagnose, in the order it makes them.
const (
	CheckReach   CheckID = "reach"   // PING within the dial timeout; Params: addr, error
	CheckVersion CheckID = "version" // INFO server; Params: version, min (fail), rule (warn: INFO refused)
	CheckCluster CheckID = "cluster" // CLUSTER INFO; Params: cluster ("yes"/"no"), state
	CheckCommand CheckID = "command" // one per command Lockstep sends; Params: command, rule, user, error (fail)
	CheckLua     CheckID = "lua"     // EVAL of a probe script; Params: error (fail)
	CheckClock   CheckID = "clock"   // TIME; Params: offset_ms (server minus this machine), fit (of 20 two-TIME transactions, how many fell in one server millisecond)
	CheckPair    CheckID = "pair"    // redis-server on PATH for the failover lesson's pair; Params: path (ok)
)

// Status is the result of a check.
type Status string

// The statuses of a check.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn" // Lockstep runs, with less (no version in the header, an embedded pair)
	StatusFail Status = "fail" // Lockstep cannot run lessons on this Redis until it is fixed
)

// Check is one finding of Diagnose: what was checked, how it went, and the
// parameters a message needs (see the CheckID constants). It holds codes
// and values, no prose: the CLI words it in the user's language.
type Check struct {
	ID     CheckID           `json:"id"`
	Status Status            `json:"status"`
	Params map[string]string `json:"params,omitempty"`
}

// Diagnose checks the Redis cfg names for what Lockstep needs (the command
// `lockstep doctor`): that it is reachable; its version (INFO, optional);
// whether it is a cluster; every command a run sends, on a probe key of
// Lockstep's namespace ("lockstep:{doctor-<hex>}:probe", with a TTL of 10 s,
// deleted at the end) as the URL's user, so that the ACL's refusals show;
// that Lua scripts run and may touch Lockstep's keys and publish on its
// channels; the server's clock; and redis-server on PATH for the failover
// lesson. A Redis it cannot reach gives one failed CheckReach and an error
// wrapping ErrUnreachable (or the refusal).
func Diagnose(ctx context.Context, cfg Config) ([]Check, error) {
	b, err := Open(ctx, cfg)
	if err != nil {
		addr := RedactURL(cfg.URL)
		if opt, _, perr := parseURL(cfg); perr == nil {
			addr = opt.Addr
		}
		return []Check{{ID: CheckReach, Status: StatusFail, Params: map[string]string{"addr": addr, "error": err.Error()}}}, err
	}
	defer b.Close()
	info := b.Info()
	out := []Check{{ID: CheckReach, Status: StatusOK, Params: map[string]string{"addr": info.Addr, "user": b.user}}}
	add := func(id CheckID, st Status, params ...string) {
		c := Check{ID: id, Status: st, Params: map[string]string{}}
		for i := 0; i+1 < len(params); i += 2 {
			c.Params[params[i]] = params[i+1]
		}
		out = append(out, c)
	}
	switch {
	case info.Version == "":
		add(CheckVersion, StatusWarn, "rule", "+info", "user", b.user)
	case versionLess(info.Version, MinVersion):
		add(CheckVersion, StatusFail, "version", info.Version, "min", MinVersion)
	default:
		add(CheckVersion, StatusOK, "version", info.Version)
	}
	if info.Cluster {
		state := "?"
		if ci, err := b.client.ClusterInfo(ctx).Result(); err == nil {
			state = infoField(ci, "cluster_state")
		}
		st := StatusOK
		if state != "ok" {
			st = StatusFail
		}
		add(CheckCluster, st, "cluster", "yes", "state", state)
	} else {
		add(CheckCluster, StatusOK, "cluster", "no")
	}

	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return out, fmt.Errorf("backend: doctor: %w", err)
	}
	prefix := KeyNamespace + "{doctor-" + hex.EncodeToString(id[:]) + "}:"
	hash, str, channel := prefix+"probe", prefix+"probe-string", prefix+"channel"
	defer b.client.Del(context.WithoutCancel(ctx), hash, str)
	probes := []struct {
		name string
		run  func() error
	}{
		{"TIME", func() error { return b.client.Time(ctx).Err() }},
		{"PTTL", func() error { return b.client.PTTL(ctx, hash).Err() }},
		{"GET", func() error { return ignoreNil(b.client.Get(ctx, str).Err()) }},
		{"HGETALL", func() error { return b.client.HGetAll(ctx, hash).Err() }},
		{"DEL", func() error { return b.client.Del(ctx, hash).Err() }},
		{"MULTI", func() error {
			_, err := b.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.PTTL(ctx, hash)
				return nil
			})
			return err
		}},
		{"EVALSHA", func() error {
			err := b.client.EvalSha(ctx, "0000000000000000000000000000000000000000", []string{hash}).Err()
			if redis.HasErrorPrefix(err, "NOSCRIPT") {
				return nil // allowed, and not cached: as expected
			}
			return err
		}},
	}
	for _, p := range probes {
		if err := p.run(); err != nil {
			failCommand(b, add, p.name, err)
		} else {
			add(CheckCommand, StatusOK, "command", p.name)
		}
	}
	// The probe script does what the lock scripts do: hash and string
	// writes with a TTL, a publish on Lockstep's channel, a delete.
	const probe = `redis.call('HSET', KEYS[1], 'f', '1')
redis.call('PEXPIRE', KEYS[1], 10000)
redis.call('SET', KEYS[2], 'v', 'PX', 10000)
redis.call('PUBLISH', KEYS[3], 'doctor')
redis.call('DEL', KEYS[1], KEYS[2])
return 1`
	switch err := b.client.Eval(ctx, probe, []string{hash, str, channel}).Err(); {
	case err == nil:
		add(CheckLua, StatusOK)
	case isPermission(err):
		failCommand(b, add, "EVAL", err)
	default:
		add(CheckLua, StatusFail, "error", err.Error())
	}

	before := time.Now()
	if t, err := b.client.Time(ctx).Result(); err == nil {
		local := before.Add(time.Since(before) / 2)
		fit := 0
		for range 20 {
			var t0, t1 *redis.TimeCmd
			if _, err := b.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
				t0, t1 = p.Time(ctx), p.Time(ctx)
				return nil
			}); err == nil && t0.Val().UnixMilli() == t1.Val().UnixMilli() {
				fit++
			}
		}
		st := StatusOK
		if fit < 10 {
			st = StatusWarn // steps will often be sent again (see Store.Exec)
		}
		add(CheckClock, st, "offset_ms", strconv.FormatInt(t.Sub(local).Milliseconds(), 10), "fit", strconv.Itoa(fit), "of", "20")
	}
	if path, err := b.redisServer(); err == nil {
		add(CheckPair, StatusOK, "path", path)
	} else {
		add(CheckPair, StatusWarn)
	}
	return out, nil
}

func failCommand(b *Backend, add func(CheckID, Status, ...string), name string, err error) {
	var pe *PermissionError
	if errors.As(b.permission(name, err), &pe) {
		add(CheckCommand, StatusFail, "command", pe.Command, "rule", pe.Rule, "user", pe.User, "error", err.Error())
		return
	}
	add(CheckCommand, StatusFail, "command", name, "error", err.Error())
}

func ignoreNil(err error) error {
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// versionLess compares dotted version numbers ("7.0.15" < "7.2").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
