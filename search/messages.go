package search

import (
	"fmt"

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
