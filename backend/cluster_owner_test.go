package backend_test

import (
	"context"
	"errors"
	"fmt"
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

// TestOwnerInKeysInTheStepsError: the explanation takes the place of the
// step's own error inside a *sim.StepRunError, under the error's other
// wrappers, so a consumer that reads the step's error (the CLI's run,
// StepRunError.Err) reads the explanation with the step's number (a review
// of issue 33 found cli special-casing it); explaining again changes
// nothing.
func TestOwnerInKeysInTheStepsError(t *testing.T) {
	def, err := sim.LoadVariantFile(filepath.Join("..", "examples", "testdata", "own", "count-key.variant.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	reply := &sim.ScriptError{Script: "count-key/acquire", Reply: "CROSSSLOT Keys in request don't hash to the same slot"}
	wrapped := fmt.Errorf("web: %w", &sim.StepRunError{Step: 3, Do: sim.ActAcquire, Err: reply})
	got := backend.ExplainOwnerInKeys(wrapped, def)
	var sre *sim.StepRunError
	if !errors.As(got, &sre) || sre.Step != 3 || !strings.HasPrefix(got.Error(), "web: ") {
		t.Fatalf("explained: %v, want the step's error under its wrapper", got)
	}
	oe, ok := sre.Err.(*backend.OwnerInKeysError)
	if !ok || oe.CrossSlot != reply.Reply || !errors.Is(oe, reply) {
		t.Fatalf("the step's error is %#v, want the explanation wrapping the reply", sre.Err)
	}
	if again := backend.ExplainOwnerInKeys(got, def); again != got || sre.Err != oe {
		t.Errorf("explained twice: %v", again)
	}
}
