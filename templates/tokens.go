package templates

import "regexp"

// grantToken matches a grant token as the simulator makes them ("t-" and 8
// hex digits, sim.Runner's newToken).
var grantToken = regexp.MustCompile(`\bt-[0-9a-f]{8}\b`)

// TextPart is a piece of a sentence: plain text, or a grant token that must
// not break over two lines (a browser breaks "t-b3cae1aa" after its hyphen).
type TextPart struct {
	Text  string
	Token bool
}

// TokenParts splits s into its plain text and its grant tokens, in order.
func TokenParts(s string) []TextPart {
	var out []TextPart
	last := 0
	for _, m := range grantToken.FindAllStringIndex(s, -1) {
		if m[0] > last {
			out = append(out, TextPart{Text: s[last:m[0]]})
		}
		out = append(out, TextPart{Text: s[m[0]:m[1]], Token: true})
		last = m[1]
	}
	if last < len(s) {
		out = append(out, TextPart{Text: s[last:]})
	}
	return out
}
