// Package embedfiles parses the YAML files a package ships embedded (the
// course's lessons, the search files), one way for each of them.
package embedfiles

import (
	"io/fs"
	"sort"
)

// ParseAll parses every *.yaml file at the top of fsys in file-name order,
// naming each dir+"/"+its file name for parse (the name its errors give).
// It returns the values parse gave, or the first error (fs's or parse's)
// unwrapped: the caller prefixes its package.
func ParseAll[T any](fsys fs.FS, dir string, parse func(name string, src []byte) (T, error)) ([]T, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []T
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		v, err := parse(dir+"/"+n, src)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
