// Package docs holds Lockstep's documentation, and serves the guides that
// the pages link to (Handler): the variant file format that the "Your
// lock" page takes (variant-format.md), as an HTML page in the site's
// style (its Markdown rendered once, when the handler is made) and as the
// Markdown file itself.
package docs

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

//go:embed variant-format.md
var guides embed.FS

// VariantFormatURL is the path under which a server that mounts Handler at
// /docs/ serves the variant file format as a page; VariantFormatURL+".md"
// is the Markdown file.
const VariantFormatURL = "/docs/variant-format"

// Guide is one guide rendered: its name ("variant-format"), its title (the
// text of its first heading) and its body as HTML (CommonMark with GitHub's
// tables; raw HTML in the Markdown is not passed through).
type Guide struct {
	Name, Title, HTML string
}

// Render renders every embedded guide with goldmark. It returns the guides
// by name, or an error naming the file that did not render.
func Render() (map[string]Guide, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	names, err := fs.Glob(guides, "*.md")
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	out := make(map[string]Guide, len(names))
	for _, file := range names {
		src, err := guides.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("docs: %s: %w", file, err)
		}
		doc := md.Parser().Parse(text.NewReader(src))
		var buf bytes.Buffer
		if err := md.Renderer().Render(&buf, src, doc); err != nil {
			return nil, fmt.Errorf("docs: %s: %w", file, err)
		}
		name := strings.TrimSuffix(file, ".md")
		out[name] = Guide{Name: name, Title: title(doc, src, name), HTML: buf.String()}
	}
	return out, nil
}

// title is the text of doc's first heading, else name.
func title(doc ast.Node, src []byte, name string) string {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			var b strings.Builder
			for c := h.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				} else if c.Kind() == ast.KindCodeSpan {
					for cc := c.FirstChild(); cc != nil; cc = cc.NextSibling() {
						if t, ok := cc.(*ast.Text); ok {
							b.Write(t.Segment.Value(src))
						}
					}
				}
			}
			return b.String()
		}
	}
	return name
}

// Handler serves the embedded guides by name, the request's path with its
// prefix stripped: "variant-format" through page, which writes the
// rendered guide as the site's page; "variant-format.md" as the Markdown,
// UTF-8 text; any other name is a 404. The guides are rendered here, once
// (Render's error).
func Handler(page func(w http.ResponseWriter, r *http.Request, g Guide)) (http.Handler, error) {
	rendered, err := Render()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if g, ok := rendered[name]; ok {
			page(w, r, g)
			return
		}
		b, err := guides.ReadFile(name)
		if err != nil || !strings.HasSuffix(name, ".md") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	}), nil
}
