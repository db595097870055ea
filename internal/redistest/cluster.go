package redistest

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a running three-node Redis Cluster: three primaries, no
// replicas, the 16,384 slots split between them by redis-cli.
type Cluster struct {
	Nodes []*Server
	// URL is one node's redis:// URL: enough for a client to find the rest.
	URL string
	// SeedsURL names every node, as go-redis's ParseClusterURL reads a list
	// of seeds: redis://HOST:PORT?addr=HOST:PORT&addr=HOST:PORT.
	SeedsURL string
}

// StartCluster starts three redis-server processes with cluster mode on,
// each on a free loopback port with its cluster bus on another, joins them
// with `redis-cli --cluster create` and waits until every node reports
// cluster_state:ok. It takes about two seconds: start one per test
// package and share it between that package's tests.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	Need(tb, "redis-server", "make test")
	cliBin := Need(tb, "redis-cli", "make test (Debian package redis-tools)")
	dir := tb.TempDir()
	c := &Cluster{}
	var addrs []string
	for range 3 {
		bus, err := freePort()
		if err != nil {
			tb.Fatalf("redistest: free port: %v", err)
		}
		tag := strconv.Itoa(bus)
		n := Start(tb, "--cluster-enabled", "yes", "--cluster-port", tag, "--dir", dir,
			"--cluster-config-file", "nodes-"+tag+".conf", "--cluster-node-timeout", "5000")
		c.Nodes = append(c.Nodes, n)
		addrs = append(addrs, n.Addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cliBin, args...).CombinedOutput(); err != nil {
		tb.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range c.Nodes {
		if err := waitClusterOK(ctx, n); err != nil {
			tb.Fatal(err)
		}
	}
	c.URL = "redis://" + addrs[0]
	c.SeedsURL = "redis://" + addrs[0] + "?addr=" + addrs[1] + "&addr=" + addrs[2]
	return c
}

func waitClusterOK(ctx context.Context, n *Server) error {
	c := redis.NewClient(n.options())
	defer c.Close()
	var last string
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_slots_ok:16384") {
			return nil
		}
		last = fmt.Sprint(info, err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: the cluster node at %s is not ok: %s", n.Addr, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Client returns a go-redis cluster client as the default user, closed at
// test end.
func (c *Cluster) Client(tb testing.TB) *redis.ClusterClient {
	addrs := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		addrs[i] = n.Addr
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Protocol: 2, DisableIdentity: true})
	tb.Cleanup(func() { cc.Close() })
	return cc
}

// AddUser creates the ACL user on every node (ACL is per node) and returns
// the first node's URL with the user's credentials.
func (c *Cluster) AddUser(tb testing.TB, name, pass string, rules ...string) string {
	tb.Helper()
	var u string
	for i, n := range c.Nodes {
		if s := n.AddUser(tb, name, pass, rules...); i == 0 {
			u = strings.TrimSuffix(s, "/0")
		}
	}
	return u
}
