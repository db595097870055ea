package view

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/templates"
)

// exportSVGCSS holds the timeline's rules for a standalone SVG: the rules of
// static/app.css with its custom properties resolved to the light theme.
//
//go:embed export_svg.css
var exportSVGCSS string

// exportSansTC replaces the sans-serif stack for Traditional Chinese, as
// app.css's :lang(zh-TW) does.
const exportSansTC = `system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK TC", "WenQuanYi Micro Hei", "PingFang TC", "Microsoft JhengHei", sans-serif`

// Geometry of the parts the player draws in HTML: the legend row below the
// lanes.
const (
	svgLegendPad  = 12 // margin around the legend
	svgLegendRowH = 22
	svgSwatchW    = 22
	svgSwatchH    = 12
	svgLegendGap  = 18 // between two legend entries
	svgLegendUnit = 7  // px per textUnits unit at the legend's 12px
)

// TimelineSVG draws a whole run of a lesson as one standalone SVG document:
// the player's timeline (label column and lanes side by side, every column
// a past step, the last one current) with its legend below, titled with the
// lesson's title, its styles inlined with literal colours. frames is the
// run: frames[0] the start and frames[i] the state after step i, one per
// step of the lesson. info names the Redis the run used, as the player's
// Redis lane does. t gives the texts, in its locale.
func TimelineSVG(t Texts, l *sim.Lesson, frames []sim.Frame, info backend.Info) ([]byte, error) {
	if l == nil {
		return nil, errors.New("view: TimelineSVG: no lesson")
	}
	loc := t.Locale()
	if want := len(l.Steps) + 1; len(frames) != want {
		return nil, fmt.Errorf("view: TimelineSVG: lesson %s has %d steps: want %d frames (a whole run), got %d", l.ID, len(l.Steps), want, len(frames))
	}
	v := &Step{t: t, lesson: l, frames: frames, cur: len(frames) - 1, info: info}
	return writeTimelineSVG(v.Timeline(), strings.TrimSpace(l.Title.In(loc)), loc), nil
}

// svgWriter writes SVG elements with every attribute and text XML-escaped.
type svgWriter struct{ bytes.Buffer }

// open writes a start tag; attrs are name, value pairs (ints or strings).
func (w *svgWriter) open(name string, attrs ...any) {
	w.WriteByte('<')
	w.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		var val string
		switch a := attrs[i+1].(type) {
		case int:
			val = strconv.Itoa(a)
		case string:
			val = a
		case float64:
			val = strconv.FormatFloat(a, 'f', -1, 64)
		default:
			val = fmt.Sprint(a)
		}
		w.WriteByte(' ')
		w.WriteString(attrs[i].(string))
		w.WriteString(`="`)
		_ = xml.EscapeText(w, []byte(val))
		w.WriteByte('"')
	}
	w.WriteByte('>')
}

func (w *svgWriter) close(name string) {
	w.WriteString("</")
	w.WriteString(name)
	w.WriteString(">\n")
}

// elem writes an element with text content (escaped) or none.
func (w *svgWriter) elem(name, text string, attrs ...any) {
	w.open(name, attrs...)
	w.text(text)
	w.close(name)
}

func (w *svgWriter) text(s string) { _ = xml.EscapeText(w, []byte(s)) }

// titled writes an element whose text is followed by a <title> tooltip.
func (w *svgWriter) titled(name, text, title string, attrs ...any) {
	w.open(name, attrs...)
	w.text(text)
	if title != "" {
		w.elem("title", title)
	}
	w.close(name)
}

// writeTimelineSVG lays out tv as the player does, the label column at x 0
// and the body translated right by its width, and the legend below.
func writeTimelineSVG(tv templates.TimelineView, title string, loc sim.Locale) []byte {
	width := tv.LabelWidth + tv.Width
	legend, legendH := svgLayoutLegend(tv.Legend, width)
	height := tv.Height + legendH

	var w svgWriter
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.open("svg", "xmlns", "http://www.w3.org/2000/svg", "version", "1.1", "class", "tl-export",
		"width", width, "height", height, "viewBox", svgViewBox(width, height),
		"xml:lang", string(loc), "role", "img", "aria-labelledby", "tl-export-title tl-export-desc")
	w.WriteByte('\n')
	w.elem("title", title, "id", "tl-export-title")
	w.elem("desc", tv.UI.TimelineHelp, "id", "tl-export-desc")
	w.WriteString("<style><![CDATA[\n")
	w.WriteString(exportSVGCSS)
	if loc == sim.TraditionalChinese {
		w.WriteString(".tl-export { font-family: " + exportSansTC + "; }\n")
	}
	w.WriteString("]]></style>\n")
	// The patterns and the arrowhead of the player's body (orient="auto"
	// rather than SVG 2's auto-start-reverse: only marker-end is used).
	w.WriteString(`<defs>
<pattern id="tl-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="hatch-bg" width="8" height="8"/><line class="hatch-line" x1="0" y1="0" x2="0" y2="8"/></pattern>
<pattern id="tl-stripes" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><line class="stripe-line" x1="0" y1="0" x2="0" y2="10"/></pattern>
<marker id="tl-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path class="tl-arrowhead" d="M0 0 10 5 0 10z"/></marker>
</defs>
`)
	w.elem("rect", "", "class", "tl-export-bg", "x", 0, "y", 0, "width", width, "height", height)

	// The label column.
	w.open("g")
	w.WriteByte('\n')
	w.elem("rect", "", "class", "tl-labels-bg", "x", 0, "y", 0, "width", tv.LabelWidth, "height", tv.Height)
	w.titled("text", Clip(title, 26), title, "class", "tl-heading", "x", 10, "y", tv.HeaderH/2+4)
	for _, l := range tv.Lanes {
		cls := "lane-label " + l.Kind
		if l.Faint {
			cls += " faint"
		}
		w.open("g", "class", cls)
		w.elem("rect", "", "class", "lane-label-bg", "x", 0, "y", l.Y, "width", tv.LabelWidth, "height", l.H)
		w.elem("text", l.Name, "class", "lane-name", "x", 10, "y", l.Y+18)
		w.elem("text", l.Sub, "class", "lane-sub", "x", 10, "y", l.Y+33)
		for _, r := range l.Rows {
			w.elem("text", r.Text, "class", "row-label", "x", tv.LabelWidth-8, "y", r.Y, "text-anchor", "end")
		}
		w.close("g")
	}
	w.close("g")

	// The body, as the templ component draws it.
	w.open("g", "transform", "translate("+strconv.Itoa(tv.LabelWidth)+" 0)")
	w.WriteByte('\n')
	w.elem("rect", "", "class", "tl-body-bg", "x", 0, "y", 0, "width", tv.Width, "height", tv.Height)
	for _, l := range tv.Lanes {
		w.elem("rect", "", "class", "lane-bg "+l.Kind, "x", 0, "y", l.Y, "width", tv.Width, "height", l.H)
	}
	for _, c := range tv.Columns {
		cls := "col"
		if c.Current {
			cls += " current"
		}
		if c.Future {
			cls += " future"
		}
		w.open("g", "class", cls, "data-col", c.Step)
		w.elem("title", c.Title)
		w.elem("rect", "", "class", "col-bg", "x", c.X, "y", 0, "width", tv.ColW, "height", tv.Height)
		w.elem("text", c.Label, "class", "col-label", "x", c.X+tv.ColW/2, "y", 16, "text-anchor", "middle")
		w.elem("text", c.Time, "class", "col-time", "x", c.X+tv.ColW/2, "y", 32, "text-anchor", "middle")
		w.close("g")
		for _, r := range c.Rects {
			w.open("rect", "class", r.Class, "x", r.X, "y", r.Y, "width", r.W, "height", r.H, "rx", 3)
			if r.Title != "" {
				w.elem("title", r.Title)
			}
			w.close("rect")
		}
	}
	for _, p := range tv.AllPaths() {
		w.elem("path", "", "class", p.Class, "d", p.D)
	}
	for _, x := range tv.AllTexts() {
		if strings.Contains(x.Class, "zone-short") {
			continue // a phone's short label; the export has room for the full one
		}
		w.titled("text", x.Text, x.Title, "class", x.Class, "x", x.X, "y", x.Y, "text-anchor", svgAnchor(x.Anchor))
	}
	w.close("g")
	w.elem("line", "", "class", "tl-sep", "x1", tv.LabelWidth, "y1", 0, "x2", tv.LabelWidth, "y2", tv.Height)
	w.elem("rect", "", "class", "tl-frame", "x", 0, "y", 0, "width", width, "height", tv.Height)

	// The legend.
	w.open("g", "transform", "translate(0 "+strconv.Itoa(tv.Height)+")")
	w.WriteByte('\n')
	for _, e := range legend {
		sy := e.y + (svgLegendRowH-svgSwatchH)/2
		switch e.Class {
		case "watchdog":
			w.elem("text", "↻", "class", "sw-watchdog", "x", e.x+svgSwatchW/2, "y", sy+svgSwatchH-1, "text-anchor", "middle")
		case "truth":
			w.elem("rect", "", "class", "sw sw-truth", "x", e.x, "y", sy+3, "width", svgSwatchW, "height", 6, "rx", 2)
		case "token-only", "stale", "paused", "exited":
			// Stroked swatches sit half a pixel in, to stay crisp.
			w.elem("rect", "", "class", "sw sw-"+e.Class, "x", svgNum(e.x)+0.75, "y", svgNum(sy)+0.75, "width", svgSwatchW-1.5, "height", svgSwatchH-1.5, "rx", 3)
		default:
			cls := "sw"
			if svgLegendSwatches[e.Class] {
				cls += " sw-" + e.Class
			}
			w.elem("rect", "", "class", cls, "x", e.x, "y", sy, "width", svgSwatchW, "height", svgSwatchH, "rx", 3)
		}
		w.elem("text", e.Text, "class", "legend-text", "x", e.x+svgSwatchW+6, "y", e.y+svgLegendRowH/2+4)
	}
	w.close("g")
	w.close("svg")
	return w.Bytes()
}

// svgLegendSwatches are the legend classes this file draws (export_svg.css has
// an .sw-CLASS rule for each); another class gets a plain grey swatch.
var svgLegendSwatches = map[string]bool{
	"belief": true, "truth": true, "stale": true, "token-only": true, "paused": true,
	"crashed": true, "exited": true, "watchdog": true, "lease": true,
}

// svgLegendItem is a legend entry placed in the legend row(s).
type svgLegendItem struct {
	templates.TLLegend
	x, y int
}

// svgLayoutLegend places the entries left to right, wrapping at width; it
// returns them and the height of the legend.
func svgLayoutLegend(entries []templates.TLLegend, width int) ([]svgLegendItem, int) {
	if len(entries) == 0 {
		return nil, 0
	}
	var out []svgLegendItem
	x, y := svgLegendPad, svgLegendPad/2
	for _, e := range entries {
		w := svgSwatchW + 6 + textUnits(e.Text)*svgLegendUnit
		if x > svgLegendPad && x+w > width-svgLegendPad {
			x, y = svgLegendPad, y+svgLegendRowH
		}
		out = append(out, svgLegendItem{TLLegend: e, x: x, y: y})
		x += w + svgLegendGap
	}
	return out, y + svgLegendRowH + svgLegendPad/2
}

// svgNum formats a coordinate with a fraction.
type svgNum float64

func (f svgNum) String() string { return strconv.FormatFloat(float64(f), 'f', -1, 64) }

func svgViewBox(w, h int) string { return "0 0 " + strconv.Itoa(w) + " " + strconv.Itoa(h) }

func svgAnchor(a string) string {
	if a == "" {
		return "start"
	}
	return a
}
