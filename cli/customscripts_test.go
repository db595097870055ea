package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

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
		err = checkCustomScripts(context.Background(), be, c.url, c.classURL, c.unconfined)
		be.Close()
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
