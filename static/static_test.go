package static

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// pinnedImport is an import as served: pinned to the imported file's hash.
var pinnedImport = regexp.MustCompile(`(?m)(?:^(?:import|export)\b[^;"'` + "`" + `]*?|\bimport\(\s*)"\./([A-Za-z0-9_.-]+\.js)\?v=([0-9a-f]{12})"`)

func serve(t *testing.T, target string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec.Result()
}

// TestModulesPinned loads the module graph from main.js as a browser does
// (its static and dynamic imports),
// by the URLs the served bodies name, and checks that every module is
// reached, served as JavaScript and cacheable for good, and that each
// import names the hash of what it imports.
func TestModulesPinned(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	var load func(name, hash string)
	load = func(name, hash string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if want := URL("", name); want != name+"?v="+hash {
			t.Fatalf("%s is imported as ?v=%s, its URL is %s", name, hash, want)
		}
		resp := serve(t, "/"+name+"?v="+hash, nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", name, resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", name, ct)
		}
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q", name, cc)
		}
		if n := strings.Count(string(body), `from "./`) + strings.Count(string(body), `import("./`); n != len(pinnedImport.FindAll(body, -1)) {
			t.Errorf("%s: %d relative imports, %d of them pinned", name, n, len(pinnedImport.FindAll(body, -1)))
		}
		for _, m := range pinnedImport.FindAllSubmatch(body, -1) {
			load(string(m[1]), string(m[2]))
		}
	}
	entry := URL("", "main.js")
	load("main.js", entry[strings.Index(entry, "=")+1:])
	for _, name := range Names() {
		if strings.HasSuffix(name, ".js") && !seen[name] {
			t.Errorf("%s is embedded but no module imports it", name)
		}
	}
	if len(seen) < 6 {
		t.Errorf("main.js reaches %d modules", len(seen))
	}
}

func TestHandlerCaching(t *testing.T) {
	t.Parallel()
	u := URL("/", "app.css")
	resp := serve(t, u, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Fatalf("%s: %d %q", u, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	// An old page's hash, or none: the current file, revalidated each time.
	for _, target := range []string{"/app.css?v=000000000000", "/app.css"} {
		if cc := serve(t, target, nil).Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s: Cache-Control %q", target, cc)
		}
	}
	if resp := serve(t, "/app.css", http.Header{"If-None-Match": {etag}}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %d", resp.StatusCode)
	}
	if ct := serve(t, URL("/", "icon.svg"), nil).Header.Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("icon.svg: Content-Type %q", ct)
	}
	for _, target := range []string{"/", "/test/socket.test.js", "/static.go", "/package.json", "/nope.js"} {
		if resp := serve(t, target, nil); resp.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", target, resp.StatusCode)
		}
	}
}

// threeModules is a.js importing b.js and c.js, b.js importing c.js, whose
// body is c.
func threeModules(c string) fstest.MapFS {
	return fstest.MapFS{
		"a.js": {Data: []byte("import { b } from \"./b.js\";\nimport \"./c.js\";\nexport { c } from \"./c.js\";\n" +
			"// import x from \"./nope.js\" is a comment\nconst s = 'from \"./b.js\"';\nif (go) import(\"./b.js\").then(run);\n")},
		"b.js": {Data: []byte("import { c } from \"./c.js\";\nexport const b = c;\n")},
		"c.js": {Data: []byte(c)},
	}
}

func TestPin(t *testing.T) {
	t.Parallel()
	files, err := pin(threeModules("export const c = 1;\n"))
	if err != nil {
		t.Fatal(err)
	}
	ha, hb, hc := files["a.js"].hash, files["b.js"].hash, files["c.js"].hash
	want := "import { b } from \"./b.js?v=" + hb + "\";\nimport \"./c.js?v=" + hc + "\";\nexport { c } from \"./c.js?v=" + hc +
		"\";\n// import x from \"./nope.js\" is a comment\nconst s = 'from \"./b.js\"';\nif (go) import(\"./b.js?v=" + hb + "\").then(run);\n"
	if got := string(files["a.js"].body); got != want {
		t.Errorf("a.js served as\n%s\nwant\n%s", got, want)
	}
	if got := string(files["b.js"].body); got != "import { c } from \"./c.js?v="+hc+"\";\nexport const b = c;\n" {
		t.Errorf("b.js served as %q", got)
	}
	// A change to c.js changes the hashes of everything that imports it.
	again, err := pin(threeModules("export const c = 2;\n"))
	if err != nil {
		t.Fatal(err)
	}
	if again["a.js"].hash == ha || again["b.js"].hash == hb || again["c.js"].hash == hc {
		t.Error("a changed import kept its importer's hash")
	}
}

func TestPinErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fsys fstest.MapFS
		want string // the error's start; a cycle is named at either of its files
	}{
		{fstest.MapFS{"a.js": {Data: []byte("import { x } from \"./gone.js\";\n")}}, "static: a.js imports ./gone.js, which is not embedded"},
		{fstest.MapFS{"a.js": {Data: []byte("if (x) import(\"./gone.js\");\n")}}, "static: a.js imports ./gone.js, which is not embedded"},
		{fstest.MapFS{
			"a.js": {Data: []byte("import { b } from \"./b.js\";\n")},
			"b.js": {Data: []byte("import { a } from \"./a.js\";\n")},
		}, "static: import cycle through "},
		{fstest.MapFS{"notes.txt": {Data: []byte("x")}}, "static: notes.txt: no content type for its extension"},
	} {
		if _, err := pin(c.fsys); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
