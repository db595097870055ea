package webnet

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"

	"lockstep/static"
)

// compressedTypes are the media types of the answers compressed on the
// way out (HTML pages, the SVG export, and JSON, CSS and JavaScript should
// a page serve them): text that shrinks to a quarter or less.
func compressedTypes() []string {
	return []string{"text/html", "image/svg+xml", "application/json", "text/css", "text/javascript"}
}

// CompressPages wraps next, the server's routes, so that an answer of one
// of compressedTypes, of at least static.MinEncodeSize bytes, is
// compressed with gzip or zstd as the request's Accept-Encoding allows,
// with Vary: Accept-Encoding (gzhttp). A page is rendered per request, so
// it is compressed per request. gzip is preferred where both are offered:
// on a player page (38 KB, about 8 KB compressed) gzip's default level
// comes out some 2% smaller than zstd's default and costs about as much
// CPU, and zstd's better level, as small as gzip, costs twice as much;
// zstd's fastest is 8% larger (bench section 7). Chromium offers zstd
// (and brotli) only over https. Two routes are passed through as they
// are: /static/, whose files are compressed once, at start (package
// static), and /ws, whose messages are compressed per message by
// permessage-deflate (CompressWrites), so a step's round trip is not
// touched. Loopback peers are compressed too: a page is not on a step's
// round trip, and a test or a bench on loopback measures what a phone
// gets.
// With plain (web.Config.PlainPages), next is returned as it is.
func CompressPages(next http.Handler, plain bool) (http.Handler, error) {
	if plain {
		return next, nil
	}
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(static.MinEncodeSize),
		gzhttp.ContentTypes(compressedTypes()),
		gzhttp.ZstdCompressionLevel(2), // zstd.SpeedDefault
		gzhttp.PreferZstd(false),
	)
	if err != nil {
		return nil, fmt.Errorf("webnet: compression: %w", err)
	}
	compressed := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" || strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		compressed.ServeHTTP(w, r)
	}), nil
}
