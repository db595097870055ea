package view

import (
	"path"
	"slices"

	"lockstep/examples"
	"lockstep/templates"
)

// LockExamples are the example locks of package examples as the "Your
// lock" form loads them (issue 38, item 9): each labelled in ui's language,
// with its variant file and its scripts by the paths the file names them
// with (what the form sends back). An example that does not load is left
// out; package examples' tests load every one.
func LockExamples(ui templates.UI) []templates.LockExample {
	defs, err := examples.Locks()
	if err != nil {
		return nil
	}
	labels := map[string]string{"redisson-rlock": ui.LockExampleSound, "redisson-rlock-broken": ui.LockExampleBroken}
	var out []templates.LockExample
	for _, d := range defs {
		ex := templates.LockExample{ID: d.Name, Label: labels[d.Name], VariantName: d.File, Variant: d.Texts[d.File]}
		if ex.Label == "" {
			ex.Label = d.Name
		}
		var names []string
		for name := range d.Texts {
			if name != d.File && path.Ext(name) == ".lua" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			ex.Scripts = append(ex.Scripts, templates.LockScript{Name: name, Text: d.Texts[name]})
		}
		out = append(out, ex)
	}
	return out
}
