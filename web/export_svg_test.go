package web

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/view"
)

const svgNS = "http://www.w3.org/2000/svg"

// svgDoc is what the checks read from an exported document.
type svgDoc struct {
	root    xml.StartElement
	title   string // the root's <title>
	style   string // the <style> text
	classes map[string]bool
	text    string              // every character data, concatenated with spaces
	texts   map[string][]string // the <text> elements' own text by class, in order
}

// parseSVG decodes the document to EOF, failing the test on any XML error.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	doc := svgDoc{classes: map[string]bool{}, texts: map[string][]string{}}
	var stack []string
	var text, own strings.Builder
	textClass := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				doc.root = tok.Copy()
			}
			stack = append(stack, tok.Name.Local)
			for _, a := range tok.Attr {
				if a.Name.Local == "class" && a.Name.Space == "" {
					for _, c := range strings.Fields(a.Value) {
						doc.classes[c] = true
					}
					if tok.Name.Local == "text" {
						textClass = a.Value
						own.Reset()
					}
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tok.Name.Local == "text" {
				doc.texts[textClass] = append(doc.texts[textClass], own.String())
			}
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "text" {
				own.Write(tok)
			}
			switch {
			case len(stack) == 2 && stack[1] == "title":
				doc.title += string(tok)
			case len(stack) == 2 && stack[1] == "style":
				doc.style += string(tok)
			}
			text.WriteString(string(tok))
			text.WriteByte(' ')
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	doc.text = text.String()
	return doc
}

var (
	cssComment  = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cssBlock    = regexp.MustCompile(`(?s)\{[^}]*\}`)
	cssClassSel = regexp.MustCompile(`\.(-?[A-Za-z_][A-Za-z0-9_-]*)`)
)

// styledClasses are the class names that appear in the style's selectors.
func styledClasses(css string) map[string]bool {
	sel := cssBlock.ReplaceAllString(cssComment.ReplaceAllString(css, ""), " ")
	out := map[string]bool{}
	for _, m := range cssClassSel.FindAllStringSubmatch(sel, -1) {
		out[m[1]] = true
	}
	return out
}

// TestTimelineSVG exports every lesson of the course (and the test lessons)
// run to the end, in English and Simplified Chinese, and checks that the
// document stands alone. LOCKSTEP_SHOTS=DIR also writes each export there.
func TestTimelineSVG(t *testing.T) {
	t.Parallel()
	for _, l := range testLessons(t) {
		frames := expectedFrames(t, l)
		for _, loc := range []sim.Locale{sim.English, sim.SimplifiedChinese} {
			t.Run(l.ID+"/"+string(loc), func(t *testing.T) {
				info := backend.Info{Embedded: true}
				b, err := view.TimelineSVG(tr(loc), l, frames, info)
				if err != nil {
					t.Fatal(err)
				}
				if dir := os.Getenv("LOCKSTEP_SHOTS"); dir != "" {
					if err := os.WriteFile(filepath.Join(dir, "export-"+l.ID+"-"+string(loc)+".svg"), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.HasPrefix(b, []byte("<?xml ")) {
					t.Errorf("no XML declaration: %.40q", b)
				}
				doc := parseSVG(t, b)
				if doc.root.Name.Local != "svg" || doc.root.Name.Space != svgNS {
					t.Errorf("root is {%s}%s, want {%s}svg", doc.root.Name.Space, doc.root.Name.Local, svgNS)
				}
				attrs := map[string]string{}
				for _, a := range doc.root.Attr {
					attrs[a.Name.Local] = a.Value
				}
				var w, h int
				if _, err := fmt.Sscanf(attrs["viewBox"], "0 0 %d %d", &w, &h); err != nil {
					t.Errorf("viewBox %q: %v", attrs["viewBox"], err)
				}
				v := view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames, Cur: len(frames) - 1, Info: info})
				tv := v.Timeline()
				if w != tv.LabelWidth+tv.Width || h < tv.Height {
					t.Errorf("viewBox %q does not cover the labels (%d) beside the body (%d × %d)", attrs["viewBox"], tv.LabelWidth, tv.Width, tv.Height)
				}
				if attrs["width"] != fmt.Sprint(w) || attrs["height"] != fmt.Sprint(h) {
					t.Errorf("width %q height %q, want the viewBox's %d × %d", attrs["width"], attrs["height"], w, h)
				}
				if title := strings.TrimSpace(l.Title.In(loc)); title == "" || strings.TrimSpace(doc.title) != title {
					t.Errorf("<title> %q, want the lesson title %q", doc.title, title)
				}
				if doc.style == "" {
					t.Fatal("no <style>")
				}
				if strings.Contains(doc.style, "var(") {
					t.Error("the style still uses var()")
				}
				styled := styledClasses(doc.style)
				for c := range doc.classes {
					if !styled[c] {
						t.Errorf("class %q is used but no rule of the style names it", c)
					}
				}
				var labels []string
				for _, c := range tv.Columns {
					if c.Future {
						t.Errorf("column %d is a future column", c.Step)
					}
					labels = append(labels, c.Label)
				}
				if got := doc.texts["col-label"]; !slices.Equal(got, labels) {
					t.Errorf("column labels %q, want %q", got, labels)
				}
				if len(labels) != len(l.Steps)+1 {
					t.Errorf("%d columns for %d steps", len(labels), len(l.Steps))
				}
				for _, e := range tv.Legend {
					if !doc.classes["sw-"+e.Class] {
						t.Errorf("legend class %q has no swatch of its own in the export", e.Class)
					}
					if !strings.Contains(doc.text, e.Text) {
						t.Errorf("legend text %q is missing", e.Text)
					}
				}
				for _, ln := range tv.Lanes {
					if !strings.Contains(doc.text, ln.Name) {
						t.Errorf("lane %q is missing", ln.Name)
					}
				}
			})
		}
	}
}

// TestTimelineSVGErrors checks the arguments TimelineSVG refuses.
func TestTimelineSVGErrors(t *testing.T) {
	t.Parallel()
	l := testLessons(t)[0]
	frames := expectedFrames(t, l)
	if _, err := view.TimelineSVG(tr(sim.English), l, frames[:len(frames)-1], backend.Info{}); err == nil {
		t.Error("a partial run was accepted")
	}
	if _, err := view.TimelineSVG(tr(sim.English), nil, frames, backend.Info{}); err == nil {
		t.Error("a nil lesson was accepted")
	}
}

// TestTimelineSVGBrowser opens an export in headless Chromium, as a file
// served with its SVG media type, and checks that it renders at full size.
// With LOCKSTEP_SHOTS=DIR it also writes export-example.svg and .png (and a
// Simplified Chinese pair) there, for people to look at.
func TestTimelineSVGBrowser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	all := testLessons(t)
	l := staleLesson(t, all)
	frames := expectedFrames(t, l)
	for _, c := range []struct {
		loc  sim.Locale
		name string
	}{{sim.English, "export-example"}, {sim.SimplifiedChinese, "export-example-zh-CN"}} {
		b, err := view.TimelineSVG(tr(c.loc), l, frames, backend.Info{Embedded: true})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			_, _ = w.Write(b)
		}))
		run(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(hs.URL+"/timeline.svg"))
		var box struct {
			Root   string  `json:"root"`
			Errors int     `json:"errors"`
			W      float64 `json:"w"`
			H      float64 `json:"h"`
		}
		js := eval[string](t, ctx, `(() => {
			const s = document.querySelector('svg');
			const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
			return JSON.stringify({root: document.documentElement.namespaceURI + ' ' + document.documentElement.localName,
				errors: document.getElementsByTagName('parsererror').length, w: r.width, h: r.height});
		})()`)
		hs.Close()
		if err := json.Unmarshal([]byte(js), &box); err != nil {
			t.Fatal(err)
		}
		if box.Root != svgNS+" svg" || box.Errors != 0 {
			t.Errorf("%s: the browser's document is %q with %d parser errors", c.loc, box.Root, box.Errors)
		}
		if box.W < 400 || box.H < 200 {
			t.Errorf("%s: the svg's box is %.0f × %.0f px, want at least 400 × 200", c.loc, box.W, box.H)
		}
		// The whole drawing, at its own size.
		run(t, ctx, chromedp.EmulateViewport(int64(math.Ceil(box.W)), int64(math.Ceil(box.H))))
		png1, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(png1)); err != nil {
			t.Fatalf("screenshot is not a PNG: %v", err)
		}
		if dir := os.Getenv("LOCKSTEP_SHOTS"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, c.name+".svg"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.name+".png"), png1, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
