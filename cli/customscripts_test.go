package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/redistest"
)

// TestAllowCustomScriptsChecksTheUser: -allow-custom-scripts gives every
// visitor's Lua the Redis user's power, so serve refuses a user that may
// touch keys or channels outside Lockstep's unless the operator confirms
// with -allow-custom-scripts-unconfined, refuses to share a user (or the
// classes' keys) with -classroom-redis, and says at start what it gives
// away (issue 37, item 4).
func TestAllowCustomScriptsChecksTheUser(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	// The default user may do anything: refused, by name of the flags.
	var out, errw bytes.Buffer
	code := Serve(context.Background(), []string{"-addr", "127.0.0.1:0", "-redis", srv.URL, "-allow-custom-scripts"}, &out, &errw)
	if code != ExitInvalid || !strings.Contains(errw.String(), "-"+unconfinedFlag) || !strings.Contains(errw.String(), "-allow-custom-scripts") {
		t.Fatalf("an unconfined user: exit %d, %s", code, errw.String())
	}
	confined := srv.AddUser(t, "lockstep", "pw", strings.Fields(backend.ACLRules)...)
	runsOnly := srv.AddUser(t, "runs", "pw", "~lockstep:{run-*", "&lockstep:{run-*", "+@all", "-@dangerous")
	classes := srv.AddUser(t, "classes", "pw", strings.Fields(backend.ACLRules)...)
	for _, c := range []struct {
		name, url, classURL string
		unconfined, ok      bool
	}{
		{"unconfined, confirmed", srv.URL, "", true, true},
		{"confined", confined, "", false, true},
		{"same user as the classes", confined, confined, false, false},
		{"another user that reaches the classes' keys", confined, classes, true, false},
		{"a user of the runs' keys only", runsOnly, classes, false, true},
	} {
		be, err := backend.Open(context.Background(), backend.Config{URL: c.url, AllowCustomScripts: true})
		if err != nil {
			t.Fatal(err)
		}
		err = checkCustomScripts(context.Background(), be, c.url, c.classURL, "", c.unconfined)
		be.Close()
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestCustomScriptsAdviceWorks: the ACL SETUSER that -allow-custom-scripts
// prints when it refuses a user, applied as printed, gives a user that the
// check accepts and that may still publish on its runs' channels (a lock
// that publishes on release, Redisson's, does): the advice for a user that
// reaches the classes lacked the channel pattern (a fresh-eyes review of
// issue 37).
func TestCustomScriptsAdviceWorks(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	admin := srv.Client(t)
	ctx := context.Background()
	classes := srv.AddUser(t, "classes", "pw", strings.Fields(backend.ACLRules)...)
	for _, c := range []struct {
		name, user, classURL string
	}{
		{"a user outside Lockstep's keys", "wide", ""},
		{"a user that reaches the classes", "runs", classes},
	} {
		url := srv.AddUser(t, c.user, "pw", "~*", "&*", "+@all", "-@dangerous")
		if c.classURL != "" {
			url = srv.AddUser(t, c.user, "pw", strings.Fields(backend.ACLRules)...)
		}
		check := func() error {
			be, err := backend.Open(ctx, backend.Config{URL: url, AllowCustomScripts: true})
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			return checkCustomScripts(ctx, be, url, c.classURL, "", false)
		}
		err := check()
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		msg := err.Error()
		i := strings.Index(msg, "ACL SETUSER ")
		j := strings.Index(msg[i:], ")")
		if i < 0 || j < 0 {
			t.Fatalf("%s: no ACL SETUSER in %q", c.name, msg)
		}
		args := []any{}
		for _, f := range strings.Fields(msg[i : i+j]) {
			args = append(args, f)
		}
		if err := admin.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%s: %v: %v", c.name, args, err)
		}
		if err := check(); err != nil {
			t.Errorf("%s: after the advice (%v): %v", c.name, args, err)
		}
		u := redis.NewClient(&redis.Options{Addr: srv.Addr, Username: c.user, Password: "pw", Protocol: 2, DisableIdentity: true})
		defer u.Close()
		if err := u.Publish(ctx, backend.KeyNamespace+"{run-0123456789ab}:lock:channel", "0").Err(); err != nil {
			t.Errorf("%s: after the advice (%v), a run's channel: %v", c.name, args, err)
		}
	}
}

// TestCustomScriptsKnowOneServerByItsID: -allow-custom-scripts and
// -classroom-redis on one Redis are told apart by what the servers say they
// are (INFO's run_id), not by the URLs' host text: the same server spelled
// 127.0.0.1 and localhost, with the same user, passed the check, and a
// visitor's script could then reach a class's state (a fresh-eyes attack
// on issue 37). A server that refuses INFO counts as the same one; two
// servers that answer it are two.
func TestCustomScriptsKnowOneServerByItsID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, other := redistest.Start(t), redistest.Start(t)
	rules := strings.Fields(backend.ACLRules)
	noInfo := append(append([]string{}, rules...), "-info")
	confined := srv.AddUser(t, "lockstep", "pw", rules...)
	elsewhere := other.AddUser(t, "lockstep", "pw", rules...)
	blind := srv.AddUser(t, "blind", "pw", noInfo...)
	blindElsewhere := other.AddUser(t, "blind", "pw", noInfo...)
	for _, c := range []struct {
		name, url, classURL string
		ok                  bool
		says                string
	}{
		{"one server, as 127.0.0.1 and as localhost", confined, strings.Replace(confined, "127.0.0.1", "localhost", 1), false, "share Redis user lockstep"},
		{"two servers, one user name", confined, elsewhere, true, ""},
		{"two servers that refuse INFO", blind, blindElsewhere, false, "INFO was refused"},
	} {
		be, err := backend.Open(ctx, backend.Config{URL: c.url, AllowCustomScripts: true})
		if err != nil {
			t.Fatal(err)
		}
		err = checkCustomScripts(ctx, be, c.url, c.classURL, "", false)
		be.Close()
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ok %v saying %q", c.name, err, c.ok, c.says)
		}
	}
}

// TestRunExplainsOwnerInKeys: `lockstep run` of the count-key lesson
// (examples/testdata/own: the owner id in KEYS[2]) with a user confined to
// Lockstep's keys (backend.ACLRules): Redis refuses the owner id as a key,
// and run says why, naming the variant file's KEYS list and ARGV, as the
// player does, in English and zh-CN; it printed the bare NOPERM (a
// fresh-eyes review of issue 33).
func TestRunExplainsOwnerInKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	confined := srv.AddUser(t, "lockstep", "pw", strings.Fields(backend.ACLRules)...)
	for _, lang := range []string{"en", "zh-CN"} {
		var out, errw bytes.Buffer
		code := Run(context.Background(), []string{"../examples/testdata/own/count-key.lesson.yaml", "--redis", confined, "--allow-custom-scripts", "--lang", lang}, &out, &errw)
		// The error's line, not the variant's warnings before it (which
		// name the place too).
		msg := ""
		for _, line := range strings.Split(errw.String(), "\n") {
			if strings.HasPrefix(line, "lockstep: ") {
				msg = line
			}
		}
		if code != ExitInvalid || !strings.Contains(msg, "count-key.variant.yaml:14:16") || !strings.Contains(msg, "ARGV") {
			t.Errorf("%s: exit %d, %s; want the owner in KEYS named at count-key.variant.yaml:14:16", lang, code, msg)
		}
	}
}
