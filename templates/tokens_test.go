package templates

import (
	"reflect"
	"testing"
)

func TestTokenParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []TextPart
	}{
		{"A believes it holds order:42, but Redis keeps t-b3cae1aa.", []TextPart{{Text: "A believes it holds order:42, but Redis keeps "}, {Text: "t-b3cae1aa", Token: true}, {Text: "."}}},
		{"t-00000001 and t-ffffffff", []TextPart{{Text: "t-00000001", Token: true}, {Text: " and "}, {Text: "t-ffffffff", Token: true}}},
		{"no token, not-a-token t-12", []TextPart{{Text: "no token, not-a-token t-12"}}},
		{"", nil},
	} {
		if got := TokenParts(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("TokenParts(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
