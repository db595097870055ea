// Package lessons holds Lockstep's course: one YAML file per lesson in the
// format of docs/lesson-format.md (documented for authors in
// lessons/README.md), embedded into the binary.
package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"lockstep/internal/embedfiles"
	"lockstep/sim"
)

//go:embed *.yaml
var files embed.FS

// FS returns the embedded lesson files.
func FS() fs.FS { return files }

// All loads every embedded lesson, ordered by file name (the course order:
// files start with a two-digit number). It fails on the first invalid file;
// tests keep that from happening.
func All() ([]*sim.Lesson, error) {
	out, err := embedfiles.ParseAll(files, "lessons", sim.Load)
	if err != nil {
		return nil, fmt.Errorf("lessons: %w", err)
	}
	return out, nil
}

// ByID returns the embedded lesson with the given id.
func ByID(id string) (*sim.Lesson, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	for _, l := range all {
		if l.ID == id {
			return l, nil
		}
	}
	return nil, fmt.Errorf("lessons: no lesson %q", strings.TrimSpace(id))
}
