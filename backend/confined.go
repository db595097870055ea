package backend

import (
	"context"
	"fmt"
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
