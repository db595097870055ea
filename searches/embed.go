// Package searches holds the course's search files: at least one per lock
// variant, in the format of shared/spec/search-format.md (documented in
// lessons/README.md), embedded into the binary.
package searches

import (
	"embed"
	"fmt"

	"lockstep/internal/embedfiles"
	"lockstep/search"
)

//go:embed *.yaml
var files embed.FS

// All parses every embedded search file, ordered by file name, each named
// "searches/<name>". It fails on the first invalid file; tests keep that
// from happening.
func All() ([]*search.File, error) {
	out, err := embedfiles.ParseAll(files, "searches", search.Parse)
	if err != nil {
		return nil, fmt.Errorf("searches: %w", err)
	}
	return out, nil
}
