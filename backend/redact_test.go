package backend

import (
	"context"
	"strings"
	"testing"
)

// TestRedisURLRedacted (issue 37, item 8): a -redis URL that does not
// parse, or that go-redis refuses, is reported without its password.
func TestRedisURLRedacted(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"redis://lockstep:s3cret-pw@127.0.0.1:notaport/0",
		"redis://lockstep:s3cret-pw@127.0.0.1:6379/notadb",
		"redis://:s3cret-pw@[::1/0",
		"rediss://lockstep:s3cret-pw@127.0.0.1:6379/0?addr=%zz",
	} {
		_, err := Open(context.Background(), Config{URL: u})
		if err == nil {
			t.Fatalf("%s: opened", RedactURL(u))
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if got := RedactURL("redis://u:p@h:bad/0"); got != "redis://u:xxxxx@h:bad/0" {
		t.Errorf("RedactURL: %q", got)
	}
	// Values that are no Redis URL at all (found by a fresh-eyes review):
	// none of them may be echoed.
	for _, u := range []string{":s3cret-pw@127.0.0.1:6379", "redis//:s3cret-pw@127.0.0.1:6379", "redis:/:s3cret-pw@127.0.0.1:6379",
		" redis://:s3cret-pw@127.0.0.1:6379", "s3cret-pw", "redis://:s3cret-pw@127.0.0.1:6379/0?protocol=x "} {
		if got := RedactURL(u); strings.Contains(got, "s3cret-pw") {
			t.Errorf("RedactURL(%q) = %q", u, got)
		}
		if _, err := Open(context.Background(), Config{URL: u}); err == nil || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("Open(%q): %v", u, err)
		}
	}
}
