package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const evil = `<script>alert("x")</script>`

func TestCourseEscapesLessonText(t *testing.T) {
	html := render(t, Course(CoursePage{
		Lang: "en", UI: UI{AppName: "Lockstep", CourseHeading: "Course"},
		Assets: Assets{CSS: "/static/app.css?v=1", JS: "/static/app.js?v=1", Icon: "/static/icon.svg?v=1"},
		Groups: []CourseGroup{{Title: "Basics", Lessons: []CourseLesson{{Number: 1, ID: "x", Title: evil, Summary: evil, Variant: "token-count", Steps: 3, URL: "/lessons/x?lang=en"}}}},
	}))
	if strings.Contains(html, "<script>alert") || !strings.Contains(html, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Fatalf("lesson text not escaped:\n%s", html)
	}
	for _, s := range []string{`<html lang="en">`, `<script type="module" src="/static/app.js?v=1">`, `data-lesson="x"`, `data-steps="3"`, "Basics"} {
		if !strings.Contains(html, s) {
			t.Errorf("course page lacks %s", s)
		}
	}
}

func TestPanelsEscape(t *testing.T) {
	for name, c := range map[string]templ.Component{
		"narration": NarrationPanel(NarrationView{Headline: evil, Say: evil, Outcome: "BUSY", OutcomeKind: "warn", Takeaway: evil}),
		"alerts":    AlertsPanel(AlertsView{Violations: []AlertItem{{Name: "stale-write", Title: evil, Detail: evil}}, Stale: []string{evil}}),
		"redis": RedisPanel(RedisView{Keys: []KeyView{{Name: evil, Type: "hash", Exists: true, Fields: []FieldView{{Name: evil, Value: evil, Changed: true, Old: evil}},
			PTTL: "1 ms", Bar: true, BarFrom: 1000, BarTo: 255}}}),
		"command":  CommandPanel(CommandView{Calls: []CallView{{Script: "a/b", SourceID: "src-a-b", Keys: []ArgView{{N: 1, Value: evil}}, Reply: evil, Lines: []SourceLine{{N: 1, Text: evil, Branch: true}}}}}),
		"diagram":  DiagramPanel(DiagramView{Lock: evil, Nodes: []DiagramNode{{State: "idle", Label: evil, Current: true}}, Edges: []DiagramEdge{{ID: "e", Label: []DiagramText{{Text: evil}}, Taken: true}}}),
		"timeline": TimelinePanel(TimelineView{Lanes: []TLLane{{Name: evil}}, Columns: []TLColumn{{Title: evil, Texts: []TLText{{Text: evil}}}}}),
	} {
		html := render(t, c)
		if strings.Contains(html, "<script>") {
			t.Errorf("%s panel renders lesson text as markup:\n%s", name, html)
		}
	}
}

func TestBarStyle(t *testing.T) {
	if got := string(barStyle(1000, 255)); got != "--from:100.0%;--to:25.5%" {
		t.Fatalf("barStyle = %q", got)
	}
	html := render(t, RedisPanel(RedisView{Keys: []KeyView{{Name: "lock:x", Type: "hash", Exists: true, PTTL: "1 ms", Bar: true, BarFrom: 1000, BarTo: 255}}}))
	if !strings.Contains(html, `style="--from:100.0%;--to:25.5%;"`) {
		t.Fatalf("lease bar style missing:\n%s", html)
	}
}
