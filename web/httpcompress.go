package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/zstd"

	"lockstep/static"
)

// compressedTypes are the media types of the answers compressed on the
// way out (HTML pages, the SVG export, and JSON, CSS and JavaScript should
// a page serve them): text that shrinks to a quarter or less.
var compressedTypes = []string{"text/html", "image/svg+xml", "application/json", "text/css", "text/javascript"}

// compressPages wraps next, the server's routes, so that an answer of one
// of compressedTypes, of at least static.MinEncodeSize bytes, is
// compressed with zstd or gzip as the request's Accept-Encoding allows
// (zstd preferred), with Vary: Accept-Encoding (gzhttp). A page is
// rendered per request, so it is compressed per request: gzip at its
// default level or zstd at its "better" level cost some 0.1 ms for a player's
// 38 KB, which comes to about 9.5 KB (bench: "serve a lesson page"). Two routes are passed through as
// they are: /static/, whose files are compressed once, at start (package
// static), and /ws, whose messages are compressed per message by
// permessage-deflate (compressWrites). Loopback peers are compressed too:
// unlike a websocket step, a page is not on the step's round trip, and a
// test or a bench on loopback measures what a phone gets.
func compressPages(next http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(static.MinEncodeSize),
		gzhttp.ContentTypes(compressedTypes),
		// zstd's fastest level leaves a player page 8% larger than gzip's
		// default; this one makes it no larger (TestCompressedAnswers logs both).
		gzhttp.ZstdCompressionLevel(int(zstd.SpeedBetterCompression)),
	)
	if err != nil {
		return nil, fmt.Errorf("web: compression: %w", err)
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
