// Package docs holds Lockstep's documentation, and serves the guides that
// the pages link to (Handler): the variant file format that the "Your
// lock" page takes (variant-format.md), as text.
package docs

import (
	"bytes"
	"embed"
	"net/http"
	"strings"
	"time"
)

//go:embed variant-format.md
var guides embed.FS

// VariantFormatURL is the path under which a server that mounts Handler at
// /docs/ serves the variant file format.
const VariantFormatURL = "/docs/variant-format.md"

// Handler serves the embedded guides by name (the request's path with its
// prefix stripped: "variant-format.md") as UTF-8 text, which a browser
// shows as it is; any other name is a 404.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		b, err := guides.ReadFile(name)
		if err != nil || !strings.HasSuffix(name, ".md") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
