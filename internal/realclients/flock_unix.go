//go:build unix

package realclients

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// flockDir takes an exclusive lock on dir/.install.lock, waiting for it,
// and returns its release.
func flockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("realclients: install lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("realclients: install lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
