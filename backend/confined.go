package backend

import (
	"context"
	"fmt"
	"strings"
)

// Reach is what the ACL user a backend connects as may touch of one key
// and one channel, found by trying (Reaches).
type Reach struct {
	Key, Channel string
	// KeyOK: EXISTS Key was allowed; ChannelOK: PUBLISH Channel was.
	KeyOK, ChannelOK bool
}

// Reaches asks the server, as the backend's user, whether it may read key
// (EXISTS, which changes nothing) and publish on channel (PUBLISH of an
// empty message, which no one of Lockstep's listens for: callers pass a
// channel of a random name): an ACL refusal (NOPERM) is false. This is how
// `doctor` finds a user's rights too, and needs no ACL command, which an
// application's user is rarely given. The error is the server's, for
// anything but a refusal. -allow-custom-scripts uses it to check that the
// user is confined to Lockstep's keys and channels (~lockstep:*
// &lockstep:*) before every visitor's Lua gets that user's power.
func (b *Backend) Reaches(ctx context.Context, key, channel string) (Reach, error) {
	r := Reach{Key: key, Channel: channel}
	if b.client == nil {
		return r, fmt.Errorf("backend: an embedded Redis has no ACL user")
	}
	err := b.client.Exists(ctx, key).Err()
	switch {
	case err == nil:
		r.KeyOK = true
	case !isPermission(err):
		return r, fmt.Errorf("backend: EXISTS %s: %w", key, err)
	}
	err = b.client.Publish(ctx, channel, "").Err()
	switch {
	case err == nil:
		r.ChannelOK = true
	case !isPermission(err):
		return r, fmt.Errorf("backend: PUBLISH %s: %w", channel, err)
	}
	return r, nil
}

// User is the ACL user the backend connects as ("default" when the URL
// names none; "" on the embedded backend).
func (b *Backend) User() string { return b.user }

// ServerIDs are what tells one Redis server's data from another's, read
// with INFO: the server's run_id (a random id per redis-server process),
// and the replication ids (master_replid, shared by a primary and its
// replicas, which hold the same keys). Two backends whose ServerIDs share
// one reach the same keys, whatever host text their URLs use
// (127.0.0.1 and localhost, a name and its address: a fresh-eyes attack
// on issue 37 passed a check that compared the URLs).
//
// Known is false when the user may not run INFO (an ACL refusal): the
// caller must then assume the same server. The error is the server's, for
// anything but a refusal.
func (b *Backend) ServerIDs(ctx context.Context) (ids []string, known bool, err error) {
	if b.client == nil {
		return nil, false, fmt.Errorf("backend: an embedded Redis has no server id")
	}
	for _, section := range []string{"server", "replication"} {
		text, err := b.client.Info(ctx, section).Result()
		switch {
		case isPermission(err):
			return nil, false, nil
		case err != nil:
			return nil, false, fmt.Errorf("backend: INFO %s: %w", section, err)
		}
		for _, line := range strings.Split(text, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || v == "" || strings.Trim(v, "0") == "" {
				continue
			}
			if k == "run_id" || k == "master_replid" || k == "master_replid2" {
				ids = append(ids, v)
			}
		}
	}
	return ids, len(ids) > 0, nil
}

// SameServer reports whether a and b, the ServerIDs of two backends,
// share an id: the two reach the same keys.
func SameServer(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
