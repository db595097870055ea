package backend

import "github.com/redis/go-redis/v9"

// Client returns the go-redis client of a real Redis backend (a
// *redis.Client, or a *redis.ClusterClient for a cluster node's URL), with
// Lockstep's timeouts and TLS settings, for another user of the same server
// such as the class bus (classbus.NewRedis, flag -classroom-redis). It is
// nil for the embedded backend. The backend still owns it: Close closes it.
func (b *Backend) Client() redis.UniversalClient { return b.client }
