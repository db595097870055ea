// Package static holds the player's stylesheet, script and icon, embedded
// into the binary. Files are served under /static/ with a content hash in
// their URL (URL), so browsers may cache them for good.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

//go:embed app.css app.js icon.svg
var files embed.FS

// FS returns the embedded files.
func FS() fs.FS { return files }

var hashes = func() map[string]string {
	out := map[string]string{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("static: " + err.Error())
	}
	for _, e := range entries {
		b, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic("static: " + err.Error())
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:6])
	}
	return out
}()

// URL returns the path of an embedded file under prefix with its content
// hash as a query, e.g. "/static/app.css?v=1a2b3c4d5e6f". It returns "" for
// a file that is not embedded.
func URL(prefix, name string) string {
	h, ok := hashes[name]
	if !ok {
		return ""
	}
	return prefix + name + "?v=" + h
}

// Names lists the embedded files.
func Names() []string {
	out := make([]string, 0, len(hashes))
	for n := range hashes {
		out = append(out, n)
	}
	return out
}
