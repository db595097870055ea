// Package static holds the player's stylesheet, icon and script, embedded
// into the binary, and serves them (Handler) under URLs with a content
// hash (URL), so browsers may cache them for good.
//
// The script is a set of ES modules with no build step: every page loads
// main.js, which imports (dynamically) the modules of what the page has,
// and those import the others. A module's relative imports ("./socket.js",
// import("./search.js")) would resolve to URLs without a hash, so the
// served body of each module pins them: the specifier "./x.js" of every
// such import becomes "./x.js?v=HASH", where HASH is the hash
// of x.js as served (its own imports pinned in turn). A module's hash thus
// covers everything it imports, and a page that loads main.js by its
// hashed URL loads every module by one: a change to any of them changes
// the URLs of it and of the modules that import it, and no others. Each
// import must name an embedded module and the imports must form no cycle;
// the package fails to load otherwise. The *.test.js files under test/ are
// node --test unit tests of the modules (see the Makefile's js-test), not
// embedded. A stylesheet is served minified (minify.go): its comments say
// why each rule is there, for us, and cost a phone's first load.
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

//go:embed *.css icon.svg *.js
var sources embed.FS

// contentTypes are the types of the files served, by extension; module
// scripts need a JavaScript type (browsers refuse others, with nosniff).
var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// file is an embedded file as served: its body (a module's imports
// pinned), its content hash and type.
type file struct {
	body        []byte
	hash        string
	contentType string
}

// files are the embedded files by name, built once: they never change in
// a running binary.
var files = func() map[string]file {
	out, err := pin(sources)
	if err != nil {
		panic(err)
	}
	return out
}()

// moduleImport matches a static relative import or re-export of a module
// in this directory at the start of a line (`import { a } from "./a.js"`,
// `import "./a.js"`, `export { a } from "./a.js"`), or a dynamic import of
// one anywhere (`import("./a.js")`, how main.js loads a page's modules);
// group 1 is the specifier. Other imports are left alone, and a module
// only uses these.
var moduleImport = regexp.MustCompile(`(?m)(?:^(?:import|export)\b[^;"'` + "`" + `]*?|\bimport\(\s*)"(\./[A-Za-z0-9_.-]+\.js)"`)

// pin reads every file of fsys's top directory and returns them as served:
// each module with its imports pinned to the hashes of what it imports.
// It returns an error for a file type it cannot serve, an import of a
// file that is not there, or an import cycle.
func pin(fsys fs.FS) (map[string]file, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	src := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("static: %w", err)
		}
		src[e.Name()] = b
	}
	out := map[string]file{}
	visiting := map[string]bool{}
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := out[name]; done {
			return nil
		}
		if visiting[name] {
			return fmt.Errorf("static: import cycle through %s", name)
		}
		visiting[name] = true
		defer delete(visiting, name)
		ct, ok := contentTypes[path.Ext(name)]
		if !ok {
			return fmt.Errorf("static: %s: no content type for its extension", name)
		}
		body := src[name]
		if path.Ext(name) == ".js" {
			var pinned bytes.Buffer
			last := 0
			for _, m := range moduleImport.FindAllSubmatchIndex(body, -1) {
				spec := string(body[m[2]:m[3]])
				dep := spec[len("./"):]
				if _, ok := src[dep]; !ok {
					return fmt.Errorf("static: %s imports %s, which is not embedded", name, spec)
				}
				if err := visit(dep); err != nil {
					return err
				}
				pinned.Write(body[last:m[3]])
				pinned.WriteString("?v=" + out[dep].hash)
				last = m[3]
			}
			pinned.Write(body[last:])
			body = pinned.Bytes()
		}
		if path.Ext(name) == ".css" {
			min, err := minifyCSS(body)
			if err != nil {
				return fmt.Errorf("static: %s: %w", name, err)
			}
			body = min
		}
		sum := sha256.Sum256(body)
		out[name] = file{body: body, hash: hex.EncodeToString(sum[:6]), contentType: ct}
		return nil
	}
	for name := range src {
		if err := visit(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FS returns the embedded files as written (a module's imports not
// pinned; Handler serves them pinned).
func FS() fs.FS { return sources }

// URL returns the path of an embedded file under prefix with its content
// hash as a query, e.g. "/static/app.css?v=1a2b3c4d5e6f". It returns "" for
// a file that is not embedded.
func URL(prefix, name string) string {
	f, ok := files[name]
	if !ok {
		return ""
	}
	return prefix + name + "?v=" + f.hash
}

// Names lists the embedded files, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(files))
}

// Handler serves the embedded files by name (the request's path, its
// prefix stripped: "app.js" or "/app.js"). A request whose v is the file's current
// hash may be cached for good (immutable); any other is served with
// no-cache, revalidated by its ETag (the hash). A file of MinEncodeSize
// bytes or more is served compressed when the request's Accept-Encoding
// allows (gzip), from bodies compressed once at the first call, never
// per request (encode.go). A name that is not an embedded file, a
// directory included, is a 404.
func Handler() http.Handler {
	encodingsOf("") // compress now, at the server's start, not on a request
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		f, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		if r.URL.Query().Get("v") == f.hash {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		h.Set("Content-Type", f.contentType)
		body, etag := setEncoding(h, r, name, f)
		h.Set("ETag", etag)
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	})
}
