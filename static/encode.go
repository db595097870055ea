package static

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// MinEncodeSize is the smallest file, in bytes, that Handler serves
// compressed: below it the framing and the headers eat what compression
// saves (icon.svg, noscript.css), as gzhttp's default of 1 KiB for pages.
const MinEncodeSize = 1024

// encoding is one content coding of a file: its name in Accept-Encoding and
// Content-Encoding, and the body so encoded.
type encoding struct {
	name string
	body []byte
}

// encoded holds every file's encodings, made once by encodeAll on the
// first Handler call (a server's start) and never per request: a file's
// bytes never change in a running binary.
var encoded struct {
	once  sync.Once
	files map[string][]encoding
}

// encodeAll returns the encodings of every file of files that is at least
// MinEncodeSize bytes: gzip at its best level, which every browser offers,
// kept when it saves at least an eighth of the file. Measured on these
// files (docs/performance.md), zstd at its best level is no smaller than
// gzip's best and takes 1.6 s of CPU for all of them, and brotli's best is
// 13% smaller but takes 0.56 s at each start, for browsers that offer it
// only over HTTPS; a page's answer (web) is compressed with zstd where the
// browser offers it.
func encodeAll(files map[string]file) map[string][]encoding {
	out := map[string][]encoding{}
	for name, f := range files {
		if len(f.body) < MinEncodeSize {
			continue
		}
		var gz bytes.Buffer
		w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if err != nil {
			panic(err) // only for an invalid level
		}
		_, _ = w.Write(f.body) // a bytes.Buffer does not fail
		_ = w.Close()
		if gz.Len() <= len(f.body)-len(f.body)/8 {
			out[name] = append(out[name], encoding{"gzip", gz.Bytes()})
		}
	}
	return out
}

// encodingsOf returns name's encodings, made on first use.
func encodingsOf(name string) []encoding {
	encoded.once.Do(func() { encoded.files = encodeAll(files) })
	return encoded.files[name]
}

// pickEncoding returns the smallest of encs that the Accept-Encoding header
// accept allows (a coding listed without q=0, or "*"), or nil for the file
// as it is. RFC 9110 section 12.5.3.
func pickEncoding(accept string, encs []encoding) *encoding {
	var best *encoding
	for i := range encs {
		if accepts(accept, encs[i].name) && (best == nil || len(encs[i].body) < len(best.body)) {
			best = &encs[i]
		}
	}
	return best
}

// accepts reports whether the Accept-Encoding header accept allows coding.
func accepts(accept, coding string) bool {
	star := false
	for _, item := range strings.Split(accept, ",") {
		name, params, _ := strings.Cut(item, ";")
		name = strings.TrimSpace(name)
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch {
		case strings.EqualFold(name, coding):
			return q > 0
		case name == "*":
			star = q > 0
		}
	}
	return star
}

// setEncoding picks the body of name to answer r with, sets the headers
// that go with it (Vary and, for an encoding, Content-Encoding) and
// returns the body and its ETag (the hash, with the coding after it).
func setEncoding(h http.Header, r *http.Request, name string, f file) ([]byte, string) {
	encs := encodingsOf(name)
	if len(encs) == 0 {
		return f.body, `"` + f.hash + `"`
	}
	h.Add("Vary", "Accept-Encoding")
	e := pickEncoding(r.Header.Get("Accept-Encoding"), encs)
	if e == nil {
		return f.body, `"` + f.hash + `"`
	}
	h.Set("Content-Encoding", e.name)
	return e.body, `"` + f.hash + "-" + e.name + `"`
}
