//go:build !linux

package backend

import "os/exec"

// endWithParent does nothing where the kernel has no parent-death signal:
// a started pair is then ended only by Store.Close.
func endWithParent(*exec.Cmd) {}

// processGone reports false: without /proc, an owner is taken to live, and
// its pair's folder is left to the system's temporary-file cleaning.
func processGone(int) bool { return false }
