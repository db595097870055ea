package search

import (
	"errors"
	"testing"
)

// FuzzDecode feeds the search-file decoder and validator arbitrary text: it
// must never panic, and must either accept a file or reject it with
// positioned problems wrapping ErrInvalid.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(goodHead))
	f.Add([]byte(goodHead + "moves: [acquire, release, write, pause, resume, crash]\nadvance: [31s]\ndepth: 8\ninvariants: [stale-write]\n"))
	f.Add([]byte("title: {en: x, zh-CN: y}\nvariant: instance-owner\nlease: 1s\nfencing: true\nlock: a:b\nactors:\n  - {id: A, instance: s, name: {en: A}}\n"))
	f.Add([]byte("[[[[{"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.yaml", src)
		switch {
		case err == nil && file == nil:
			t.Fatal("no file and no error")
		case err != nil && !errors.Is(err, ErrInvalid):
			t.Fatalf("error %v does not wrap ErrInvalid", err)
		case err == nil && (file.Depth < 1 || file.Depth > MaxDepth || len(file.Actors) == 0 || len(file.Moves) == 0 || len(file.Advance) == 0):
			t.Fatalf("accepted a file outside the format: %+v", file)
		}
	})
}
