package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// elements parses markup and returns its elements for which match
// reports true, in document order.
func elements(t *testing.T, markup string, match func(n *html.Node) bool) []*html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(markup))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	var out []*html.Node
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	}
	return out
}

// is matches elements named name (any name for "") whose attributes
// include each key=value pair of kv (key= for any value).
func is(name string, kv ...string) func(n *html.Node) bool {
	return func(n *html.Node) bool {
		if name != "" && n.Data != name {
			return false
		}
		for _, p := range kv {
			key, value, _ := strings.Cut(p, "=")
			found := false
			for _, a := range n.Attr {
				found = found || a.Key == key && (value == "" || a.Val == value)
			}
			if !found {
				return false
			}
		}
		return true
	}
}

// textIn is the text of markup's body, whitespace collapsed.
func textIn(t *testing.T, markup string) string {
	t.Helper()
	var b strings.Builder
	for _, body := range elements(t, markup, is("body")) {
		for n := range body.Descendants() {
			if n.Type == html.TextNode {
				b.WriteString(n.Data + " ")
			}
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// inlineScripts matches script elements that are not files (a lesson's
// text rendered as markup would make one).
func inlineScripts(n *html.Node) bool {
	return is("script")(n) && !is("script", "src=")(n)
}

const evil = `<script>alert("x")</script>`

func TestCourseEscapesLessonText(t *testing.T) {
	t.Parallel()
	markup := render(t, Course(CoursePage{
		Site: Site{Lang: "en", UI: UI{AppName: "Lockstep", CourseHeading: "Course"},
			Assets: Assets{CSS: "/static/app.css?v=1", JS: "/static/app.js?v=1", Icon: "/static/icon.svg?v=1"}},
		Groups: []CourseGroup{{Title: "Basics", Lessons: []CourseLesson{{Number: 1, ID: "x", Title: evil, Summary: evil, Variant: "token-count", Steps: 3, URL: "/lessons/x?lang=en"}}}},
	}))
	// The title and the summary, each in the row and in its info mark's box.
	if len(elements(t, markup, inlineScripts)) > 0 || strings.Count(textIn(t, markup), evil) != 4 {
		t.Fatalf("lesson text not escaped:\n%s", markup)
	}
	for what, match := range map[string]func(*html.Node) bool{
		"lang en":    is("html", "lang=en"),
		"its script": is("script", "type=module", "src=/static/app.js?v=1"),
		"the lesson": is("", "data-lesson=x", "data-steps=3"),
	} {
		if len(elements(t, markup, match)) != 1 {
			t.Errorf("course page lacks %s", what)
		}
	}
	if !strings.Contains(textIn(t, markup), "Basics") {
		t.Error("course page lacks its group's title")
	}
}

func TestPanelsEscape(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]templ.Component{
		"narration": NarrationPanel(NarrationView{Headline: evil, Say: evil, Outcome: "BUSY", OutcomeKind: "warn", Takeaway: evil}),
		"alerts":    AlertsPanel(AlertsView{Violations: []AlertItem{{Name: "stale-write", Title: evil, Detail: evil}}, Stale: []string{evil}}),
		"redis": RedisPanel(RedisView{Keys: []KeyView{{Name: evil, Type: "hash", Exists: true, Fields: []FieldView{{Name: evil, Value: evil, Changed: true, Old: evil}},
			PTTL: "1 ms", Bar: true, BarFrom: 1000, BarTo: 255}}}),
		"command":  CommandPanel(CommandView{Calls: []CallView{{Script: "a/b", SourceID: "src-a-b", Keys: []ArgView{{N: 1, Value: evil}}, Reply: evil, Lines: []SourceLine{{N: 1, Text: evil, Branch: true}}}}}),
		"diagram":  DiagramPanel(DiagramView{Lock: evil, DiagramDrawing: DiagramDrawing{Nodes: []DiagramNode{{State: "idle", Label: evil, Current: true}}, Edges: []DiagramEdge{{ID: "e", Label: []DiagramText{{Text: evil}}, Taken: true}}}}),
		"timeline": TimelinePanel(TimelineView{Lanes: []TLLane{{Name: evil}}, Columns: []TLColumn{{Title: evil, Texts: []TLText{{Text: evil}}}}}),
	} {
		markup := render(t, c)
		if len(elements(t, markup, inlineScripts)) > 0 || !strings.Contains(textIn(t, markup), evil) {
			t.Errorf("%s panel renders lesson text as markup:\n%s", name, markup)
		}
	}
}

func TestBarStyle(t *testing.T) {
	t.Parallel()
	if got := string(barStyle(1000, 255)); got != "--from:100.0%;--to:25.5%" {
		t.Fatalf("barStyle = %q", got)
	}
	markup := render(t, RedisPanel(RedisView{Keys: []KeyView{{Name: "lock:x", Type: "hash", Exists: true, PTTL: "1 ms", Bar: true, BarFrom: 1000, BarTo: 255}}}))
	if len(elements(t, markup, is("", "style=--from:100.0%;--to:25.5%;"))) != 1 {
		t.Fatalf("lease bar style missing:\n%s", markup)
	}
}
