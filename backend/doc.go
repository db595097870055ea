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
//
// A lesson with a replica (`replica: true`) needs a primary and a replica
// that can fail over, which one server given by URL cannot do. Every batch of
// such a run says so (sim.Batch.Replica), and at the first one the Store sets
// up a pair of its own; Store.Info then names it:
//
//   - Embedded pair (the embedded backend, or a URL with no redis-server on
//     PATH): a second miniredis beside the run's; FastForward moves both.
//     After a replicated batch the keys it read on the primary, with their
//     PTTLs, are copied onto the replica with lua/restore.lua; failover
//     switches the store to the replica.
//   - Started pair (a URL, and redis-server on PATH or Config.RedisServer):
//     two redis-server processes on free loopback ports, with no persistence
//     (--save "" --appendonly no, diskless sync), the second started with
//     --replicaof the first; the store waits for master_link_status:up. The
//     steps run on the primary as on any real Redis (restore, calls, reads,
//     TIME), each followed by WAIT 1 on the same connection while the
//     replica is linked, so the replica really has it before the next step.
//     Before an unreplicated step REPLICAOF NO ONE on the replica cuts the
//     link, so its writes really never get there; the next replicated step
//     links it again and waits for the resync. At failover the primary is
//     killed and the replica promoted, and before it serves anything its
//     contents (types and fields, not TTLs) are checked against what the
//     lesson says it holds: keys it holds must be as the last step it
//     acknowledged left them, and it may lack one only once its TTL has run
//     out on the servers' clock. A difference is an error, not a frame. Then
//     the restore re-establishes the simulated PTTLs on it as usual.
//     Store.Close deletes the run's keys and kills both processes.
//
// The server at the URL is not touched by such a run.
package backend
