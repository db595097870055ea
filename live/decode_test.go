package live

import (
	"strings"
	"testing"
)

// TestDecodeNamesTheField: a browser message with a field of the wrong
// type is refused naming the field as the page sends it and what it
// takes, not the server's Go struct ("Go struct field inMsg.before").
func TestDecodeNamesTheField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"older","before":-1}`, `field "before" takes a whole number, 0 or more, not a JSON number -1`},
		{`{"type":7}`, `field "type" takes a string, not a JSON number`},
	} {
		_, err := decode([]byte(c.in))
		if err == nil || err.Error() != c.want || strings.Contains(err.Error(), "inMsg") {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := decode([]byte(`{"type":`)); err == nil {
		t.Error("a cut message decoded")
	}
}
