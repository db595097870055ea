package static

import (
	"bytes"
	"fmt"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
)

// minifyCSS returns the stylesheet src minified by tdewolff/minify's CSS
// minifier (comments and spaces dropped, values shortened where the same),
// or an error naming what did not parse. It runs once per file as the
// package loads (pin), never per request. app.css is commented for its
// readers (why a rule, which issue, which test reads it); served as
// written, those comments were some 5 KB of a lesson page's 60 KB first
// load once gzipped (issue 34; TestBrowserFirstLoadBytes).
func minifyCSS(src []byte) ([]byte, error) {
	m := minify.New()
	var out bytes.Buffer
	if err := css.Minify(m, &out, bytes.NewReader(src), nil); err != nil {
		return nil, fmt.Errorf("minify css: %w", err)
	}
	return out.Bytes(), nil
}
