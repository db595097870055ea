package proxy

import (
	"testing"

	"lockstep/sim"
)

// ReplaySaved is replaySaved for the package's external tests.
func ReplaySaved(t *testing.T, saved Saved, url string) *sim.Lesson {
	t.Helper()
	return replaySaved(t, saved, url)
}
