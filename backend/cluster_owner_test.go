package backend_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/catalogtest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// clusterOwnerInKeys runs the count-key lock's lesson
// (examples/testdata/own), which passes the owner id as KEYS[2], on the
// cluster cl with custom scripts allowed. Redis Cluster hashes KEYS[2] (a
// grant token, not a key) to another slot than the lock key and refuses
// the acquire with CROSSSLOT at step 1. ExplainOwnerInKeys turns that
// into the owner-in-KEYS explanation naming the variant file's KEYS list
// (count-key.variant.yaml:14:16) that says, in every language, to pass the
// owner id in ARGV or hash-tag it; an error of a lock without the owner in
// KEYS is left as it is.
func clusterOwnerInKeys(t *testing.T, cl *redistest.Cluster) {
	dir := filepath.Join("..", "examples", "testdata", "own")
	l, err := sim.LoadFile(filepath.Join(dir, "count-key.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.Open(context.Background(), backend.Config{URL: cl.URL, AllowCustomScripts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	r, _ := newRunner(t, be, l)
	_, stepErr := r.Step(context.Background())
	var se *sim.ScriptError
	if !errors.As(stepErr, &se) || !strings.HasPrefix(se.Reply, "CROSSSLOT") {
		t.Fatalf("step 1: %v, want the script's CROSSSLOT reply", stepErr)
	}
	err = backend.ExplainOwnerInKeys(stepErr, l.VariantDef)
	var oe *backend.OwnerInKeysError
	if !errors.As(err, &oe) || oe.Perm != nil || oe.CrossSlot != se.Reply {
		t.Fatalf("explained: %#v, want an OwnerInKeysError of the Cluster", err)
	}
	if want := filepath.Join(dir, "count-key.variant.yaml") + ":14:16"; oe.Where != want || oe.Script != "acquire" {
		t.Errorf("names %s at %s, want acquire at %s", oe.Script, oe.Where, want)
	}
	if !errors.Is(err, stepErr) {
		t.Errorf("the explanation does not wrap the step's error")
	}
	cat := catalogtest.New(t)
	for _, loc := range sim.Locales {
		msg := cat.Error(loc, err)
		for _, want := range []string{"CROSSSLOT", "count-key.variant.yaml:14:16", "ARGV", "{…}"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", loc, msg, want)
			}
		}
	}
	// A lock whose warnings do not name the owner in KEYS: the reply as it came.
	plain := *l.VariantDef
	plain.Warnings = nil
	if got := backend.ExplainOwnerInKeys(stepErr, &plain); got != stepErr {
		t.Errorf("without the owner in KEYS: %v", got)
	}
}
