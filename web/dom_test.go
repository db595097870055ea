package web

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// dom is a parsed page or panel, for tests that check structure instead of
// the text of the markup.
type dom struct{ root *html.Node }

// parseDOM parses a page or a fragment of one (a panel's HTML).
func parseDOM(t testing.TB, markup string) dom {
	t.Helper()
	n, err := html.Parse(strings.NewReader(markup))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return dom{n}
}

// all returns the elements for which match reports true, in document order.
func (d dom) all(match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for n := range d.root.Descendants() {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	}
	return out
}

// withAttr matches elements whose attribute key is value ("" matches any
// value, as long as the element has the attribute).
func withAttr(key, value string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, ok := attr(n, key)
		return ok && (value == "" || v == value)
	}
}

// tag matches elements by name.
func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// one returns the only element that matches, failing the test otherwise.
func (d dom) one(t testing.TB, what string, match func(*html.Node) bool) *html.Node {
	t.Helper()
	got := d.all(match)
	if len(got) != 1 {
		t.Fatalf("%d elements %s, want 1", len(got), what)
	}
	return got[0]
}

// attr is n's attribute key and whether it has one.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textOf is the text inside n, its whitespace collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// undoState reports whether the explore tools' HTML has an Undo button and
// whether it is off.
func undoState(t testing.TB, tools string) (present, off bool) {
	t.Helper()
	b := parseDOM(t, tools).all(withAttr("data-explore", "undo"))
	if len(b) == 0 {
		return false, false
	}
	_, off = attr(b[0], "disabled")
	return true, off
}

// pageLang is the lang attribute of a page's html element.
func pageLang(t testing.TB, page string) string {
	t.Helper()
	lang, _ := attr(parseDOM(t, page).one(t, "html", tag("html")), "lang")
	return lang
}

// undoOff reports whether the explore tools have an Undo button that is off
// (failing the test when they have none).
func undoOff(t testing.TB, tools string) bool {
	t.Helper()
	on, off := undoState(t, tools)
	if !on {
		t.Fatalf("the explore tools have no Undo button: %s", tools)
	}
	return off
}

// undoTitle is the tooltip of the explore tools' Undo button.
func undoTitle(t testing.TB, tools string) string {
	t.Helper()
	title, _ := attr(parseDOM(t, tools).one(t, "Undo button", withAttr("data-explore", "undo")), "title")
	return title
}

// hasText reports whether the text of markup (whitespace collapsed)
// contains want (whitespace collapsed too).
func hasText(t testing.TB, markup, want string) bool {
	t.Helper()
	return parseDOM(t, markup).hasText(want)
}

// byTestID matches the element with a data-testid.
func byTestID(id string) func(*html.Node) bool { return withAttr("data-testid", id) }

// and matches elements that every one of match matches.
func and(match ...func(*html.Node) bool) func(*html.Node) bool {
	return func(n *html.Node) bool {
		for _, m := range match {
			if !m(n) {
				return false
			}
		}
		return true
	}
}

// hrefPrefix matches links whose href starts with prefix.
func hrefPrefix(prefix string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, ok := attr(n, "href")
		return n.Data == "a" && ok && strings.HasPrefix(v, prefix)
	}
}

// has reports whether some element matches.
func (d dom) has(match func(*html.Node) bool) bool { return len(d.all(match)) > 0 }

// text is the text of the only element that matches, failing the test
// otherwise.
func (d dom) text(t testing.TB, what string, match func(*html.Node) bool) string {
	t.Helper()
	return textOf(d.one(t, what, match))
}

// value is the value attribute of the only form field named name.
func (d dom) value(t testing.TB, name string) string {
	t.Helper()
	v, _ := attr(d.one(t, "field "+name, withAttr("name", name)), "value")
	return v
}

// hasAttr reports whether n has the attribute key.
func hasAttr(n *html.Node, key string) bool {
	_, ok := attr(n, key)
	return ok
}

// innerHTML is the markup of n's children as the parser built them.
func innerHTML(t testing.TB, n *html.Node) string {
	t.Helper()
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// parseFragment parses markup as the content of an element like context
// (same name and namespace: SVG inside an svg element).
func parseFragment(t testing.TB, markup string, context *html.Node) []*html.Node {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(markup), &html.Node{Type: html.ElementNode, Data: context.Data, DataAtom: context.DataAtom, Namespace: context.Namespace})
	if err != nil {
		t.Fatalf("parse fragment: %v", err)
	}
	return nodes
}

// fragmentHTML is markup parsed as the content of an element like context
// and rendered again, to compare with innerHTML.
func fragmentHTML(t testing.TB, markup string, context *html.Node) string {
	t.Helper()
	parent := &html.Node{Type: html.ElementNode, Data: context.Data, DataAtom: context.DataAtom, Namespace: context.Namespace}
	for _, n := range parseFragment(t, markup, context) {
		parent.AppendChild(n)
	}
	return innerHTML(t, parent)
}

// setInner replaces n's children with markup, as innerHTML = markup does.
func setInner(t testing.TB, n *html.Node, markup string) {
	t.Helper()
	for n.FirstChild != nil {
		n.RemoveChild(n.FirstChild)
	}
	for _, c := range parseFragment(t, markup, n) {
		n.AppendChild(c)
	}
}

// replaceWith puts markup (parsed in n's parent) where n is.
func replaceWith(t testing.TB, n *html.Node, markup string) {
	t.Helper()
	for _, c := range parseFragment(t, markup, n.Parent) {
		n.Parent.InsertBefore(c, n)
	}
	n.Parent.RemoveChild(n)
}

// childWith is n's first child element that match matches, nil if none.
func childWith(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && match(c) {
			return c
		}
	}
	return nil
}

// withClass matches elements with class among their classes.
func withClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, _ := attr(n, "class")
		return slices.Contains(strings.Fields(v), class)
	}
}

// setClass adds class to n's classes or removes it, as classList does.
func setClass(n *html.Node, class string, on bool) {
	v, _ := attr(n, "class")
	classes := slices.DeleteFunc(strings.Fields(v), func(c string) bool { return c == class })
	if on {
		classes = append(classes, class)
	}
	setAttr(n, "class", strings.Join(classes, " "))
}

// setAttr sets n's attribute key to value, adding it when n has none.
func setAttr(n *html.Node, key, value string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr[i].Val = value
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: value})
}

// hasText reports whether the page's text (whitespace collapsed) contains
// want (whitespace collapsed too).
func (d dom) hasText(want string) bool {
	return strings.Contains(textOf(d.root), strings.Join(strings.Fields(want), " "))
}

// shows reports whether s is the whole of some text on the page or the
// whole value of an attribute (a message id shown instead of its text).
func (d dom) shows(s string) bool {
	for n := range d.root.Descendants() {
		if n.Type == html.TextNode && n.Parent != nil && withClass("lane-id")(n.Parent) {
			// A lane's actor id (A1, a forked child of A) is the actor's
			// name, not a message id that leaked.
			continue
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) == s {
			return true
		}
		for _, a := range n.Attr {
			if a.Val == s {
				return true
			}
		}
	}
	return false
}

// attrContains matches elements with an attribute whose value contains s.
func attrContains(s string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		for _, a := range n.Attr {
			if strings.Contains(a.Val, s) {
				return true
			}
		}
		return false
	}
}

// offOrigin lists the src, href and action attributes that point away from
// the page's origin (an absolute or scheme-relative URL).
func (d dom) offOrigin() []string {
	var out []string
	for _, n := range d.all(func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if a.Key != "src" && a.Key != "href" && a.Key != "action" {
				continue
			}
			if v := strings.ToLower(strings.TrimSpace(a.Val)); strings.HasPrefix(v, "//") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
				out = append(out, a.Key+"="+a.Val)
			}
		}
	}
	return out
}

// sameTree reports whether a and b are the same tree: node types, names,
// namespaces, attributes (in order) and text.
func sameTree(a, b *html.Node) bool {
	if a.Type != b.Type || a.Data != b.Data || a.Namespace != b.Namespace || !slices.Equal(a.Attr, b.Attr) {
		return false
	}
	ca, cb := a.FirstChild, b.FirstChild
	for ; ca != nil && cb != nil; ca, cb = ca.NextSibling, cb.NextSibling {
		if !sameTree(ca, cb) {
			return false
		}
	}
	return ca == nil && cb == nil
}
