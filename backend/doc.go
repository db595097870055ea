// Package backend connects the simulation core (package sim) to Redis. It
// opens Stores, the sim.Store a run executes on, from one of two backends:
//
//   - Embedded (the default): each run gets its own miniredis
//     (github.com/alicebob/miniredis/v2) served in-process on a buffered
//     in-memory connection (memconn.go: miniredis's own net.Pipe deadlocks
//     once a transaction's replies outgrow the buffers), with no TCP
//     listener. Its clock is virtual: an advance step moves it with
//     FastForward.
//   - Real: a redis-server given by a redis:// (rediss:// for TLS, with
//     Config.CAFile) URL, shared by runs: a single server, or a Redis
//     Cluster found from one node's URL or a list of seeds (open.go). Each
//     run works only under its own key prefix "lockstep:{run-<id>}:" (the
//     hash tag keeps a run's keys in one Cluster slot). Since a real
//     server's TTLs tick on the wall clock, every step is one MULTI/EXEC:
//     TIME, a script that re-establishes each key the step's scripts name
//     with its simulated contents and PTTL (lua/restore.lua), the step's
//     scripts, the reads of those keys, TIME; a key no script names cannot
//     change, so its state is the simulated one without a round trip, and a
//     step's transaction does not grow with the run. When both TIMEs fall
//     in the same millisecond every clock Redis consults agrees, so the
//     PTTLs read are exactly the simulated ones; otherwise the transaction
//     is sent again, and the restore at its head makes the repeat exact.
//     Every key carries a TTL, and Store.Close deletes them all; when Redis
//     cannot be reached then, the backend tries again later (cleanup.go).
//
// An ACL user needs only ACLRules (acl.go): its own keys and channels,
// every command but the dangerous ones, and INFO, which is optional. A
// command the ACL refuses fails with a *PermissionError naming the rule to
// add. Diagnose (doctor.go) checks a server for all of this.
//
// Both talk through go-redis (github.com/redis/go-redis/v9) over RESP2 and run
// the very same Lua files with redis.NewScript: EVALSHA, and EVAL when the
// server answers NOSCRIPT. Lockstep never sends FLUSHDB, KEYS or CONFIG SET.
// One exception to go-redis: the search's store (package search) reaches its
// miniredis through Direct (direct.go), which hands each command to
// miniredis's dispatcher in process and reads the reply into go-redis's
// types, so DecodeReply reads both alike.
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
//     Store.Close deletes the run's keys and kills both processes. At most
//     Config.MaxPairs pairs run at once, each process ends with Lockstep
//     even on kill -9 (Linux's parent-death signal), and the next pair
//     removes a dead owner's working folder (pairs.go).
//
// The server at the URL is not touched by such a run.
package backend
