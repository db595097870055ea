package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Frame messages as JSON, with the shared panels' HTML quoted once.
//
// Encoding a step's frame message with encoding/json was most of the web
// layer's share of a shared step: its panels' HTML, some 12 KiB, is JSON
// string text to escape (every quote of every attribute), about 48 of the
// 60 µs that encoding a typical step message took (go test -bench, 2
// vCPUs), against 12 µs for the rest (the frame's data and the small
// fields). A course lesson's step panels are the same for every session
// that steps through it (stepcache.go), so their JSON text is kept as well,
// keyed by the HTML, and a frame message is encoding/json's text of
// everything but the panels, followed by the panels' kept texts.

// quotedHTML keeps the JSON text of shared step panels' HTML, keyed by the
// HTML. Only the step panels of the course lessons' canonical runs get in
// (view.sharedPanel), a fixed set whatever users do: 768 texts a language,
// 2,302 for the three, some 9 MB of JSON text (the HTML keys are the step
// memo's strings). The bound, in entries (emptied when full), is a backstop
// that the course does not reach.
var quotedHTML = memo{max: quotedMax}

const quotedMax = 5_000

// frameHead is a FrameMessage without its panels and timeline patch, which
// encodeFrame adds: its two fields hide the embedded ones of the same JSON
// names (encoding/json takes the shallower of two such fields), and being
// nil they are left out.
type frameHead struct {
	FrameMessage
	Panels        *struct{} `json:"panels,omitempty"`
	TimelinePatch *struct{} `json:"timeline_patch,omitempty"`
}

// encodeFrame is msg as JSON: the same JSON value as encodeMessage(msg)
// gives (the panels come after the other fields). The HTML of each panel
// for which shared reports true is quoted once per process (quotedHTML);
// the caller says so only of panels that every session shares.
func encodeFrame(msg FrameMessage, shared func(panel string) bool) ([]byte, error) {
	size := 2048
	for _, html := range msg.Panels {
		size += len(html) + len(html)/8 + 32
	}
	if p := msg.TimelinePatch; p != nil {
		size += len(p.Labels)
		for _, c := range p.Cols {
			size += len(c.Back) + len(c.Mid) + len(c.Front) + 64
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // as encodeMessage
	// encode appends v's JSON text to buf (Encode ends it with a newline).
	encode := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1)
		return nil
	}
	if err := encode(frameHead{FrameMessage: msg}); err != nil {
		return nil, fmt.Errorf("web: encode frame message: %w", err)
	}
	// At least {"type":...}: an object with a member, which the panels
	// follow after a comma.
	if b := buf.Bytes(); len(b) < 3 || b[len(b)-1] != '}' {
		return nil, errors.New("web: encode frame message: not a JSON object with members")
	}
	buf.Truncate(buf.Len() - 1) // the head's closing brace
	buf.WriteString(`,"panels":`)
	if msg.Panels == nil {
		buf.WriteString("null")
	} else {
		buf.WriteByte('{')
		for i, name := range slices.Sorted(maps.Keys(msg.Panels)) {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encode(name); err != nil {
				return nil, fmt.Errorf("web: encode panel name %q: %w", name, err)
			}
			buf.WriteByte(':')
			html := msg.Panels[name]
			if !shared(name) {
				if err := encode(html); err != nil {
					return nil, fmt.Errorf("web: encode panel %s: %w", name, err)
				}
				continue
			}
			q, err := remember(&quotedHTML, html, func() ([]byte, error) {
				q, err := encodeMessage(html)
				return bytes.Clone(q), err // not the encoder's spare capacity
			})
			if err != nil {
				return nil, fmt.Errorf("web: encode panel %s: %w", name, err)
			}
			buf.Write(q)
		}
		buf.WriteByte('}')
	}
	if msg.TimelinePatch != nil {
		buf.WriteString(`,"timeline_patch":`)
		if err := encode(msg.TimelinePatch); err != nil {
			return nil, fmt.Errorf("web: encode timeline patch: %w", err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
