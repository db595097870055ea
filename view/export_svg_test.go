package view

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"lockstep/static"
)

var cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

// TestTimelineSVGPalette checks that the colours copied into
// export_svg.css (listed in its header comment) are still app.css's.
func TestTimelineSVGPalette(t *testing.T) {
	t.Parallel()
	css, err := fs.ReadFile(static.FS(), "app.css")
	if err != nil {
		t.Fatal(err)
	}
	root := regexp.MustCompile(`(?s):root\s*\{(.*?)\}`).FindSubmatch(css)
	if root == nil {
		t.Fatal("app.css has no :root block")
	}
	prop := regexp.MustCompile(`(--[a-z-]+):\s*(#[0-9a-fA-F]{3,8})\b`)
	app := map[string]string{}
	for _, m := range prop.FindAllSubmatch(root[1], -1) {
		app[string(m[1])] = strings.ToLower(string(m[2]))
	}
	header := cssComment.FindString(exportSVGCSS)
	copied := prop.FindAllStringSubmatch(header, -1)
	if len(copied) == 0 {
		t.Fatal("export_svg.css lists no palette")
	}
	for _, m := range copied {
		if got, ok := app[m[1]]; !ok {
			t.Errorf("app.css's :root no longer defines %s", m[1])
		} else if got != strings.ToLower(m[2]) {
			t.Errorf("%s is %s in app.css but %s in export_svg.css: copy the new colour", m[1], got, m[2])
		}
	}
}
