// Package realclients drives real lock client libraries against any Redis
// address, for tests: node-redlock (npm redlock) and node-redisson (npm
// node-redisson, which speaks Redisson's lock protocol) in Node, redis-py's
// Lock (Debian's python3-redis) in /usr/bin/python3, and redsync
// (github.com/go-redsync/redsync/v4) in process. Each worker takes a Plan
// (a key, a lease, a client name and a list of steps) and reports Events
// (acquired, busy, released, not_owner, ... with the library's own error
// text and timings). The Node and Python workers are programs in node/ and
// python/ that read the plan as JSON in their first argument and write one
// JSON event per line; Start runs them and parses their output.
//
// The embedded Redis (miniredis) served on a port differs from redis-server
// for these clients in two ways the tests show. Its TTLs move only when its
// clock is moved (Miniredis.FastForward), never by wall time: without
// MiniredisClock a lease never runs out, a holder that sleeps past it still
// owns the lock, and its release succeeds where redis-server answers "not
// owner" (TestMiniredisWithoutClock). And it has CLIENT SETNAME and GETNAME
// but no CLIENT LIST, ID or SETINFO (go-redis sends SETINFO on connect and
// ignores the error), so another connection cannot read the lanes' names.
// With MiniredisClock every library gives the same outcomes on both.
//
// proxy_test.go runs each library through the lock-aware proxy (package
// proxy) with a fault injected, and checks the live page's model and the
// saved lesson's replay.
//
// Ensure installs or locates what the workers need (npm ci in node/ from
// its lockfile, Debian's python3-redis) and skips the test when something
// is missing, or fails it under CI=true.
package realclients
