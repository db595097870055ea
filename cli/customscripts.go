package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"

	"lockstep/backend"
	"lockstep/classbus"
)

// unconfinedFlag is the second flag an operator gives to run visitors'
// scripts on a Redis user that is not confined to Lockstep's keys and
// channels.
const unconfinedFlag = "allow-custom-scripts-unconfined"

// checkCustomScripts is serve's check of -allow-custom-scripts on a real
// Redis: every visitor's Lua then runs with redis.call as be's user, so
// that user must be confined to Lockstep's keys and channels (~lockstep:*
// &lockstep:*; a key and a channel outside them must be refused), unless
// the operator confirmed with -allow-custom-scripts-unconfined; and it must
// not reach the class state of -classroom-redis (classURL, "" for none,
// opened with caFile): a different user or server, and on the same server
// no key or channel of a class (lockstep:{class-...}). Whether the two are
// one server is asked of the servers (backend.ServerIDs), not read from
// the URLs' host text, which can name one server many ways; a server that
// will not say (INFO refused by its ACL) counts as the same. It returns the
// error to print, naming the flags, or nil.
func checkCustomScripts(ctx context.Context, be *backend.Backend, redisURL, classURL, caFile string, unconfined bool) error {
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	probe := "lockstep-acl-probe-" + hex.EncodeToString(id[:])
	out, err := be.Reaches(ctx, probe, probe)
	if err != nil {
		return fmt.Errorf("flag -allow-custom-scripts: checking what user %s may do: %w", be.User(), err)
	}
	if (out.KeyOK || out.ChannelOK) && !unconfined {
		return fmt.Errorf("flag -allow-custom-scripts: every visitor's Lua would run as Redis user %s, which may touch keys and channels outside Lockstep's (it was allowed %s): "+
			"confine it (ACL SETUSER %s resetkeys resetchannels %s), or give -%s to accept that every visitor gets all that user may do",
			be.User(), reachText(out), be.User(), backend.ACLRules, unconfinedFlag)
	}
	if classURL == "" {
		return nil
	}
	rAddr, rUser := urlUser(redisURL)
	_, cUser := urlUser(classURL)
	same, told, err := sameServer(ctx, be, classURL, caFile)
	if err != nil {
		return err
	}
	if !same {
		return nil
	}
	if !told {
		// Said after either refusal below: why two URLs were taken for one
		// server.
		rAddr += " (INFO was refused, so Lockstep could not tell the two servers apart: allow +info to both users)"
	}
	if rUser == cUser {
		return fmt.Errorf("flag -classroom-redis: visitors' scripts (-allow-custom-scripts) and class state would share Redis user %s on %s, so a visitor's lock could rewrite a class: give -classroom-redis another user, or another server", rUser, rAddr)
	}
	class := classbus.KeyPrefix + "{class-" + probe + "}:"
	out, err = be.Reaches(ctx, class+"state", class+"events")
	if err != nil {
		return fmt.Errorf("flag -classroom-redis: checking what user %s may do: %w", be.User(), err)
	}
	if out.KeyOK || out.ChannelOK {
		return fmt.Errorf("flag -classroom-redis: the user of -redis (%s), whose power every visitor's script has (-allow-custom-scripts), may touch the classes' keys or channels on %s (it was allowed %s): "+
			"confine it to the runs' keys and channels (ACL SETUSER %s %s), or put the classes on another server",
			rUser, rAddr, reachText(out), rUser, runsOnlyRules)
	}
	return nil
}

// runsOnlyRules confine a user to the runs' keys and channels
// (lockstep:{run-...}), away from the classes' (lockstep:{class-...}): the
// channel pattern too, since a lock that publishes on release (Redisson's)
// publishes on its run's channel, which resetchannels alone would refuse.
const runsOnlyRules = "resetkeys resetchannels ~" + backend.KeyNamespace + "{run-* &" + backend.KeyNamespace + "{run-* +@all -@dangerous +info"

func reachText(r backend.Reach) string {
	switch {
	case r.KeyOK && r.ChannelOK:
		return "key " + r.Key + " and channel " + r.Channel
	case r.KeyOK:
		return "key " + r.Key
	default:
		return "channel " + r.Channel
	}
}

// urlUser is the host:port and the ACL user a redis:// URL names
// ("default" when it names none; port 6379 when it names none).
func urlUser(raw string) (addr, user string) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, ""
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "6379"
	}
	user = "default"
	if u.User != nil && u.User.Username() != "" {
		user = u.User.Username()
	}
	return net.JoinHostPort(host, port), user
}

// sameServer reports whether classURL (opened with caFile) reaches the
// same server's keys as be: their ServerIDs share one, or either server
// will not say (INFO refused; told false), which counts as the same.
func sameServer(ctx context.Context, be *backend.Backend, classURL, caFile string) (same, told bool, err error) {
	cb, err := backend.Open(ctx, backend.Config{URL: classURL, CAFile: caFile})
	if err != nil {
		return false, false, fmt.Errorf("flag -classroom-redis: %w", err)
	}
	defer cb.Close()
	rIDs, rKnown, err := be.ServerIDs(ctx)
	if err != nil {
		return false, false, fmt.Errorf("flag -allow-custom-scripts: telling the servers apart: %w", err)
	}
	cIDs, cKnown, err := cb.ServerIDs(ctx)
	if err != nil {
		return false, false, fmt.Errorf("flag -classroom-redis: telling the servers apart: %w", err)
	}
	if !rKnown || !cKnown {
		return true, false, nil
	}
	return backend.SameServer(rIDs, cIDs), true, nil
}
