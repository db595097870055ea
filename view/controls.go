package view

import (
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// speeds are the play speeds: the value is the play message's speed.
var speeds = []string{"0.5", "1", "2", "4"}

func Controls(t Texts, step, total int, speed float64) templates.Controls {
	c := templates.Controls{UI: t.UI(), Step: step, Total: total, I: t.Interview(), Glosses: PredictGlosses(t)}
	for _, s := range speeds {
		f, _ := strconv.ParseFloat(s, 64)
		c.Speeds = append(c.Speeds, templates.SpeedOption{Value: s, Label: s + "×", Selected: f == speed})
	}
	return c
}

// lockType is the header's badge of the lock key's Redis type: "lock key:
// Hash".
func LockType(t Texts, k sim.KeyType) string {
	name := string(k)
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return t.T("LockKeyType", "Type", name)
}
