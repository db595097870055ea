// Package searches holds the course's search files: at least one per lock
// variant, in the format of shared/spec/search-format.md (documented in
// lessons/README.md), embedded into the binary.
package searches

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"lockstep/search"
)

//go:embed *.yaml
var files embed.FS

// All parses every embedded search file, ordered by file name, each named
// "searches/<name>". It fails on the first invalid file; tests keep that
// from happening.
func All() ([]*search.File, error) {
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("searches: %w", err)
	}
	sort.Strings(names)
	var out []*search.File
	for _, n := range names {
		src, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("searches: %w", err)
		}
		f, err := search.Parse("searches/"+n, src)
		if err != nil {
			return nil, fmt.Errorf("searches: %w", err)
		}
		out = append(out, f)
	}
	return out, nil
}
