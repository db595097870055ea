package examples

import (
	"embed"
	"fmt"
	"io/fs"

	"lockstep/sim"
)

// files are the example variant files and their Lua, embedded so that the
// "Your lock" page can offer them (view.LockExamples).
//
//go:embed variants/*.variant.yaml variants/*/*.lua
var files embed.FS

// LockFiles names the example locks the "Your lock" page offers, in its
// order: Redisson's RLock as Lua, and a copy whose release lost its owner
// check (which the page's course table and `lockstep search` catch).
var LockFiles = []string{"redisson-rlock.variant.yaml", "redisson-rlock-broken.variant.yaml"}

// Locks loads the example locks of LockFiles with sim.LoadVariant, their
// scripts read from the embedded files: each definition's Texts hold the
// variant file and every script by the path the file names it with. It
// returns an error naming the file when one does not load.
func Locks() ([]*sim.VariantDef, error) {
	dir, err := fs.Sub(files, "variants")
	if err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	var out []*sim.VariantDef
	for _, name := range LockFiles {
		d, err := sim.LoadVariant(name, nil, func(p string) ([]byte, error) { return fs.ReadFile(dir, p) })
		if err != nil {
			return nil, fmt.Errorf("examples: %s: %w", name, err)
		}
		out = append(out, d)
	}
	return out, nil
}
