// Package catalogtest gives tests the message catalogue (package catalog):
// the embedded one, built once per test.
package catalogtest

import (
	"testing"

	"lockstep/catalog"
)

// New returns the embedded message catalogue, failing tb if it cannot be
// built.
func New(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	c, err := catalog.New()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
