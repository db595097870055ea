package backend_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/internal/redistest"
	"lockstep/lessons"
	"lockstep/sim"
)

// Redis as teams run it (issue 17): a Redis Cluster, a least-privilege ACL
// user, TLS. On each, every lesson gives the embedded run's frames, and the
// hygiene of a shared Redis holds.

// TestCluster runs on a three-node Redis Cluster that the test starts (one
// for the package's cluster tests: it takes about two seconds), reached by
// one node's URL and by a list of seeds.
func TestCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t)
	be := openBackend(t, cl.URL)
	if info := be.Info(); !info.Cluster || info.Version == "" || !strings.Contains(info.String(), "cluster") {
		t.Fatalf("cluster backend info: %+v (%s)", info, info)
	}
	t.Run("lessons", func(t *testing.T) { sameAsEmbedded(t, be) })
	t.Run("seeds", func(t *testing.T) {
		seeded := openBackend(t, cl.SeedsURL)
		if !seeded.Info().Cluster {
			t.Fatalf("seeds URL: not a cluster: %+v", seeded.Info())
		}
		l, err := lessons.ByID("nested-reentry")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := run(t, openBackend(t, ""), l, nil)
		got, _ := run(t, seeded, l, nil)
		if a, b := sim.FormatFrames(want, sim.English), sim.FormatFrames(got, sim.English); a != b {
			t.Fatalf("frames differ:\n%s\n---\n%s", a, b)
		}
	})
	t.Run("hygiene", func(t *testing.T) { checkHygiene(t, be, cl.Nodes, cl.Client(t)) })
	t.Run("acl", func(t *testing.T) {
		aclBe := openBackend(t, cl.AddUser(t, "ls", "pw", strings.Fields(backend.ACLRules)...))
		if !aclBe.Info().Cluster {
			t.Fatalf("ACL user on the cluster: %+v", aclBe.Info())
		}
		l, err := lessons.ByID("watchdog-renewal")
		if err != nil {
			t.Fatal(err)
		}
		run(t, aclBe, l, nil)
	})
	t.Run("owner-in-keys", func(t *testing.T) { clusterOwnerInKeys(t, cl) })
}

// TestACLUser runs the course as a user that may touch only Lockstep's keys
// and channels (backend.ACLRules), with the shared-Redis hygiene; without
// +info the backend opens and its header has no version; a refused command
// fails with a PermissionError naming the command and the rule to add.
func TestACLUser(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	be := openBackend(t, srv.AddUser(t, "ls", "pw", strings.Fields(backend.ACLRules)...))
	if be.Info().Version == "" {
		t.Fatalf("with +info the version is known: %+v", be.Info())
	}
	t.Run("lessons", func(t *testing.T) { sameAsEmbedded(t, be) })
	t.Run("hygiene", func(t *testing.T) { checkHygiene(t, be, []*redistest.Server{srv}, srv.Client(t)) })

	t.Run("no-info", func(t *testing.T) {
		rules := strings.Fields(strings.TrimSuffix(backend.ACLRules, " +info"))
		nb := openBackend(t, srv.AddUser(t, "noinfo", "pw", rules...))
		if info := nb.Info(); info.Version != "" || info.String() != "Redis at "+srv.Addr {
			t.Fatalf("without INFO: %+v (%s)", info, info)
		}
		l, err := lessons.ByID("nested-reentry")
		if err != nil {
			t.Fatal(err)
		}
		run(t, nb, l, nil)
	})

	refused := []struct {
		name, extra, command, rule string
	}{
		{"time", "-time", "TIME", "+time"},
		{"evalsha", "-evalsha", "EVALSHA", "+evalsha"},
		{"keys", "", "", "~lockstep:*"},
		{"channels", "", "", "&lockstep:*"},
	}
	for _, c := range refused {
		t.Run("refused-"+c.name, func(t *testing.T) {
			rules := strings.Fields(backend.ACLRules)
			switch c.name {
			case "keys":
				rules = append([]string{"&lockstep:*", "~other:*"}, rules[2:]...)
			case "channels":
				rules = append([]string{"~lockstep:*", "resetchannels"}, rules[2:]...)
			default:
				rules = append(rules, c.extra)
			}
			be := openBackend(t, srv.AddUser(t, "u"+c.name, "pw", rules...))
			l, err := lessons.ByID("watchdog-renewal") // its release publishes
			if err != nil {
				t.Fatal(err)
			}
			r, _ := newRunner(t, be, l)
			_, err = r.Run(context.Background())
			var pe *backend.PermissionError
			if !errors.Is(err, backend.ErrPermission) || !errors.As(err, &pe) {
				t.Fatalf("want a PermissionError, got %v", err)
			}
			if pe.Rule != c.rule || (c.command != "" && pe.Command != c.command) || pe.User != "u"+c.name {
				t.Fatalf("want %s refused, rule %s; got %+v", c.command, c.rule, pe)
			}
			if msg := err.Error(); !strings.Contains(msg, "ACL SETUSER u"+c.name+" "+c.rule) || !strings.Contains(msg, backend.ACLRules) {
				t.Fatalf("the message does not say what to add: %s", msg)
			}
		})
	}
}

// TestTLS runs the course over TLS (rediss://, the CA given as a file, as
// -redis-ca does), with the shared-Redis hygiene, also as an ACL user in
// the URL; without the CA the certificate is refused.
func TestTLS(t *testing.T) {
	t.Parallel()
	srv := redistest.StartTLS(t)
	open := func(t *testing.T, url string) *backend.Backend {
		be, err := backend.Open(context.Background(), backend.Config{URL: url, CAFile: srv.CAFile})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		return be
	}
	be := open(t, srv.URL)
	if info := be.Info(); !info.TLS || info.Version == "" {
		t.Fatalf("TLS backend info: %+v", info)
	}
	t.Run("lessons", func(t *testing.T) { sameAsEmbedded(t, be) })
	t.Run("hygiene", func(t *testing.T) { checkHygiene(t, be, []*redistest.Server{srv}, srv.Client(t)) })
	t.Run("acl-user", func(t *testing.T) {
		u := open(t, srv.AddUser(t, "ls", "pw", strings.Fields(backend.ACLRules)...))
		l, err := lessons.ByID("stale-owner")
		if err != nil {
			t.Fatal(err)
		}
		run(t, u, l, nil)
	})
	t.Run("no-ca", func(t *testing.T) {
		// 60 s to reach it: the check is the certificate's refusal, which
		// on a loaded machine (load 27 on 2 cores) came after the default
		// 3 s ("cannot reach Redis within 3s").
		if _, err := backend.Open(context.Background(), backend.Config{URL: srv.URL, DialTimeout: time.Minute}); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("without the CA: want a certificate error, got %v", err)
		}
		if _, err := backend.Open(context.Background(), backend.Config{URL: "redis://" + srv.Addr, CAFile: srv.CAFile}); err == nil || !strings.Contains(err.Error(), "rediss://") {
			t.Fatalf("a CA file with redis://: want an error saying so, got %v", err)
		}
	})
}
