package examples_test

import (
	"testing"
)

// longLoop is a SET NX lock whose acquire loops 40,000 turns (some 3 ms
// on redis-server) before it takes the key, and then reads its PTTL, and
// whose release reads the PTTL of the key and extends it with EXPIRE
// after another such loop: a step that cannot run within one server
// millisecond.
const longLoop = `name: long-loop
lock: {type: string}
owner: grant-token
reentry: none
acquire:
  source: |
    local n = 0
    for i = 1, 40000 do n = n + i % 7 end
    if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
    return redis.call('PTTL', KEYS[1])
  keys: [lock]
  argv: [owner, lease_ms]
  replies: {30000: ACQUIRED, 0: BUSY}
release:
  source: |
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
    local before = redis.call('PTTL', KEYS[1])
    local n = 0
    for i = 1, 40000 do n = n + i % 7 end
    redis.call('EXPIRE', KEYS[1], 60)
    if redis.call('TTL', KEYS[1]) ~= 60 or redis.call('PTTL', KEYS[1]) ~= 60000 then return -2 end
    return before
  keys: [lock]
  argv: [owner]
  replies: {29000: STILL_HELD, -1: NOT_OWNER}
`

// TestLongScriptBothBackends: a step whose script runs some 40,000 loop
// turns, longer than a server millisecond, runs on a real Redis as on the
// embedded one (it failed there only, after 200 tries to run within one
// millisecond): the acquire's PTTL, read inside the script after the loop,
// is the whole lease; B's acquire a second later is BUSY on a key whose
// PTTL is 29 s to the millisecond; A's release reads 29000 too, and its
// EXPIRE after a second loop gives 60 s from the step's instant; the
// frames are the same.
func TestLongScriptBothBackends(t *testing.T) {
	l := lessonOn(t, longLoop, "  - {actor: A, do: acquire, expect: ACQUIRED}\n  - {do: advance, by: 1s}\n  - {actor: B, do: acquire, expect: BUSY}\n  - {actor: A, do: release, expect: STILL_HELD}\n")
	var out []string
	for _, be := range backends(t) {
		out = append(out, framesJSON(t, be, l))
	}
	if out[0] != out[1] {
		t.Fatalf("the backends' frames differ:\nembedded %s\nreal     %s", out[0], out[1])
	}
}
