package examples_test

import (
	"path"
	"testing"

	"lockstep/examples"
)

// TestLocks: the example locks load from the embedded files, each with its
// variant file and the three scripts it names (acquire, renew, release).
func TestLocks(t *testing.T) {
	ds, err := examples.Locks()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(examples.LockFiles) {
		t.Fatalf("%d locks for %d files", len(ds), len(examples.LockFiles))
	}
	for i, d := range ds {
		if d.File != examples.LockFiles[i] || d.Texts[d.File] == "" {
			t.Errorf("lock %d: file %q, want %q with its text", i, d.File, examples.LockFiles[i])
		}
		scripts := 0
		for name, text := range d.Texts {
			if path.Ext(name) == ".lua" && text != "" {
				scripts++
			}
		}
		if scripts != 3 {
			t.Errorf("%s: %d scripts, want 3", d.Name, scripts)
		}
	}
}
