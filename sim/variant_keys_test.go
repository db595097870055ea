package sim_test

import (
	"errors"
	"strings"
	"testing"

	"lockstep/sim"
)

// countVariant is a String lock whose hold count is kept in a second key;
// KEYNAME, COUNT and REENTRY are replaced per case.
const countVariant = `name: my-count
lock: {type: string, count: COUNT}
keys:
  count: {name: "KEYNAME", role: state, type: string}
owner: grant-token
reentry: REENTRY
acquire:
  source: return 1
  keys: [lock]
  argv: [owner, lease_s]
  replies: {1: held, 0: BUSY}
release:
  source: return 1
  keys: [lock]
  replies: {1: RELEASED}
`

// TestDerivedKeyNames: a key built on the lock key may be declared as
// {lock_key}:count or lock:{lock}:count (a user's key that starts with
// Lockstep's prefix lock:, refused before issue 33), not as the lock key
// itself nor under another of Lockstep's prefixes; lock.count names a
// String state key and needs reentry: redis.
func TestDerivedKeyNames(t *testing.T) {
	for _, c := range []struct {
		name, count, reentry string
		problem              string // "" when the file loads
	}{
		{"{lock_key}:count", "count", "redis", ""},
		{"lock:{lock}:count", "count", "redis", ""},
		{"{lock}:count", "count", "redis", ""},
		{"{lock_key}", "count", "redis", "variant.key-name-is-lock"},
		{"lock:{lock}", "count", "redis", "variant.key-name-is-lock"},
		{"fence:{lock}:count", "count", "redis", "variant.key-name-reserved"},
		{"lock:x:{lock}", "count", "redis", "variant.key-name-reserved"},
		{"{lock_key}:count", "nope", "redis", "variant.count-key-unknown"},
		{"{lock_key}:count", "count", "none", "variant.count-key-reentry"},
	} {
		src := strings.NewReplacer("KEYNAME", c.name, "COUNT", c.count, "REENTRY", c.reentry).Replace(countVariant)
		def, err := sim.LoadVariant("my.variant.yaml", []byte(src), nil)
		var les sim.LoadErrors
		switch {
		case c.problem == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.problem == "":
			if def.Lock.Count != "count" {
				t.Errorf("%s: lock.count %q", c.name, def.Lock.Count)
			}
		case !errors.As(err, &les) || les[0].Problem.ID != c.problem:
			t.Errorf("%s (count %s, reentry %s): want %s, got %v", c.name, c.count, c.reentry, c.problem, err)
		}
	}
}
