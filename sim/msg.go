package sim

// Msg is a message code with its parameters: what sim, drill and explore
// return wherever a person will read a sentence (a violation's explanation,
// narration, an error). Package catalog turns it into text in a locale; the
// code never holds prose.
//
// ID names a message of the catalogue (catalog/*.toml), e.g.
// "violation.overlapping-holders". Args fills its placeholders ({{.Lock}});
// a value of type Millis is written as a duration in the locale, List as a
// list of names, and Msg as the text of that message.
type Msg struct {
	ID   string         `json:"id"`
	Args map[string]any `json:"args,omitempty"`
	// Text is the message rendered in one locale. sim leaves it empty;
	// an edge that prints frames for people (the CLI's --json) fills it.
	Text string `json:"text,omitempty"`
}

// M returns the message id with its arguments given as pairs of name and
// value: M("violation.stale-write", "Lock", "order:42", "Seq", 1).
func M(id string, kv ...any) Msg {
	m := Msg{ID: id}
	if len(kv) > 0 {
		m.Args = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m.Args[kv[i].(string)] = kv[i+1]
		}
	}
	return m
}

// Millis is a message argument that is a duration in milliseconds; the
// catalogue writes it in the locale ("30 s" in English).
type Millis int64

// List is a message argument that is a list of names (actor ids); the
// catalogue joins it in the locale ("A, B and C" in English).
type List []string

// Renderer turns message codes into text: package catalog's *Catalog. The
// consumers of sim that print for people (CLI, web, exports) take one.
type Renderer interface {
	// Render returns m in locale l.
	Render(l Locale, m Msg) string
	// Locales are the languages the renderer speaks, the default first.
	Locales() []Locale
}

// TextOf renders m in every locale of r, as a lesson text field: for the
// texts of lessons made in code (drills, sandboxes, exports).
func TextOf(r Renderer, m Msg) Text {
	t := Text{}
	for _, l := range r.Locales() {
		t[l] = r.Render(l, m)
	}
	return t
}

// Coded is an error that also says what went wrong as a message code, for
// people in their language; its Error stays English, for logs. The web
// pages and the CLI find it with errors.As and render it with the message
// catalogue (catalog.Catalog.Error).
type Coded interface {
	error
	Message() Msg
}

// Message makes LoadError a Coded error.
func (e LoadError) Message() Msg { return e.Problem }
