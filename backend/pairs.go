package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultMaxPairs bounds the started primary+replica pairs (two
// redis-server processes each) that run at once, when Config.MaxPairs is 0.
// Every run of the failover lesson on a URL starts one, and the web paths
// (player, exports, compare) can run many at once: 40 concurrent exports
// once made 76 processes (hardening finding 5).
const DefaultMaxPairs = 4

// pairDirPrefix starts the name of a started pair's working folder under
// os.TempDir(); the folder holds ownerFile, the PID of the Lockstep that
// started it.
const (
	pairDirPrefix = "lockstep-pair-"
	ownerFile     = "owner.pid"
)

// acquirePair waits for a free place among the backend's MaxPairs, until
// ctx ends, and returns the function that frees it.
func (b *Backend) acquirePair(ctx context.Context) (func(), error) {
	select {
	case b.pairSlots <- struct{}{}:
		return func() { <-b.pairSlots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("backend: %d primary+replica pairs already run, the most at once (Config.MaxPairs), and none ended in time: %w", cap(b.pairSlots), ctx.Err())
	}
}

// makePairDir makes a started pair's working folder, recording this
// process as its owner, after removing the folders of owners that died
// without removing theirs (kill -9: their processes ended with them, see
// endWithParent).
func makePairDir() (string, error) {
	sweepPairDirs(os.TempDir())
	dir, err := os.MkdirTemp("", pairDirPrefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// sweepPairDirs removes the pair folders under tmp whose owner has exited.
// A folder with no owner file may be one being made: it is left.
func sweepPairDirs(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, pairDirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid == os.Getpid() || !processGone(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}
