package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"lockstep/internal/redistest"
)

// TestRunFailoverNamesThePair: lesson 20 needs a primary and a replica, so
// with --redis it runs on a redis-server pair it starts, not on the Redis at
// the URL, and the header (and the JSON's backend) says so; without --redis
// it runs on the embedded pair. The frames are the same.
func TestRunFailoverNamesThePair(t *testing.T) {
	const file = "../lessons/20-failover.yaml"
	code, emb, stderr := runCLI(t, file)
	if code != ExitOK {
		t.Fatalf("embedded: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(firstLine(emb), "embedded Redis pair (miniredis primary + replica)") {
		t.Errorf("embedded header: %q", firstLine(emb))
	}
	srv := redistest.Start(t)
	code, real, stderr := runCLI(t, file, "--redis", srv.URL)
	if code != ExitOK {
		t.Fatalf("real: exit %d\n%s", code, stderr)
	}
	h := firstLine(real)
	if !strings.Contains(h, "private primary+replica redis-server pair") || !strings.Contains(h, "not the Redis at "+srv.Addr) {
		t.Errorf("real header does not name the started pair instead of %s: %q", srv.Addr, h)
	}
	if rest(emb) != rest(real) {
		t.Error("frames differ between the embedded and the started pair")
	}
	code, out, stderr := runCLI(t, file, "--redis", srv.URL, "--json")
	if code != ExitOK {
		t.Fatalf("json: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Backend string `json:"backend"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Backend, "private primary+replica redis-server pair") {
		t.Errorf("JSON backend %q does not name the started pair", doc.Backend)
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func rest(s string) string { _, r, _ := strings.Cut(s, "\n"); return r }
