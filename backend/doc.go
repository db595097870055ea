// Package backend connects the simulation core (package sim) to Redis. It
// opens Stores, the sim.Store a run executes on, from one of two backends:
//
//   - Embedded (the default): each run gets its own miniredis
//     (github.com/alicebob/miniredis/v2) served in-process through
//     Miniredis.Dial, with no TCP listener. Its clock is virtual: an advance
//     step moves it with FastForward.
//   - Real: a redis-server given by a redis:// URL, shared by runs. Each run
//     works only under its own key prefix "lockstep:{run-<id>}:" (the hash tag
//     keeps a run's keys in one Cluster slot). Since a real server's TTLs tick
//     on the wall clock, every step is one MULTI/EXEC: TIME, a script that
//     re-establishes each run key with its simulated contents and PTTL
//     (lua/restore.lua), the step's scripts, the reads, TIME. When both TIMEs
//     fall in the same millisecond every clock Redis consults agrees, so the
//     PTTLs read are exactly the simulated ones; otherwise the transaction is
//     sent again, and the restore at its head makes the repeat exact. Every
//     key carries a TTL, and Store.Close deletes them all.
//
// Both talk through go-redis (github.com/redis/go-redis/v9) over RESP2 and run
// the very same Lua files with redis.NewScript: EVALSHA, and EVAL when the
// server answers NOSCRIPT. Lockstep never sends FLUSHDB, KEYS or CONFIG SET.
package backend
