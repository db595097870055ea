package search

import (
	"embed"
	"fmt"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"lockstep/sim"
)

// messageFiles are the package's texts, one TOML file per locale
// (messages.<locale>.toml), in go-i18n's format so that they merge into the
// project's message catalogue.
//
//go:embed messages.*.toml
var messageFiles embed.FS

// Messages localizes the package's texts. Build one with NewMessages.
type Messages struct {
	loc map[sim.Locale]*i18n.Localizer
}

// NewMessages loads the message files.
func NewMessages() (*Messages, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	m := &Messages{loc: map[sim.Locale]*i18n.Localizer{}}
	for _, l := range sim.Locales {
		name := "messages." + string(l) + ".toml"
		if _, err := b.LoadMessageFileFS(messageFiles, name); err != nil {
			return nil, fmt.Errorf("search: message file %s: %w", name, err)
		}
	}
	for _, l := range sim.Locales {
		m.loc[l] = i18n.NewLocalizer(b, string(l))
	}
	return m, nil
}

// Say returns message id in locale l with data filled in.
func (m *Messages) Say(l sim.Locale, id string, data map[string]any) string {
	loc := m.loc[l]
	if loc == nil {
		loc = m.loc[sim.English]
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil {
		return id // every id is in every file: TestMessagesComplete
	}
	return s
}

// Text returns message id in every locale.
func (m *Messages) Text(id string, data map[string]any) sim.Text {
	t := sim.Text{}
	for _, l := range sim.Locales {
		t[l] = m.Say(l, id, data)
	}
	return t
}
