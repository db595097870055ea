package search

import (
	"fmt"
	"strings"

	"lockstep/catalog"
	"lockstep/sim"
)

// Messages localizes the package's texts (catalog/search.*.toml in the
// project's one message catalogue). Build one with NewMessages.
type Messages struct {
	cat *catalog.Catalog
}

// NewMessages returns the package's texts from the embedded catalogue.
func NewMessages() (*Messages, error) {
	cat, err := catalog.New()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return &Messages{cat: cat}, nil
}

// Say returns message id in locale l with data filled in (English where l
// lacks it; the id itself for an unknown id: TestMessagesComplete).
func (m *Messages) Say(l sim.Locale, id string, data map[string]any) string {
	if s, ok := m.cat.Lookup(l, id, data); ok {
		return s
	}
	return id
}

// Narration renders a message code of package explore or sim in every
// locale of the catalogue, as a lesson text.
func (m *Messages) Narration(msg sim.Msg) sim.Text { return m.cat.Text(msg) }

// Text returns message id in every locale.
func (m *Messages) Text(id string, data map[string]any) sim.Text {
	t := sim.Text{}
	for _, l := range sim.Locales {
		t[l] = m.Say(l, id, data)
	}
	return t
}

// DescribeStep is DescribeStep's line in locale l: the action by its name
// in the player (catalogue ids "Act<Action>", e.g. ActAcquire), the actor,
// the written value or the advance's duration as the report writes them.
func (m *Messages) DescribeStep(l sim.Locale, st sim.Step) string {
	act := string(st.Do)
	if s, ok := m.cat.Lookup(l, "Act"+actionID(st.Do), nil); ok {
		act = s
	}
	switch st.Do {
	case sim.ActAdvance:
		return act + " " + st.By.String()
	case sim.ActWrite:
		return st.Actor + " " + act + " " + st.Value
	}
	return st.Actor + " " + act
}

// actionID is an action's part of a message id: "finish-release" is
// "FinishRelease".
func actionID(a sim.Action) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(string(a), func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
