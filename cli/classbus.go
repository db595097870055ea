package cli

import (
	"context"

	"lockstep/backend"
	"lockstep/classbus"
)

// openClassBus returns the class bus of flag -classroom-redis: a Redis bus
// on the Redis at url (connected and checked as -redis is, by
// backend.Open: a cluster node's URL gets a cluster client), or, for an
// empty url, nil: the web server's own classbus.Memory, classes living in
// the process. close releases it.
func openClassBus(ctx context.Context, url, caFile string, secret []byte) (bus classbus.Bus, close func(), err error) {
	if url == "" {
		return nil, func() {}, nil
	}
	be, err := backend.Open(ctx, backend.Config{URL: url, CAFile: caFile})
	if err != nil {
		return nil, nil, err
	}
	r := classbus.NewRedis(be.Client(), classbus.RedisOptions{})
	if secret == nil {
		return r, func() { r.Close(); be.Close() }, nil
	}
	s, err := classbus.NewSigned(r, secret)
	if err != nil {
		r.Close()
		be.Close()
		return nil, nil, err
	}
	return s, func() { s.Close(); be.Close() }, nil
}
